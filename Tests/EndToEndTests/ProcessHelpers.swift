import Foundation

/// The directory holding the package's built executables (beside the test bundle).
let productsDirectory: URL = {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    return executable.deletingLastPathComponent()
}()

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs one of the package's executables to completion; one still running after `timeout`
/// seconds is killed (status 9 by signal), so that a hang fails the test instead of stalling it.
/// With `standardOutput`, its output goes there (and `stdout` is empty).
func runTool(_ name: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Double = 300,
             standardOutput: FileHandle? = nil) throws -> ProcessResult {
    let process = Process()
    process.executableURL = productsDirectory.appendingPathComponent(name)
    process.arguments = arguments
    if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    let out = Pipe(), err = Pipe()
    process.standardOutput = standardOutput ?? out
    process.standardError = err
    try process.run()
    let pid = process.processIdentifier
    let watchdog = DispatchWorkItem { Foundation.kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    defer { watchdog.cancel() }
    // Read before waiting so a full pipe cannot stall the child.
    let outData = standardOutput == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                         stderr: String(decoding: errData, as: UTF8.self))
}

/// A child process whose standard output is collected line by line on a background thread.
final class RunningChild: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var lines: [String] = []
    private var errorText = ""
    private let done = DispatchGroup()

    init(_ name: String, _ arguments: [String]) throws {
        process.executableURL = productsDirectory.appendingPathComponent(name)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        done.enter()
        Thread { [self] in
            let data = out.fileHandleForReading.readDataToEndOfFile()
            let text = String(decoding: data, as: UTF8.self)
            let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            lock.lock()
            lines = text.split(separator: "\n").map(String.init)
            errorText = errors
            lock.unlock()
            done.leave()
        }.start()
    }

    var pid: Int32 { process.processIdentifier }

    /// SIGKILL, then everything it printed.
    func kill() -> (lines: [String], stderr: String) {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        done.wait()
        lock.lock()
        defer { lock.unlock() }
        return (lines, errorText)
    }
}

/// Waits until `condition` holds, polling, for at most `seconds`.
func waitUntil(seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return try condition()
}

final class TemporaryDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("graphstore-e2e-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func store(_ name: String = "store") -> String { path + "/" + name }
}
