import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Output written to a file descriptor on a thread of its own, in the order given: writing a
/// large output (copying it into the page cache, the file system finding it blocks) overlaps
/// the work that makes the next bytes instead of following it. At most `depth` chunks wait, so
/// the memory held stays bounded; `streaming` waits for every chunk before it returns, and a
/// failed write is thrown from there (or from the next `write`), naming the descriptor and the
/// system's error. Chunks after a failure are dropped, never written out of order.
public final class BackgroundOutput: Sendable {
    /// A write that the system refused (a full disk, a closed descriptor).
    public struct WriteFailed: Error, Equatable, CustomStringConvertible {
        public let destination: String
        public let code: Int32
        public var description: String { "writing \(destination) failed: \(String(cString: strerror(code))) (errno \(code))" }
    }

    private let descriptor: Int32
    private let destination: String
    private let queue = DispatchQueue(label: "ToolSupport.BackgroundOutput")
    private let slots: DispatchSemaphore
    private let failure = Mutex<WriteFailed?>(nil)

    /// Runs `body` with an output on `descriptor` (standard output unless told), then waits for
    /// every chunk to be written. Rethrows `body`'s error, else the first failed write's.
    public static func streaming<R>(to descriptor: Int32 = STDOUT_FILENO, named destination: String = "standard output",
                                    depth: Int = 4, _ body: (BackgroundOutput) throws -> R) throws -> R {
        let output = BackgroundOutput(descriptor: descriptor, destination: destination, depth: depth)
        let result: Result<R, any Error> = Result { try body(output) }
        output.drain()
        let value = try result.get()
        try output.throwIfFailed()
        return value
    }

    private init(descriptor: Int32, destination: String, depth: Int) {
        (self.descriptor, self.destination) = (descriptor, destination)
        slots = DispatchSemaphore(value: max(1, depth))
    }

    /// Queues `chunk` behind those before it; waits while `depth` chunks are waiting. Throws the
    /// failure of a write before it, if one failed.
    public func write(_ chunk: Data) throws {
        try throwIfFailed()
        slots.wait()
        queue.async { [self] in
            defer { slots.signal() }
            guard failure.withLock({ $0 == nil }) else { return }
            if let code = Self.writeAll(chunk, to: descriptor) {
                failure.withLock { $0 = WriteFailed(destination: destination, code: code) }
            }
        }
    }

    private func drain() { queue.sync {} }

    private func throwIfFailed() throws {
        if let failed = failure.withLock({ $0 }) { throw failed }
    }

    /// Writes every byte, through short writes and interruptions; the errno of a failure.
    private static func writeAll(_ chunk: Data, to descriptor: Int32) -> Int32? {
        chunk.withUnsafeBytes { bytes -> Int32? in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }
}
