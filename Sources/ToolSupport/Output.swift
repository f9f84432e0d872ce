import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Exit codes shared by the tools (documented in Docs/guides/recovery.md).
public enum ExitCode: Int32 {
    case success = 0
    /// The command ran and found a problem (a damaged store, a refused input).
    case failure = 1
    /// Bad arguments.
    case usage = 2
}

public func printError(_ message: String) {
    var line = message
    if !line.hasSuffix("\n") { line += "\n" }
    FileHandle.standardError.write(Data(line.utf8))
}

public func exit(_ code: ExitCode) -> Never {
    fflush(nil)
    Glibc.exit(code.rawValue)
}

/// Formats a byte count for people: 1.5 MiB.
public func formatBytes(_ bytes: UInt64) -> String {
    let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1024 && unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return unit == 0 ? "\(bytes) bytes" : "\((value * 10).rounded() / 10) \(units[unit])"
}
