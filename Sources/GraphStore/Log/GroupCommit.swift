import Dispatch
import Foundation
import Synchronization

/// Group commit: the order in which reserved records reach the segment writer, and the syncs
/// that make them durable, shared between concurrent commits.
///
/// Each reservation takes a ticket in log order (`issueTicket`). A writer hands its record in
/// (`write`); whoever writes next — the sync leader, or a writer that must see its record
/// written before it returns — writes the run of handed-in records that follows the last one
/// written, in ticket order, in one go. With `.grouped` durability the first waiter to find no
/// sync running leads: it writes every record handed in and syncs them with one `fdatasync`,
/// while the others wait for a sync that covers them. A failed write or sync *poisons* the log:
/// that commit and every later one throw until the store is reopened (retrying a failed fsync
/// and carrying on can silently lose data).
///
/// Everything here is guarded by `condition`, the log's one lock.
final class GroupCommit: @unchecked Sendable {
    /// The log's lock, which also wakes the threads waiting on a hand-in or a write.
    let condition = NSCondition()
    private let writer: SegmentWriter
    private let options: LogOptions
    /// Named in the error a failure that is not a `StorageError` becomes.
    private let directory: String
    /// The first write or sync failure.
    private(set) var poison: StorageError?
    /// Set when the log closes or gives up its open: a sync leader finding it set throws.
    var closed = false

    /// Bytes appended since open, and how many of them a completed sync covers.
    private var appendedBytes: UInt64 = 0
    private var syncedBytes: UInt64 = 0
    private var syncInProgress = false
    /// Commits written so far, and how many the last group sync covered: when syncs have been
    /// shared lately, a new leader waits a moment for the commits on their way to be handed in
    /// (see waitForSync).
    private var appendedCommits: UInt64 = 0
    private var syncedCommits: UInt64 = 0
    private var lastBatchCommits: UInt64 = 0
    /// Commits handed in but not covered when the last sync ended (they wait for the next).
    private var pendingAtLastSync: UInt64 = 0
    /// Tickets handed out and written; `appendedBytes` counts only written records.
    private var ticketsIssued: UInt64 = 0
    private var ticketsWritten: UInt64 = 0
    /// Bytes of the records reserved so far (a reservation's `end` is this after it).
    private var reservedBytes: UInt64 = 0
    /// Records handed to `write` and not written yet, by ticket. Whoever writes next — the sync
    /// leader, or a writer that must see its record written before it returns — writes the run
    /// of them that follows the last one written, in ticket order, in one go. (Each writer
    /// writing its own record in turn had later ones spin, yielding, until the one before was
    /// written.)
    private var handedIn: [UInt64: TransactionLog.Reservation] = [:]
    /// Commits handed in so far, written or not (what a sync leader waits for).
    private var handedInCommits: UInt64 = 0
    /// A thread is writing handed-in records (outside the lock).
    private var writingHandedIn = false
    /// Threads waiting for a record to be handed in or written (not those waiting for a sync):
    /// only then do hand-ins and writes wake anyone (waking every waiting writer at each of
    /// them had 16 writers on 2 cores spend their time waking up).
    private var handInWaiters = 0
    /// The tickets of the write that failed: records before them were written, records after
    /// them were given up.
    private var failedTickets: Range<UInt64>?
    /// Tickets below this were written (in order: nothing is written after a failure).
    private var ticketsWrittenWhole: UInt64 = 0
    /// Threads waiting for every reservation to be written (a roll, a seal, a sync, close).
    private var drainWaiters = 0
    /// Threads waiting for a group sync to cover their commits (see `wakeSyncWaiters`).
    private var syncWaiters: [SyncWaiter] = []
    /// How long group syncs have taken lately (a moving average, nanoseconds): how long a
    /// waiter yields before it sleeps.
    private var recentSyncNanoseconds: UInt64 = 0
    /// How waits for another thread's sync ended: woken while still yielding, or after sleeping.
    private let waitsWokenYielding = Atomic<Int>(0)
    private let waitsWokenSleeping = Atomic<Int>(0)

    init(writer: SegmentWriter, options: LogOptions, directory: String) {
        self.writer = writer
        self.options = options
        self.directory = directory
    }

    /// Gives a record of `bytes` the next ticket, and returns it with where the record ends in
    /// the log's appended bytes. Called with the lock held.
    func issueTicket(bytes: Int) -> (ticket: UInt64, end: UInt64) {
        reservedBytes += UInt64(bytes)
        defer { ticketsIssued += 1 }
        return (ticketsIssued, reservedBytes)
    }

    /// Holds a new reservation back while someone waits for the log to be quiet (a seal, a
    /// sync, close), so that a steady stream of commits cannot keep them waiting; `check` runs
    /// after each wait. Called with the lock held.
    func waitForQuietSeekers(_ check: () throws -> Void) rethrows {
        while drainWaiters > 0 {
            condition.wait()
            try check()
        }
    }

    /// Everything written is on disk: a sealed segment was synced, or the whole log. Called
    /// with the lock held.
    func noteEverythingSynced() {
        syncedBytes = appendedBytes
    }

    /// At close, with the lock held and the log quiet: syncs the commits still waiting for a
    /// group sync, so that their waiters return (one finding the log closed would otherwise
    /// have no file to sync).
    func syncOutstanding() {
        guard syncedBytes < appendedBytes, poison == nil, let handle = writer.handle else { return }
        do {
            try handle.sync()
            syncedBytes = appendedBytes
        } catch { _ = poisonWith(error) }
        condition.broadcast()
    }

    /// Hands a reserved record in and returns once it is written and as durable as the log's
    /// durability asks (`TransactionLog.write`): with `.grouped` the sync leader writes it with
    /// the others handed in meanwhile, otherwise this thread writes the run up to its record.
    @discardableResult
    func write(_ reservation: TransactionLog.Reservation, waitForDurability: Bool) throws -> TransactionLog.Receipt {
        condition.lock()
        var locked = true
        defer { if locked { condition.unlock() } }
        handedIn[reservation.ticket] = reservation
        handedInCommits += 1
        if handInWaiters > 0 { condition.broadcast() }  // a leader or a writer may wait for it
        if options.durability == .grouped && waitForDurability {
            locked = false
            try waitForSync(covering: reservation.end, ticket: reservation.ticket)
            return reservation.receipt
        }
        while ticketsWritten <= reservation.ticket {
            if !writeHandedIn() { waitForHandIn() }  // one before it is not handed in yet
        }
        if let failure = writeFailure(ofTicket: reservation.ticket) { throw failure }
        let receipt = reservation.receipt
        switch options.durability {
        case .none:
            return receipt
        case .full:
            // Another writer's sync since covered it; or a sync failed since it was written, and
            // the file is never synced again (its pages may be lost: this commit is not durable).
            if syncedBytes >= reservation.end { return receipt }
            if let poison { throw StorageError.writerPoisoned(cause: poison.description) }
            do { try writer.handle!.sync() } catch { throw poisonWith(error) }
            syncedBytes = appendedBytes
            return receipt
        case .grouped:
            var pending = receipt
            pending.pendingSyncTarget = reservation.end
            return pending
        }
    }

    /// Writes the handed-in records that follow the last one written, in ticket order, with
    /// the lock released; a run of them going to one file one after another is one write.
    /// After a failure nothing more is written: later records are given up (their writers
    /// throw). Called with the lock held, returns with it held; false when there was nothing
    /// to write (the next record is not handed in yet).
    @discardableResult
    private func writeHandedIn() -> Bool {
        if writingHandedIn {
            waitForHandIn()  // another thread is writing: look again after
            return true
        }
        var batch: [TransactionLog.Reservation] = []
        while let next = handedIn.removeValue(forKey: ticketsWritten + UInt64(batch.count)) { batch.append(next) }
        guard !batch.isEmpty else { return false }
        if poison == nil {
            writingHandedIn = true
            condition.unlock()
            var failure: (any Error)?
            do { try SegmentWriter.write(batch.map { ($0.handle, $0.offset, $0.record) }) } catch { failure = error }
            condition.lock()
            writingHandedIn = false
            if let failure {
                failedTickets = batch[0].ticket..<(batch[0].ticket + UInt64(batch.count))
                _ = poisonWith(failure)
            } else {
                appendedBytes = batch[batch.count - 1].end
                appendedCommits += UInt64(batch.count)
                ticketsWrittenWhole = batch[batch.count - 1].ticket + 1
            }
        }
        // After a failure (a write, a sync, or another commit's reservation) the batch is given
        // up unwritten: its writers throw (writeFailure).
        ticketsWritten += UInt64(batch.count)
        // Their writers waiting to see them written, whoever waits for the log to be quiet.
        if handInWaiters > 0 || drainWaiters > 0 { condition.broadcast() }
        return true
    }

    /// Waits for a record to be handed in or written. Called with the lock held.
    private func waitForHandIn() {
        handInWaiters += 1
        condition.wait()
        handInWaiters -= 1
    }

    /// What the writer of `ticket` throws once the log is poisoned: the failure itself when its
    /// own record was in the failed write (as if it had written it), the poisoning when its
    /// record was given up; nil when its record was written (whether it is durable is the
    /// caller's question: see `write`).
    private func writeFailure(ofTicket ticket: UInt64) -> (any Error)? {
        guard let poison, ticket >= ticketsWrittenWhole else { return nil }
        if let failedTickets, failedTickets.contains(ticket) { return poison }
        return StorageError.writerPoisoned(cause: poison.description)
    }

    /// Waits until no group sync runs and every reserved record is written; reservations wait
    /// meanwhile, so a steady stream of commits cannot keep it waiting. Called with the lock held.
    func waitUntilQuiet() {
        drainWaiters += 1
        while syncInProgress || ticketsWritten < ticketsIssued {
            if !syncInProgress, writeHandedIn() { continue }
            condition.wait()
        }
        drainWaiters -= 1
        if drainWaiters == 0 { condition.broadcast() }  // the reservations held back
    }

    /// Returns once the commit of `receipt` is durable (a group sync covers it); throws the
    /// writer's poison if that sync failed.
    func waitUntilDurable(_ receipt: TransactionLog.Receipt) throws {
        guard let target = receipt.pendingSyncTarget else { return }
        condition.lock()
        try waitForSync(covering: target)
    }

    /// Group commit: the first waiter to find no sync running becomes the leader and syncs
    /// everything appended so far; the others wait for a sync that covers them.
    private func waitForSync(covering target: UInt64, ticket: UInt64? = nil) throws {
        // Called with the lock held; returns or throws with it released.
        var locked = true
        defer { if locked { condition.unlock() } }
        while syncedBytes < target {
            if let poison {
                if let ticket, let failure = writeFailure(ofTicket: ticket) { throw failure }
                throw StorageError.writerPoisoned(cause: poison.description)
            }
            if syncInProgress {
                let waiter = SyncWaiter(target: target)
                syncWaiters.append(waiter)
                // Long enough for the rest of the running sync, the leader's turn-over and the
                // next sync (a commit handed in during a sync waits for the next one), so that
                // hardly any waiter sleeps: with twice a sync, one wait in six to ten with 16
                // writers still slept and had the leader wake it, one system call after another.
                let limit = options.groupCommitYieldLimitNanoseconds
                let patience = limit == 0 ? 0 : min(4 * recentSyncNanoseconds + 20_000, limit)
                condition.unlock()
                switch waiter.waitUntilWoken(yieldingForNanoseconds: patience) {
                case .wokenYielding: waitsWokenYielding.add(1, ordering: .relaxed)
                case .wokenSleeping: waitsWokenSleeping.add(1, ordering: .relaxed)
                case .wokenBeforeWaiting: break
                }
                if waiter.covered {
                    locked = false
                    return
                }
                condition.lock()
                continue
            }
            if closed { throw StorageError.closed }
            syncInProgress = true
            // When the last syncs were shared, other writers are committing: give the ones on
            // their way a moment to append, so this sync covers them too (one writer alone never
            // waits: its batches are of one). It waits until the commits it expects are in —
            // the writers the last sync released, and those already waiting then — or for
            // `groupCommitDelayMicroseconds` at most, yielding the processor rather than
            // sleeping: a timed sleep lasts at least the kernel's timer slack and ends with a
            // wake-up, where yielding runs the very writers it waits for and stops as soon as
            // they are in.
            if lastBatchCommits > 1 && options.groupCommitDelayNanoseconds > 0 {
                let expected = syncedCommits + lastBatchCommits + pendingAtLastSync
                condition.unlock()
                _ = yieldProcessor(forNanoseconds: options.groupCommitDelayNanoseconds) {
                    self.condition.withLock { self.handedInCommits >= expected }
                }
                condition.lock()
            }
            // The records handed in so far go out first, in one go.
            while writeHandedIn() {}
            if appendedBytes == syncedBytes || poison != nil {
                // Nothing new to sync (a record before this one is not handed in yet), or a
                // write failed: let others lead, and look again when something changes.
                syncInProgress = false
                condition.broadcast()
                if poison == nil {
                    waitForHandIn()
                } else {
                    wakeSyncWaiters(all: true)
                }
                continue
            }
            let upTo = appendedBytes
            let upToCommits = appendedCommits
            let handle = writer.handle!
            condition.unlock()
            var failure: (any Error)?
            let syncStart = DispatchTime.now().uptimeNanoseconds
            do { try handle.sync() } catch { failure = error }
            let syncTime = DispatchTime.now().uptimeNanoseconds - syncStart
            condition.lock()
            recentSyncNanoseconds = (recentSyncNanoseconds * 7 + syncTime) / 8
            lastBatchCommits = upToCommits - syncedCommits
            syncedCommits = max(syncedCommits, upToCommits)
            pendingAtLastSync = handedInCommits - syncedCommits
            syncInProgress = false
            if drainWaiters > 0 || handInWaiters > 0 { condition.broadcast() }
            if let failure {
                let error = poisonWith(failure)
                wakeSyncWaiters(all: true)
                throw error
            }
            syncedBytes = max(syncedBytes, upTo)
            wakeSyncWaiters(all: false)
        }
    }

    /// A thread waiting for a group sync to cover its commit: it yields its thread for a while,
    /// watching `woken`, then parks on its own semaphore.
    private final class SyncWaiter {
        package let target: UInt64
        private let semaphore = DispatchSemaphore(value: 0)
        private let woken = Atomic<Bool>(false)
        /// Set before the wake-up when a sync covered the commit: the waiter returns without
        /// taking the lock again.
        package var covered = false
        package init(target: UInt64) { self.target = target }

        /// Called by the leader (after setting `covered`). Waking a waiter that is still
        /// yielding makes no system call: the semaphore has no sleeper to wake.
        package func wake() {
            woken.store(true, ordering: .releasing)
            semaphore.signal()
        }

        /// How a wait ended: the wake-up came while yielding, after sleeping, or before the
        /// waiter began either (with no time to yield, a wake-up that had already come was
        /// counted as yielding, which a waiter told never to yield did not do).
        enum WaitEnd { case wokenYielding, wokenSleeping, wokenBeforeWaiting }

        /// Returns once `wake` was called: yields the processor for up to `nanoseconds` first,
        /// then sleeps. (A semaphore signalled but never waited on is simply freed.)
        package func waitUntilWoken(yieldingForNanoseconds nanoseconds: UInt64) -> WaitEnd {
            if nanoseconds > 0, yieldProcessor(forNanoseconds: nanoseconds, until: { woken.load(ordering: .acquiring) }) { return .wokenYielding }
            if woken.load(ordering: .acquiring) { return nanoseconds > 0 ? .wokenYielding : .wokenBeforeWaiting }
            semaphore.wait()
            return .wokenSleeping
        }
    }

    /// How this log's waits for another thread's group sync ended so far (tests and probes);
    /// a waiter woken before it began to wait counts as neither.
    package var groupSyncWaits: (wokenYielding: Int, wokenSleeping: Int) {
        (waitsWokenYielding.load(ordering: .relaxed), waitsWokenSleeping.load(ordering: .relaxed))
    }

    /// After a sync (called with the lock held, returns with it held): wakes the waiters it
    /// covered, which return at once, and one it did not, to lead the next sync; with `all`,
    /// every waiter, to look again (a failure, a close). Waking every waiter on the condition
    /// had them queue for its lock one after another after each sync, a lock hand-over each.
    func wakeSyncWaiters(all: Bool) {
        guard !syncWaiters.isEmpty else { return }
        var woken: [SyncWaiter] = []
        var waiting: [SyncWaiter] = []
        for waiter in syncWaiters {
            if syncedBytes >= waiter.target {
                waiter.covered = true
                woken.append(waiter)
            } else if all {
                woken.append(waiter)
            } else {
                waiting.append(waiter)
            }
        }
        if !all, !waiting.isEmpty { woken.append(waiting.removeFirst()) }
        syncWaiters = waiting
        condition.unlock()
        for waiter in woken { waiter.wake() }
        condition.lock()
    }

    /// Records the first failure and returns the error to throw for this commit.
    func poisonWith(_ error: any Error) -> any Error {
        let storageError = (error as? StorageError) ?? .io(operation: "\(error)", path: directory, errno: 5)
        if poison == nil { poison = storageError }
        return storageError
    }
}

/// Gives the processor to other threads until `done` (true) or until `nanoseconds` have passed
/// (false). The thread stays runnable: it needs no wake-up to go on.
private func yieldProcessor(forNanoseconds nanoseconds: UInt64, until done: () -> Bool) -> Bool {
    let end = DispatchTime.now().uptimeNanoseconds + nanoseconds
    repeat {
        sched_yield()
        if done() { return true }
    } while DispatchTime.now().uptimeNanoseconds < end
    return false
}
