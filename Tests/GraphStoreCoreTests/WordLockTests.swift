import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
import Testing

/// The identity map's mutex: mutual exclusion under contention (threads that must sleep
/// on it and be woken), with a critical section long enough for lost updates to show.
@Suite struct WordLockTests {
    final class Counter: @unchecked Sendable {
        let lock = WordLock()
        var value = 0
        var inside = 0
        var overlapped = false
    }

    @Test func excludesAndWakesEveryWaiter() {
        let counter = Counter()
        let threads = 8, rounds = 20_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for round in 0..<rounds {
                counter.lock.withLock {
                    counter.inside += 1
                    if counter.inside != 1 { counter.overlapped = true }
                    let seen = counter.value
                    // Now and then hold the lock a while, so that others sleep on it.
                    if round % 1_000 == 0 { usleep(50) }
                    counter.value = seen + 1
                    counter.inside -= 1
                }
            }
        }
        #expect(counter.value == threads * rounds)
        #expect(!counter.overlapped)
    }
}
