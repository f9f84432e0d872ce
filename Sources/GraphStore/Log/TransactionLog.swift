import Foundation
import GraphStoreCore
import Synchronization

/// The append-only transaction log of one store directory: recovery at open, appends with the
/// chosen durability, segment rolling, and (for read-only opens) refresh.
///
/// One commit is one record; a transaction is on disk entirely or, after recovery, not at all.
/// A failed write or sync *poisons* the log: that append and every later one throw until the
/// store is reopened (retrying a failed fsync and carrying on can silently lose data).
package final class TransactionLog: @unchecked Sendable {
    // All mutable state below is guarded by `condition` (its lock), which also wakes group-commit waiters.
    private let condition = NSCondition()

    package let directory: String
    package let options: LogOptions
    /// What the open found (torn tail cut, salvage drops).
    package let report: OpenReport
    private let fileIO: any FileIO
    private var lock: FileLock?

    private var lastNumber: UInt64
    private var lastCommitMicros: Int64?
    private var closed = false
    private var poison: StorageError?

    // Writer state.
    private var active: (any FileHandleIO)?
    private var activeSegment: UInt64 = 0
    private var writeOffset: UInt64 = 0
    /// How far the active segment is preallocated: space is reserved a step ahead of the
    /// writes (not the whole segment at once), so a small store takes little disk while most
    /// commits still sync without changing the file's size.
    private var preallocatedEnd: UInt64 = 0
    /// Bytes appended since open, and how many of them a completed sync covers (group commit).
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
    /// Reservations handed out and written (see `reserve`); `writeOffset` is where the next
    /// reservation goes, `appendedBytes` counts only written ones.
    private var ticketsIssued: UInt64 = 0
    private var ticketsWritten: UInt64 = 0
    /// Bytes of the records reserved so far (a reservation's `end` is this after it).
    private var reservedBytes: UInt64 = 0
    /// Records handed to `write` and not written yet, by ticket. Whoever writes next — the sync
    /// leader, or a writer that must see its record written before it returns — writes the run
    /// of them that follows the last one written, in ticket order, in one go. (Each writer
    /// writing its own record in turn had later ones spin, yielding, until the one before was
    /// written.)
    private var handedIn: [UInt64: Reservation] = [:]
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

    // Reader state: where refresh continues.
    private var readSegment: UInt64 = 1
    private var readOffset: UInt64 = 0

    private init(directory: String, options: LogOptions, report: OpenReport, lock: FileLock?) {
        self.directory = directory
        self.options = options
        self.report = report
        self.fileIO = options.fileIO
        self.lock = lock
        self.lastNumber = report.lastTransaction
        self.lastCommitMicros = report.lastCommitMicros
    }

    /// Opens (a writer creates) the store at `directory`, handing every recovered transaction to `body`
    /// in order. Throws `StorageError` for damage, a held lock, or I/O failure.
    ///
    /// `loadCheckpoint` runs once the writer lock is held and before the log is read; it returns
    /// the transaction the caller's state already holds (a checkpoint's), and only transactions
    /// after it reach `body`.
    ///
    /// Reading changes nothing on disk. A writer's repairs (a torn tail cut, salvage's
    /// quarantine, the first segment of a new store) are made before this returns — or, with
    /// `completing: false`, by `completeOpen()`, which the caller calls once its own part of the
    /// open has succeeded: an open that fails anywhere leaves every byte as it was.
    package static func open(
        directory: String,
        options: LogOptions = LogOptions(),
        completing: Bool = true,
        body: (LogTransaction) throws -> Void = { _ in },
        loadCheckpoint: () throws -> UInt64 = { 0 }
    ) throws -> TransactionLog {
        let fileIO = options.fileIO
        var lock: FileLock?
        var createdDirectory = false
        try fileIO.checkOwnership(ofDirectory: directory)
        if options.readOnly {
            guard fileIO.isDirectory(directory) else { throw StorageError.noStore(path: directory) }
        } else {
            createdDirectory = !fileIO.isDirectory(directory)
            try fileIO.createDirectory(directory)
            do {
                lock = try FileLock.acquire(directory: directory, fileIO: fileIO)
            } catch {
                if createdDirectory { try? fileIO.removeDirectoryIfEmpty(directory) }
                throw error
            }
        }
        do {
            let recovery = Recovery(fileIO: fileIO, directory: directory, salvage: options.salvage, segmentSize: options.segmentSize)
            let outcome = try recovery.run(baseTransaction: try loadCheckpoint(), body: body)
            let log = TransactionLog(directory: directory, options: options, report: outcome.report, lock: lock)
            log.createdDirectory = createdDirectory
            if options.readOnly {
                log.readSegment = outcome.end?.segment ?? 1
                log.readOffset = outcome.end?.offset ?? 0
            } else {
                log.pendingOpen = PendingOpen(recovery: recovery, repairs: outcome.repairs, end: outcome.end)
                if completing { try log.completeOpen() }
            }
            return log
        } catch {
            lock?.abandon()
            if createdDirectory { try? fileIO.removeDirectoryIfEmpty(directory) }
            throw error
        }
    }

    /// What a writer's open still has to do on disk (see `completeOpen`).
    private struct PendingOpen {
        package let recovery: Recovery
        package let repairs: [Recovery.Repair]
        package let end: Recovery.Position?
    }
    private var pendingOpen: PendingOpen?
    /// Whether this open made the store's directory (a failed open removes it again).
    private var createdDirectory = false

    /// A writer's open, finished: recovery's repairs are made, the active segment opened (or
    /// the first one created), and the lock records this process. Idempotent.
    package func completeOpen() throws {
        condition.lock()
        defer { condition.unlock() }
        guard let pending = pendingOpen else { return }
        do {
            try pending.recovery.apply(pending.repairs)
            if let end = pending.end {
                active = try fileIO.open(segmentPath(end.segment), mode: .readWrite)
                activeSegment = end.segment
                writeOffset = end.offset
                preallocatedEnd = try active!.size()
            } else {
                try createSegment(1)
            }
            try lock?.recordHolder()
        } catch {
            throw poisonWith(error)
        }
        pendingOpen = nil
    }

    /// Gives up a writer's open that `completeOpen` did not finish: releases the lock without a
    /// trace, and removes the directory if this open made it and it is still empty.
    package func abandonOpen() {
        condition.lock()
        defer { condition.unlock() }
        guard pendingOpen != nil else { return }
        pendingOpen = nil
        closed = true
        lock?.abandon()
        lock = nil
        if createdDirectory { try? fileIO.removeDirectoryIfEmpty(directory) }
    }

    deinit {
        active?.close()
        if pendingOpen != nil { lock?.abandon() } else { lock?.release() }
    }

    /// The number of the newest transaction this log has (written or read).
    package var lastTransaction: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return lastNumber
    }

    /// Commit time of the newest transaction, microseconds since 1970.
    package var lastCommitTime: Int64? {
        condition.lock()
        defer { condition.unlock() }
        return lastCommitMicros
    }

    /// The error that poisoned the writer, if one did.
    package var poisonedBy: StorageError? {
        condition.lock()
        defer { condition.unlock() }
        return poison
    }

    package func segmentPath(_ number: UInt64) -> String {
        joinPath(directory, SegmentFormat.fileName(segment: number))
    }

    // MARK: Appending

    /// The number and time a commit was given.
    package struct Receipt: Sendable, Equatable {
        package var number: UInt64
        package var timestampMicros: Int64
        /// Bytes the commit's record took in the log.
        package var recordBytes: Int = 0
        /// With `.grouped` durability and `waitForDurability: false`: where the record ends in
        /// this log's appended bytes, for `waitUntilDurable`. Nil once durable.
        package var pendingSyncTarget: UInt64?
    }

    /// Appends one transaction and returns once it is as durable as `options.durability` asks.
    /// `timestampMicros` defaults to now (replay passes the original commit time).
    ///
    /// With `.grouped` durability and `waitForDurability: false` the record is written but not
    /// waited for: call `waitUntilDurable(_:)` with the receipt (outside any lock the caller
    /// holds, so that other commits can join the same sync).
    @discardableResult
    package func append(_ operations: [LogOperation], author: String = "", timestampMicros: Int64? = nil,
                       waitForDurability: Bool = true) throws -> Receipt {
        try append(TransactionChanges(operations: operations), author: author, timestampMicros: timestampMicros,
                   waitForDurability: waitForDurability)
    }

    @discardableResult
    package func append(_ changes: TransactionChanges, author: String = "", timestampMicros: Int64? = nil,
                       waitForDurability: Bool = true) throws -> Receipt {
        try write(try reserve(changes, author: author, timestampMicros: timestampMicros), waitForDurability: waitForDurability)
    }

    /// A transaction's record with the number and the place in the log it was given, waiting to
    /// be written (`write(_:waitForDurability:)`).
    package struct Reservation: @unchecked Sendable {
        package let receipt: Receipt
        fileprivate let record: WrittenBytes
        fileprivate let offset: UInt64
        fileprivate let ticket: UInt64
        fileprivate let handle: any FileHandleIO
        /// `appendedBytes` once this record is written.
        fileprivate let end: UInt64
    }

    /// Gives a transaction its number and its place in the log (in the order of the calls),
    /// and encodes its record. Every reservation must be written (`write`), promptly: later
    /// ones wait for it. A container reserves under its commit lock and writes after releasing
    /// it, so one commit's write overlaps the next commit's encoding and applying (the write was
    /// half of what the commit lock serialised with 16 writers).
    package func reserve(_ operations: [LogOperation], author: String = "", timestampMicros: Int64? = nil) throws -> Reservation {
        try reserve(TransactionChanges(operations: operations), author: author, timestampMicros: timestampMicros)
    }

    package func reserve(_ changes: TransactionChanges, author: String = "", timestampMicros: Int64? = nil) throws -> Reservation {
        let time = timestampMicros ?? Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
        // Room enough that the buffer seldom grows (a copy, and fresh pages touched twice): a
        // block's row takes a few bytes a value, any other operation under 48. Pages never
        // written are never touched, so erring high costs little.
        let estimate = changes.blocks.reduce(64 + changes.operations.count * 48) { $0 + $1.count * (16 + 16 * $1.properties.count) }
        var writer = ByteWriter(capacity: estimate)
        writer.raw(repeatElement(0, count: RecordFormat.headerSize))
        TransactionCodec.encode(changes, author: author, timestampMicros: time, into: &writer)
        let payloadLength = writer.count - RecordFormat.headerSize
        guard payloadLength <= RecordFormat.maximumPayload else {
            throw StorageError.transactionTooLarge(bytes: payloadLength, limit: RecordFormat.maximumPayload)
        }

        condition.lock()
        defer { condition.unlock() }
        try checkWritable()
        // Whoever waits for the log to be quiet (a seal, a sync, close) goes first.
        while drainWaiters > 0 {
            condition.wait()
            try checkWritable()
        }
        // A record that starts a new segment waits for a running group sync (the leader syncs
        // the active segment's file outside the lock, and rolling closes that file) and for the
        // records reserved before it (their writes go to that file).
        if writeOffset + UInt64(writer.count) > options.segmentSize {
            waitUntilQuiet()
            try checkWritable()
        }
        let number = lastNumber + 1
        writer.patchU64(number, at: RecordFormat.headerSize + TransactionCodec.numberOffset)
        writer.patchU32(UInt32(payloadLength), at: 0)
        let record = writer.finish()
        record[8] = RecordFormat.Kind.transaction.rawValue
        let crc = RecordFormat.checksum(kind: record[8], payload: UnsafeRawBufferPointer(rebasing: record.buffer[RecordFormat.headerSize...]))
        withUnsafeBytes(of: crc.littleEndian) { for i in 0..<4 { record[4 + i] = $0[i] } }

        do {
            if writeOffset + UInt64(record.count) > options.segmentSize && writeOffset > UInt64(SegmentFormat.headerSize) {
                try rollSegment()
            }
            try reserveSpace(through: writeOffset + UInt64(record.count))
        } catch {
            throw poisonWith(error)
        }
        reservedBytes += UInt64(record.count)
        let reservation = Reservation(receipt: Receipt(number: number, timestampMicros: time, recordBytes: record.count),
                                      record: record, offset: writeOffset, ticket: ticketsIssued, handle: active!, end: reservedBytes)
        ticketsIssued += 1
        writeOffset += UInt64(record.count)
        lastNumber = number
        lastCommitMicros = time
        return reservation
    }

    /// Writes a reserved record (after every record reserved before it), then returns once it
    /// is as durable as `options.durability` asks; see `append` for `waitForDurability`. A
    /// failed write poisons the log, and every reservation after it then throws.
    ///
    /// The record is handed in; with `.grouped` durability the sync leader writes it together
    /// with the others handed in meanwhile, just before its sync. Otherwise this writer writes
    /// the handed-in run up to its own record itself.
    @discardableResult
    package func write(_ reservation: Reservation, waitForDurability: Bool = true) throws -> Receipt {
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
            do { try active!.sync() } catch { throw poisonWith(error) }
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
        var batch: [Reservation] = []
        while let next = handedIn.removeValue(forKey: ticketsWritten + UInt64(batch.count)) { batch.append(next) }
        guard !batch.isEmpty else { return false }
        if poison == nil {
            writingHandedIn = true
            condition.unlock()
            var failure: (any Error)?
            do { try Self.writeRuns(batch) } catch { failure = error }
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

    /// Writes records in order, each run of them contiguous in one file as one write.
    private static func writeRuns(_ records: [Reservation]) throws {
        var start = 0
        while start < records.count {
            var end = start + 1
            while end < records.count, records[end].handle === records[start].handle,
                  records[end].offset == records[end - 1].offset + UInt64(records[end - 1].record.count) { end += 1 }
            if end - start == 1 {
                try records[start].handle.writeAll(records[start].record.buffer, at: records[start].offset)
            } else {
                var joined: [UInt8] = []
                joined.reserveCapacity(records[start..<end].reduce(0) { $0 + $1.record.count })
                for record in records[start..<end] { joined.append(contentsOf: record.record.buffer) }
                try records[start].handle.writeAll(joined, at: records[start].offset)
            }
            start = end
        }
    }

    /// Waits until no group sync runs and every reserved record is written; reservations wait
    /// meanwhile, so a steady stream of commits cannot keep it waiting. Called with the lock held.
    private func waitUntilQuiet() {
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
    package func waitUntilDurable(_ receipt: Receipt) throws {
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
                let slept = waiter.waitUntilWoken(yieldingForNanoseconds: patience)
                if slept { waitsWokenSleeping.add(1, ordering: .relaxed) } else { waitsWokenYielding.add(1, ordering: .relaxed) }
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
            let handle = active!
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

        /// Returns once `wake` was called: yields the processor for up to `nanoseconds` first,
        /// then sleeps. Returns whether it slept. (A semaphore signalled but never waited on is
        /// simply freed.)
        package func waitUntilWoken(yieldingForNanoseconds nanoseconds: UInt64) -> Bool {
            if nanoseconds > 0, yieldProcessor(forNanoseconds: nanoseconds, until: { woken.load(ordering: .acquiring) }) { return false }
            if woken.load(ordering: .acquiring) { return false }
            semaphore.wait()
            return true
        }
    }

    /// How this log's waits for another thread's group sync ended so far (tests and probes).
    package var groupSyncWaits: (wokenYielding: Int, wokenSleeping: Int) {
        (waitsWokenYielding.load(ordering: .relaxed), waitsWokenSleeping.load(ordering: .relaxed))
    }

    /// After a sync (called with the lock held, returns with it held): wakes the waiters it
    /// covered, which return at once, and one it did not, to lead the next sync; with `all`,
    /// every waiter, to look again (a failure, a close). Waking every waiter on the condition
    /// had them queue for its lock one after another after each sync, a lock hand-over each.
    private func wakeSyncWaiters(all: Bool) {
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

    private func checkWritable() throws {
        if closed { throw StorageError.closed }
        if options.readOnly { throw StorageError.readOnly }
        precondition(pendingOpen == nil, "a writer's open must be completed (completeOpen) before it writes")
        if let poison { throw StorageError.writerPoisoned(cause: poison.description) }
    }

    /// Records the first failure and returns the error to throw for this commit.
    private func poisonWith(_ error: any Error) -> any Error {
        let storageError = (error as? StorageError) ?? .io(operation: "\(error)", path: directory, errno: 5)
        if poison == nil { poison = storageError }
        return storageError
    }

    /// Preallocates the active segment up to past `end`, a step at a time.
    private func reserveSpace(through end: UInt64) throws {
        guard end > preallocatedEnd else { return }
        let step = options.preallocationStep
        preallocatedEnd = max(end, min(options.segmentSize, (end / step + 1) * step))
        try active!.preallocate(to: preallocatedEnd)
    }

    /// Starts a new segment unless the active one is still empty, so that everything committed
    /// so far lies in sealed segments (compaction drops sealed segments a checkpoint covers).
    /// Returns the number of the segment now active.
    @discardableResult
    package func sealActiveSegment() throws -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        try checkWritable()
        waitUntilQuiet()
        if writeOffset > UInt64(SegmentFormat.headerSize) {
            do { try rollSegment() } catch { throw poisonWith(error) }
        }
        return activeSegment
    }

    /// The segments on disk with the transaction each starts after, ascending.
    package func segmentStarts() throws -> [(segment: UInt64, previousTransaction: UInt64)] {
        try listSegments(fileIO: fileIO, directory: directory).compactMap { number in
            segmentStart(number, directory: directory, fileIO: fileIO).map { (number, $0) }
        }
    }

    /// The number of the segment appends go to.
    package var activeSegmentNumber: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return activeSegment
    }

    /// Bytes of records in the log: sealed segments whole, the active one up to its end.
    package func recordBytes() throws -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        var total: UInt64 = 0
        for number in try listSegments(fileIO: fileIO, directory: directory) {
            if number == activeSegment && !options.readOnly {
                total += writeOffset
                continue
            }
            total += try fileIO.fileSize(segmentPath(number))
        }
        return total
    }

    /// Seals the active segment (synced, so later segments never follow unsynced data) and starts the next.
    private func rollSegment() throws {
        // A sealed segment keeps only its records: the preallocated rest is given back.
        try active!.truncate(to: writeOffset)
        if options.durability != .none { try active!.sync() }
        syncedBytes = appendedBytes
        active!.close()
        try createSegment(activeSegment + 1)
    }

    private func createSegment(_ number: UInt64) throws {
        let handle = try fileIO.open(segmentPath(number), mode: .create)
        do {
            try handle.writeAll(SegmentFormat.encodeHeader(.init(segment: number, previousTransaction: lastNumber)), at: 0)
            try handle.preallocate(to: min(options.segmentSize, options.preallocationStep))
            if options.durability != .none {
                try handle.sync()
                try fileIO.syncDirectory(directory)
            }
        } catch {
            handle.close()
            throw error
        }
        active = handle
        activeSegment = number
        writeOffset = UInt64(SegmentFormat.headerSize)
        preallocatedEnd = min(options.segmentSize, options.preallocationStep)
    }

    /// Makes the whole log durable, whatever the durability it was written with: every segment
    /// file (sealed ones too: with `.none` a roll does not sync them), then the directory's
    /// entries. For bulk writers that write with `.none` and sync once at the end.
    package func syncEverySegment() throws {
        condition.lock()
        defer { condition.unlock() }
        try checkWritable()
        waitUntilQuiet()
        do {
            for number in try listSegments(fileIO: fileIO, directory: directory) where number != activeSegment {
                let sealed = try fileIO.open(segmentPath(number), mode: .readOnly)
                defer { sealed.close() }
                try sealed.sync()
            }
            try active!.sync()
            syncedBytes = appendedBytes
            try fileIO.syncDirectory(directory)
        } catch {
            throw poisonWith(error)
        }
    }

    /// Syncs everything appended so far, whatever the durability (for bulk writers using `.none`).
    package func sync() throws {
        condition.lock()
        defer { condition.unlock() }
        try checkWritable()
        waitUntilQuiet()
        do { try active!.sync() } catch { throw poisonWith(error) }
        syncedBytes = appendedBytes
    }

    // MARK: Reading newer commits (read-only opens)

    /// Reads transactions committed by the writer since this read-only log was opened or last
    /// refreshed, handing each to `body`. Returns how many it read.
    @discardableResult
    package func refresh(body: (LogTransaction) throws -> Void) throws -> Int {
        condition.lock()
        defer { condition.unlock() }
        guard options.readOnly else { return 0 }
        if closed { throw StorageError.closed }
        var count = 0
        while true {
            let path = segmentPath(readSegment)
            guard fileIO.fileExists(path) else { return count }
            let bytes = try fileIO.readFile(path)
            let nextExists = fileIO.fileExists(segmentPath(readSegment + 1))
            let finished: Bool = try bytes.withUnsafeBytes { raw in
                if readOffset < UInt64(SegmentFormat.headerSize) {
                    guard case let .success(header) = SegmentFormat.decodeHeader(raw) else {
                        // The writer may still be creating it; damage only if a later segment exists.
                        if nextExists { throw StorageError.corruption(segment: readSegment, offset: 0, reason: "bad segment header") }
                        return true
                    }
                    guard header.previousTransaction == lastNumber else {
                        throw StorageError.corruption(segment: readSegment, offset: 0,
                                                      reason: "segment starts after transaction \(header.previousTransaction) but the log read so far ends at \(lastNumber)")
                    }
                    readOffset = UInt64(SegmentFormat.headerSize)
                }
                let scan = try SegmentScanner.scan(raw, from: Int(readOffset), previousTransaction: lastNumber) { transaction in
                    try body(transaction)
                }
                count += scan.transactionCount
                readOffset = UInt64(scan.end)
                lastNumber = scan.lastTransaction
                if let time = scan.lastTimestampMicros { lastCommitMicros = time }
                if case let .damaged(offset, reason) = scan.stop, nextExists {
                    throw StorageError.corruption(segment: readSegment, offset: UInt64(offset), reason: reason)
                }
                return !nextExists
            }
            if finished { return count }
            readSegment += 1
            readOffset = 0
        }
    }

    // MARK: Closing

    /// Waits for a running group sync, closes the files and releases the writer lock. Later
    /// appends throw `StorageError.closed`.
    package func close() {
        condition.lock()
        if pendingOpen != nil {
            condition.unlock()
            return abandonOpen()
        }
        defer { condition.unlock() }
        waitUntilQuiet()
        guard !closed else { return }
        // Commits still waiting for their group sync are synced here, so that their waiters
        // return (a waiter finding the log closed would otherwise have no file to sync).
        if syncedBytes < appendedBytes, poison == nil, let active {
            do {
                try active.sync()
                syncedBytes = appendedBytes
            } catch { _ = poisonWith(error) }
            condition.broadcast()
        }
        closed = true
        active?.close()
        active = nil
        lock?.release()
        lock = nil
        wakeSyncWaiters(all: true)
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
