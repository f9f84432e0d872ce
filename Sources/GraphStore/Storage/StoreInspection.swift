/// A read-only look at a store's log: what `graphstore info` and `verify` print.
public struct StoreInspection: Sendable {
    public struct Segment: Sendable, Equatable {
        public var number: UInt64
        /// Size of the file, preallocated space included.
        public var fileBytes: UInt64
    }

    public var formatVersion: UInt16
    public var segments: [Segment]
    /// Every record was read and decoded; torn tails are in `report.tornTail`.
    public var report: OpenReport
    public var transactionCount: Int
    public var operationCount: Int
    /// Bytes of records (headers included) in the log.
    public var recordBytes: UInt64

    public var lastTransaction: UInt64 { report.lastTransaction }
    public var fileBytes: UInt64 { segments.reduce(0) { $0 + $1.fileBytes } }

    /// Reads every record of the store at `directory` without changing a byte. Throws what a
    /// writer's open would throw for damage before the last good commit.
    public static func inspect(directory: String, fileIO: any FileIO = PosixFileIO()) throws -> StoreInspection {
        var transactions = 0
        var operations = 0
        var recordBytes: UInt64 = 0
        let log = try TransactionLog.open(directory: directory, options: LogOptions(readOnly: true, fileIO: fileIO)) { transaction in
            transactions += 1
            operations += transaction.operations.count
            recordBytes += UInt64(RecordFormat.headerSize + TransactionCodec.encode(transaction).count)
        }
        defer { log.close() }
        var segments: [Segment] = []
        for number in try listSegments(fileIO: fileIO, directory: directory) {
            let handle = try fileIO.open(log.segmentPath(number), mode: .readOnly)
            defer { handle.close() }
            segments.append(Segment(number: number, fileBytes: try handle.size()))
        }
        return StoreInspection(formatVersion: SegmentFormat.formatVersion, segments: segments, report: log.report,
                               transactionCount: transactions, operationCount: operations, recordBytes: recordBytes)
    }
}
