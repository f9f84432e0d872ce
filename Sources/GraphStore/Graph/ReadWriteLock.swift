import CSwiftRuntime

/// Many readers or one writer: readers of the graph run side by side and never see a
/// transaction half applied. Writers are preferred, so a stream of readers cannot starve a save.
/// Not recursive. The lock is `graphstore_rwlock` (CSwiftRuntime.h), whose uncontended read
/// lock and unlock are one atomic instruction each, inline.
@_spi(GraphStoreInternals) public final class ReadWriteLock: @unchecked Sendable {
    @usableFromInline let lock: UnsafeMutablePointer<graphstore_rwlock>

    package init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: graphstore_rwlock(state: 0, sleepers: 0))
    }

    deinit { lock.deallocate() }

    /// Runs `body` holding the lock shared with other readers.
    @inlinable
    @_spi(GraphStoreInternals) public func withReadLock<R>(_ body: () throws -> R) rethrows -> R {
        graphstore_rwlock_read_lock(lock)
        defer { graphstore_rwlock_read_unlock(lock) }
        return try body()
    }

    /// Runs `body` holding the lock alone.
    @inlinable
    @_spi(GraphStoreInternals) public func withWriteLock<R>(_ body: () throws -> R) rethrows -> R {
        graphstore_rwlock_write_lock(lock)
        defer { graphstore_rwlock_write_unlock(lock) }
        return try body()
    }
}
