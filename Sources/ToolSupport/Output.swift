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

/// Opens descriptors 0, 1 and 2 when the tool was started with any of them closed
/// (`enroute load >&-`): otherwise the first file the tool opens takes that number, and `print`
/// writes into it — into a store's file. Standard input reads as empty; standard output and
/// error are opened read-only, so that a write to them fails as it would have, and `exit` says so.
public func reserveStandardDescriptors() {
    for descriptor in Int32(0)...2 where fcntl(descriptor, F_GETFD) == -1 {
        let opened = open("/dev/null", O_RDONLY)
        if opened >= 0 && opened != descriptor {
            dup2(opened, descriptor)
            close(opened)
        }
    }
}

/// Ends the process with `code`, once standard output is flushed. Output that did not reach its
/// file (a full disk, a closed descriptor) is a failure and is said so, naming standard output
/// and the system's reason: a command whose output was lost never exits 0.
public func exit(_ code: ExitCode) -> Never {
    // Every C stream at once (`stdout`, which `print` writes through, is a C global Swift 6 will
    // not read): a write that failed before left its bytes in the buffer, so this fails too.
    if fflush(nil) != 0 {
        let reason = errno
        let tool = URL(fileURLWithPath: CommandLine.arguments.first ?? "").lastPathComponent
        printError("\(tool): writing standard output failed: \(String(cString: strerror(reason))) (errno \(reason))")
        Glibc.exit(code == .success ? ExitCode.failure.rawValue : code.rawValue)
    }
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
