@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog
@_spi(GraphStoreInternals) import GraphStoreCore

/// A read-only look at a store: what `graphstore info` and `verify` print.
@_spi(GraphStoreInternals) public struct StoreInspection: Sendable {
    @_spi(GraphStoreInternals) public struct Segment: Sendable, Equatable {
        @_spi(GraphStoreInternals) public var number: UInt64
        /// Size of the file, preallocated space included.
        @_spi(GraphStoreInternals) public var fileBytes: UInt64
    }

    /// A checkpoint file of the store.
    @_spi(GraphStoreInternals) public struct Checkpoint: Sendable, Equatable {
        /// The transaction it is as of.
        @_spi(GraphStoreInternals) public var transaction: UInt64
        /// Its size in bytes.
        @_spi(GraphStoreInternals) public var fileBytes: UInt64
        /// Why it cannot be used, or nil when every checksum holds.
        @_spi(GraphStoreInternals) public var problem: String?
    }

    /// The segments' format version.
    @_spi(GraphStoreInternals) public var formatVersion: UInt16
    /// The kept log's segments, oldest first.
    @_spi(GraphStoreInternals) public var segments: [Segment]
    /// The kept log starts after this transaction (0: the whole history is kept).
    @_spi(GraphStoreInternals) public var logStart: UInt64
    @_spi(GraphStoreInternals) public var checkpoints: [Checkpoint]
    /// Every record of the kept log was read and decoded; torn tails are in `report.tornTail`.
    @_spi(GraphStoreInternals) public var report: OpenReport
    /// Transactions and operations in the kept log.
    @_spi(GraphStoreInternals) public var transactionCount: Int
    @_spi(GraphStoreInternals) public var operationCount: Int
    /// Bytes of records (headers included) in the log.
    @_spi(GraphStoreInternals) public var recordBytes: UInt64
    @_spi(GraphStoreInternals) public var blobCount: Int
    @_spi(GraphStoreInternals) public var blobBytes: UInt64
    /// Every schema the store recorded, oldest first (from the newest sound checkpoint and the log).
    @_spi(GraphStoreInternals) public var schemaHistory: [SchemaHistoryEntry]

    /// The last transaction of the log.
    @_spi(GraphStoreInternals) public var lastTransaction: UInt64 { report.lastTransaction }
    /// Bytes of the store's files: segments (preallocation included), checkpoints and blob files.
    @_spi(GraphStoreInternals) public var fileBytes: UInt64 {
        segments.reduce(0) { $0 + $1.fileBytes } + checkpoints.reduce(0) { $0 + $1.fileBytes } + blobBytes
    }

    /// Reads every record of the kept log and checks every checkpoint of the store at
    /// `directory`, without changing a byte. Throws what a writer's open would throw for damage
    /// before the last good commit.
    @_spi(GraphStoreInternals) public static func inspect(directory: String, fileIO: any FileIO = PosixFileIO()) throws -> StoreInspection {
        guard fileIO.isDirectory(directory) else { throw StorageError.noStore(path: directory) }
        return try readingBesideAWriter(directory: directory, fileIO: fileIO) { try inspectOnce(directory: directory, fileIO: fileIO) }
    }

    private static func inspectOnce(directory: String, fileIO: any FileIO) throws -> StoreInspection {
        var checkpoints: [Checkpoint] = []
        for transaction in try CheckpointFile.list(directory: directory, fileIO: fileIO) {
            let path = joinPath(directory, CheckpointFile.fileName(transaction: transaction))
            let size = try fileIO.fileSize(path)
            var problem: String?
            do { _ = try CheckpointFile.read(path: path, fileIO: fileIO) } catch { problem = "\(error)" }
            checkpoints.append(Checkpoint(transaction: transaction, fileBytes: size, problem: problem))
        }
        let numbers = try listSegments(fileIO: fileIO, directory: directory)
        let logStart = try GraphStoreLog.logStart(directory: directory, fileIO: fileIO)
        var transactions = 0
        var operations = 0
        var recordBytes: UInt64 = 0
        // The schema history: the newest sound checkpoint's, then the log's records after it.
        let base = checkpoints.last { $0.problem == nil && $0.transaction >= logStart }
        var schemaHistory = base.flatMap {
            CheckpointFile.readSchemaHistoryRecord(path: joinPath(directory, CheckpointFile.fileName(transaction: $0.transaction)), fileIO: fileIO)
        }.flatMap { try? CheckpointCodec.decodeSchemas($0) } ?? []
        let log = try TransactionLog.open(directory: directory, options: LogOptions(readOnly: true, fileIO: fileIO), body: { transaction in
            transactions += 1
            operations += transaction.operations.count
            recordBytes += UInt64(RecordFormat.headerSize + TransactionCodec.encode(transaction).count)
            guard transaction.number > base?.transaction ?? 0 else { return }
            // The storage layer carries schema payloads without reading them; a payload that is
            // not a schema record is not listed (and is not the inspection's failure).
            for case let .schema(payload) in transaction.operations {
                guard let record = try? SchemaRecord(decoding: payload) else { continue }
                schemaHistory.append(SchemaHistoryEntry(transaction: transaction.number, timestampMicros: transaction.timestampMicros,
                                                        record: record))
            }
        }, loadCheckpoint: { logStart })
        defer { log.close() }
        var report = log.report
        report.transactionsRead = transactions
        var segments: [Segment] = []
        for number in numbers {
            segments.append(Segment(number: number, fileBytes: try fileIO.fileSize(log.segmentPath(number))))
        }
        let blobs = BlobStore(storeDirectory: directory, fileIO: fileIO, syncs: false)
        var blobBytes: UInt64 = 0
        let blobIDs = try blobs.list()
        for id in blobIDs { blobBytes += try fileIO.fileSize(blobs.path(of: id)) }
        return StoreInspection(formatVersion: SegmentFormat.formatVersion, segments: segments, logStart: logStart,
                               checkpoints: checkpoints, report: report, transactionCount: transactions,
                               operationCount: operations, recordBytes: recordBytes, blobCount: blobIDs.count, blobBytes: blobBytes,
                               schemaHistory: schemaHistory)
    }
}
