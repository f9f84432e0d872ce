import Foundation
@_spi(GraphStoreInternals) import GraphStoreGraph
import Synchronization
import Testing
@_spi(GraphStoreInternals) import GraphStoreCore

/// The graph's readers-writer lock: readers hold it side by side, a writer alone, a writer is
/// not starved by readers that keep coming, and threads that sleep on it are woken.
@Suite struct ReadWriteLockTests {
    final class Shared: @unchecked Sendable {
        let lock = ReadWriteLock()
        let readers = Atomic<Int>(0)
        let writers = Atomic<Int>(0)
        let broken = Atomic<Bool>(false)
        let stop = Atomic<Bool>(false)
        var value = 0
    }

    @Test func readersHoldItTogether() {
        let shared = Shared()
        let firstIsIn = DispatchSemaphore(value: 0), secondWasIn = DispatchSemaphore(value: 0)
        let firstSawSecond = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            shared.lock.withReadLock {
                firstIsIn.signal()
                // Still holding it: the second reader gets in meanwhile, or never does.
                if secondWasIn.wait(timeout: .now() + 10) == .success { firstSawSecond.store(true, ordering: .relaxed) }
            }
            done.signal()
        }
        firstIsIn.wait()
        shared.lock.withReadLock { _ = secondWasIn.signal() }
        done.wait()
        let together = firstSawSecond.load(ordering: .relaxed)
        #expect(together)
    }

    @Test func writersExcludeEveryone() {
        let shared = Shared()
        let threads = 4, rounds = 5_000
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for round in 0..<rounds {
                if (round + thread) % 10 == 0 {
                    shared.lock.withWriteLock {
                        let writers = shared.writers.add(1, ordering: .relaxed).newValue
                        if writers != 1 || shared.readers.load(ordering: .relaxed) != 0 { shared.broken.store(true, ordering: .relaxed) }
                        let seen = shared.value
                        // Now and then hold it a while, so that others sleep on it.
                        if round % 1_000 == 0 { usleep(100) }
                        shared.value = seen + 1
                        shared.writers.subtract(1, ordering: .relaxed)
                    }
                } else {
                    shared.lock.withReadLock {
                        _ = shared.readers.add(1, ordering: .relaxed)
                        if shared.writers.load(ordering: .relaxed) != 0 { shared.broken.store(true, ordering: .relaxed) }
                        if round % 1_500 == 0 { usleep(100) }
                        shared.readers.subtract(1, ordering: .relaxed)
                    }
                }
            }
        }
        let broken = shared.broken.load(ordering: .relaxed)
        #expect(!broken)
        #expect(shared.value == threads * rounds / 10)
    }

    @Test func aWriterIsNotStarvedByReadersThatKeepComing() throws {
        let shared = Shared()
        let readersStarted = DispatchGroup()
        let readersDone = DispatchGroup()
        // Three readers whose holds overlap, so that the lock is never free of readers unless
        // new readers wait for the writer.
        for _ in 0..<3 {
            readersStarted.enter()
            readersDone.enter()
            Thread.detachNewThread {
                var first = true
                while !shared.stop.load(ordering: .relaxed) {
                    shared.lock.withReadLock {
                        if first { readersStarted.leave(); first = false }
                        usleep(200)
                    }
                }
                readersDone.leave()
            }
        }
        readersStarted.wait()
        let wrote = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            shared.lock.withWriteLock { shared.value = 1 }
            wrote.signal()
        }
        let result = wrote.wait(timeout: .now() + 10)
        shared.stop.store(true, ordering: .relaxed)
        readersDone.wait()
        #expect(result == .success)
        #expect(shared.value == 1)
    }
}
