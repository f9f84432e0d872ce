import Foundation

/// A mutex whose waiters first give the processor away a few times, then sleep: the commit
/// lock (`Store.commitLock`), held a few microseconds by each save and wanted by every
/// committing thread at once after a group sync releases them.
///
/// A waiter that sleeps must be woken by the unlocker, and on a virtual machine with more
/// threads than cores that wake-up costs more than the critical section, one sleeping
/// hand-over after another. A waiter that yields stays runnable and takes the lock the next time it runs,
/// while the yield lets the holder (or another thread with work) have the processor. A lock
/// held long (a checkpoint, a large batch) still puts its waiters to sleep after
/// `yieldsBeforeSleeping` tries.
@_spi(GraphStoreInternals) public final class YieldingLock: @unchecked Sendable {
    private let mutex = NSLock()
    private let yieldsBeforeSleeping: Int

    package init(yieldsBeforeSleeping: Int = 100) {
        self.yieldsBeforeSleeping = yieldsBeforeSleeping
    }

    @usableFromInline package func lock() {
        if mutex.try() { return }
        for _ in 0..<yieldsBeforeSleeping {
            sched_yield()
            if mutex.try() { return }
        }
        mutex.lock()
    }

    @usableFromInline package func unlock() { mutex.unlock() }

    /// Runs `body` holding the lock.
    @inlinable @_spi(GraphStoreInternals) public func withLock<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
