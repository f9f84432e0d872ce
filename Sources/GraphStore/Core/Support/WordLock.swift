import CSwiftRuntime

/// The identity map's lock (ObjectRegistry): every object a context makes or frees takes it, so
/// it is a two-word mutex locked and unlocked inline (see `graphstore_mutex`), not an NSLock.
@_spi(GraphStoreInternals) public final class WordLock: @unchecked Sendable {
    @usableFromInline let word: UnsafeMutablePointer<graphstore_mutex>

    package init() {
        word = .allocate(capacity: 1)
        word.initialize(to: graphstore_mutex(state: 0, waiters: 0))
    }

    deinit { word.deallocate() }

    /// Takes the lock, waiting while another thread holds it.
    @inlinable @_spi(GraphStoreInternals) public func lock() { graphstore_mutex_lock(word) }

    /// Gives the lock back.
    @inlinable @_spi(GraphStoreInternals) public func unlock() { graphstore_mutex_unlock(word) }

    /// Runs `body` holding the lock.
    @inlinable @_spi(GraphStoreInternals) public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
