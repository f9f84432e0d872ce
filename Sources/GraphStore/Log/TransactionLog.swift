import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// The append-only transaction log of one store directory: recovery at open, appends with the
/// chosen durability, and (for read-only opens) refresh.
///
/// One commit is one record; a transaction is on disk entirely or, after recovery, not at all.
/// Appending is `reserve` (a number, a place in the log, the encoded record) then `write`. The
/// log keeps what is its own — the open, the writer lock, transaction numbers, reading — and
/// hands the rest to two parts beside it: `SegmentWriter` puts records into segment files and
/// rolls them; `GroupCommit` orders the writes and shares the syncs, and holds the poison a
/// failed write or sync leaves (every later append throws until the store is reopened).
@_spi(GraphStoreInternals) public final class TransactionLog: @unchecked Sendable {
    package let directory: String
    package let options: LogOptions
    /// What the open found (torn tail cut, salvage drops).
    package let report: OpenReport
    private let fileIO: any FileIO
    private let writer: SegmentWriter
    private let commits: GroupCommit
    // The mutable state below is guarded by the group commit's lock.
    private var condition: NSCondition { commits.condition }
    private var lock: FileLock?
    private var lastNumber: UInt64
    private var lastCommitMicros: Int64?

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
        writer = SegmentWriter(directory: directory, fileIO: options.fileIO, options: options)
        commits = GroupCommit(writer: writer, options: options, directory: directory)
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
    @_spi(GraphStoreInternals) public static func open(
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
                try writer.resume(segment: end.segment, at: end.offset)
            } else {
                try writer.start(segment: 1, previousTransaction: lastNumber)
            }
            try lock?.recordHolder()
        } catch {
            throw commits.poisonWith(error)
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
        commits.closed = true
        lock?.abandon()
        lock = nil
        if createdDirectory { try? fileIO.removeDirectoryIfEmpty(directory) }
    }

    deinit {
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
        return commits.poison
    }

    package func segmentPath(_ number: UInt64) -> String {
        writer.path(ofSegment: number)
    }

    // MARK: Appending

    /// The number and time a commit was given.
    @_spi(GraphStoreInternals) public struct Receipt: Sendable, Equatable {
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
    @_spi(GraphStoreInternals) public func append(_ operations: [LogOperation], author: String = "", timestampMicros: Int64? = nil,
                       waitForDurability: Bool = true) throws -> Receipt {
        try append(TransactionChanges(operations: operations), author: author, timestampMicros: timestampMicros,
                   waitForDurability: waitForDurability)
    }

    @discardableResult
    package func append(_ changes: TransactionChanges, author: String = "", timestampMicros: Int64? = nil,
                       waitForDurability: Bool = true) throws -> Receipt {
        try write(try reserve(changes, author: author, timestampMicros: timestampMicros, streaming: true), waitForDurability: waitForDurability)
    }

    /// A transaction's record with the number and the place in the log it was given, waiting to
    /// be written (`write(_:waitForDurability:)`).
    package struct Reservation: @unchecked Sendable {
        package let receipt: Receipt
        let record: LogRecord
        let offset: UInt64
        let ticket: UInt64
        let handle: any FileHandleIO
        /// The group commit's appended bytes once this record is written.
        let end: UInt64

        /// Whether the record is written as it is encoded (`StreamedRecord`), so encoded twice.
        package var isStreamed: Bool {
            if case .streamed = record { true } else { false }
        }
    }

    /// Gives a transaction its number and its place in the log (in the order of the calls),
    /// and encodes its record. Every reservation must be written (`write`), promptly: later
    /// ones wait for it. A container reserves under its commit lock and writes after releasing
    /// it, so one commit's write overlaps the next commit's encoding and applying (the write was
    /// half of what the commit lock serialised with 16 writers).
    package func reserve(_ operations: [LogOperation], author: String = "", timestampMicros: Int64? = nil) throws -> Reservation {
        try reserve(TransactionChanges(operations: operations), author: author, timestampMicros: timestampMicros)
    }

    /// `streaming`: the caller writes the reservation before anything alters `changes`, so a
    /// record larger than `options.streamedRecordBytes` may be written as it is encoded
    /// (`StreamedRecord`) rather than held whole until then.
    package func reserve(_ changes: TransactionChanges, author: String = "", timestampMicros: Int64? = nil,
                         streaming: Bool = false) throws -> Reservation {
        let time = timestampMicros ?? Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
        // Room enough that the buffer seldom grows (a copy, and fresh pages touched twice): a
        // block's row takes a few bytes a value, any other operation under 48. Pages never
        // written are never touched, so erring high costs little. A block's row writes at most
        // a value per column (an update block keeps only the columns its rows set).
        let estimate = changes.blocks.reduce(64 + (changes.operations.count + changes.links.reduce(0) { $0 + $1.count }) * 48) {
            $0 + $1.count * (16 + 16 * $1.columns.count)
        }
        if streaming, estimate >= options.streamedRecordBytes {
            let measured = StreamedRecord(measuring: changes, author: author, timestampMicros: time)
            try RecordFormat.checkPayload(measured.payloadLength)
            return try reserve(count: measured.count, time: time) { .streamed(measured.numbered($0)) }
        }
        var bytes = ByteWriter(capacity: estimate)
        bytes.zeros(RecordFormat.headerSize)
        TransactionCodec.encode(changes, author: author, timestampMicros: time, into: &bytes)
        let payloadLength = bytes.count - RecordFormat.headerSize
        try RecordFormat.checkPayload(payloadLength)
        bytes.patchU32(UInt32(payloadLength), at: 0)
        let record = bytes.finish()
        return try reserve(count: record.count, time: time) { number in
            withUnsafeBytes(of: number.littleEndian) {
                for i in 0..<8 { record[RecordFormat.headerSize + TransactionCodec.numberOffset + i] = $0[i] }
            }
            record[8] = RecordFormat.Kind.transaction.rawValue
            let crc = RecordFormat.checksum(kind: record[8], payload: UnsafeRawBufferPointer(rebasing: record.buffer[RecordFormat.headerSize...]))
            withUnsafeBytes(of: crc.littleEndian) { for i in 0..<4 { record[4 + i] = $0[i] } }
            return .whole(record)
        }
    }

    /// Numbers a record of `count` bytes and takes its place: `makeRecord` makes it once its
    /// number is known.
    private func reserve(count: Int, time: Int64, _ makeRecord: (UInt64) -> LogRecord) throws -> Reservation {
        condition.lock()
        defer { condition.unlock() }
        try checkWritable()
        // Whoever waits for the log to be quiet (a seal, a sync, close) goes first.
        try commits.waitForQuietSeekers(checkWritable)
        // A record that starts a new segment waits for a running group sync (the leader syncs
        // the active segment's file outside the lock, and rolling closes that file) and for the
        // records reserved before it (their writes go to that file).
        if writer.startsNewSegment(count) {
            commits.waitUntilQuiet()
            try checkWritable()
        }
        let number = lastNumber + 1
        let record = makeRecord(number)

        let place: (handle: any FileHandleIO, offset: UInt64)
        do {
            if writer.startsNewSegment(record.count) {
                try writer.roll(previousTransaction: lastNumber)
                commits.noteEverythingSynced()
            }
            place = try writer.place(record.count)
        } catch {
            throw commits.poisonWith(error)
        }
        let ticket = commits.issueTicket(bytes: record.count)
        let reservation = Reservation(receipt: Receipt(number: number, timestampMicros: time, recordBytes: record.count),
                                      record: record, offset: place.offset, ticket: ticket.ticket, handle: place.handle, end: ticket.end)
        lastNumber = number
        lastCommitMicros = time
        return reservation
    }

    /// Writes a reserved record (after every record reserved before it), then returns once it
    /// is as durable as `options.durability` asks; see `append` for `waitForDurability`. A
    /// failed write poisons the log, and every reservation after it then throws.
    ///
    /// The record is handed in to the group commit; with `.grouped` durability the sync leader
    /// writes it together with the others handed in meanwhile, just before its sync. Otherwise
    /// this writer writes the handed-in run up to its own record itself.
    @discardableResult
    package func write(_ reservation: Reservation, waitForDurability: Bool = true) throws -> Receipt {
        try commits.write(reservation, waitForDurability: waitForDurability)
    }

    /// Returns once the commit of `receipt` is durable (a group sync covers it); throws the
    /// writer's poison if that sync failed.
    package func waitUntilDurable(_ receipt: Receipt) throws {
        try commits.waitUntilDurable(receipt)
    }

    /// How this log's waits for another thread's group sync ended so far (tests and probes).
    package var groupSyncWaits: (wokenYielding: Int, wokenSleeping: Int) { commits.groupSyncWaits }

    private func checkWritable() throws {
        if commits.closed { throw StorageError.closed }
        if options.readOnly { throw StorageError.readOnly }
        precondition(pendingOpen == nil, "a writer's open must be completed (completeOpen) before it writes")
        if let poison = commits.poison { throw StorageError.writerPoisoned(cause: poison.description) }
    }

    /// Starts a new segment unless the active one is still empty, so that everything committed
    /// so far lies in sealed segments (compaction drops sealed segments a checkpoint covers).
    /// Returns the number of the segment now active.
    @discardableResult
    package func sealActiveSegment() throws -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        try checkWritable()
        commits.waitUntilQuiet()
        if !writer.isEmpty {
            do { try writer.roll(previousTransaction: lastNumber) } catch { throw commits.poisonWith(error) }
            commits.noteEverythingSynced()
        }
        return writer.segment
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
        return writer.segment
    }

    /// Bytes of records in the log: sealed segments whole, the active one up to its end.
    package func recordBytes() throws -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        var total: UInt64 = 0
        for number in try listSegments(fileIO: fileIO, directory: directory) {
            if number == writer.segment && !options.readOnly {
                total += writer.offset
                continue
            }
            total += try fileIO.fileSize(segmentPath(number))
        }
        return total
    }

    /// Makes the whole log durable, whatever the durability it was written with: every segment
    /// file (sealed ones too: with `.none` a roll does not sync them), then the directory's
    /// entries. For bulk writers that write with `.none` and sync once at the end.
    package func syncEverySegment() throws {
        condition.lock()
        defer { condition.unlock() }
        try checkWritable()
        commits.waitUntilQuiet()
        do {
            for number in try listSegments(fileIO: fileIO, directory: directory) where number != writer.segment {
                let sealed = try fileIO.open(segmentPath(number), mode: .readOnly)
                defer { sealed.close() }
                try sealed.sync()
            }
            try writer.handle!.sync()
            commits.noteEverythingSynced()
            try fileIO.syncDirectory(directory)
        } catch {
            throw commits.poisonWith(error)
        }
    }

    /// Syncs everything appended so far, whatever the durability (for bulk writers using `.none`).
    package func sync() throws {
        condition.lock()
        defer { condition.unlock() }
        try checkWritable()
        commits.waitUntilQuiet()
        do { try writer.handle!.sync() } catch { throw commits.poisonWith(error) }
        commits.noteEverythingSynced()
    }

    // MARK: Reading newer commits (read-only opens)

    /// Reads transactions committed by the writer since this read-only log was opened or last
    /// refreshed, handing each to `body`. Returns how many it read.
    @discardableResult
    package func refresh(body: (LogTransaction) throws -> Void) throws -> Int {
        condition.lock()
        defer { condition.unlock() }
        guard options.readOnly else { return 0 }
        if commits.closed { throw StorageError.closed }
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
    @_spi(GraphStoreInternals) public func close() {
        condition.lock()
        if pendingOpen != nil {
            condition.unlock()
            return abandonOpen()
        }
        defer { condition.unlock() }
        commits.waitUntilQuiet()
        guard !commits.closed else { return }
        commits.syncOutstanding()
        commits.closed = true
        writer.close()
        lock?.release()
        lock = nil
        commits.wakeSyncWaiters(all: true)
    }
}
