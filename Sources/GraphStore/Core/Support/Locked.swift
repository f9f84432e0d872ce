import Foundation

/// A value guarded by a lock, for state every commit touches from many threads.
///
/// Not `Synchronization.Mutex`: on Linux that is a priority-inheritance futex, and with more
/// committing threads than cores its contended path (a kernel rt-mutex round trip per handoff)
/// cost more than the commits themselves (Docs/BENCHMARKS.md, throughput). A plain pthread
/// mutex (NSLock) hands off cheaply.
@_spi(GraphStoreInternals) public final class Locked<Value>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    // Reached only under `lock` (which is not recursive), so without run-time exclusivity
    // checks: each cost a thread-local access-set update, and row numbers for an import's
    // rows are handed out one at a time through here.
    @usableFromInline @exclusivity(unchecked) var stored: Value

    /// `value`, guarded from now on.
    @inlinable @_spi(GraphStoreInternals) public init(_ value: Value) { stored = value }

    /// The value now.
    @inlinable @_spi(GraphStoreInternals) public var value: Value { withLock { $0 } }

    /// Runs `body` on the value, holding the lock.
    @inlinable @_spi(GraphStoreInternals) public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }
}
