import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreLog
import GraphStoreTestSupport
import Testing

/// A record written as it is encoded (`StreamedRecord`) is the record written whole: the same
/// bytes in the log, whatever its number and however many pieces; a failed write part way
/// leaves what a torn whole record leaves (and a crash after any byte: FaultInjectionTests).
@Suite struct StreamedRecordTests {
    func open(_ fileIO: any FileIO, streamingAbove threshold: Int, segmentSize: UInt64 = 64 << 10) throws -> TransactionLog {
        var options = LogOptions(durability: .full, segmentSize: segmentSize, fileIO: fileIO)
        options.streamedRecordBytes = threshold
        return try TransactionLog.open(directory: "/s", options: options)
    }

    /// Transactions of every kind of change: random operations, a block of rows by column, a
    /// to-one and a to-many link block, and one of several pieces (values of 400 KB). Random
    /// values (identifiers) differ from one call to the next.
    static func workload() -> [TransactionChanges] {
        var generator = RandomTransactions(seed: 21)
        var changes = (0..<8).map { _ in TransactionChanges(operations: generator.next()) }
        let rows = (1...UInt64(50)).map { $0 + 1_000 }
        let block = RowBlock(kind: .insert, entity: 1, properties: [1, 2],
                             values: [rows.map { .string("row \($0)") }, rows.map { $0 % 3 == 0 ? nil : .int(Int64($0)) }],
                             defaults: [.string(""), .int(-1)], rows: rows, sources: Array(0..<rows.count))
        let toOne = LinkBlock(relationship: 7, sources: rows, targets: rows.map { $0 % 4 == 0 ? 0 : $0 - 1_000 })
        let toMany = LinkBlock(relationship: 8, sources: [1, 2, 3], targets: [1_001, 1_002, 0, 1_003, 1_004], ends: [2, 2, 5])
        changes.append(TransactionChanges(blocks: [block], links: [toOne, toMany], operations: [.delete(entity: 1, row: 1_002)]))
        let large = (0..<6).map { i in
            LogOperation.insert(entity: 2, row: UInt64(2_000 + i), values: [PropertyValue(1, .data(Data(repeating: UInt8(i), count: 400_000)))])
        }
        changes.append(TransactionChanges(operations: large))
        changes += (0..<3).map { _ in TransactionChanges(operations: generator.next()) }
        return changes
    }

    @Test func streamedRecordsAreTheBytesOfWholeOnes() throws {
        let whole = MemoryFileIO(), streamed = MemoryFileIO()
        let workload = Self.workload()
        for (fileIO, threshold) in [(whole, Int.max), (streamed, 0)] {
            let log = try open(fileIO, streamingAbove: threshold, segmentSize: 1 << 20)
            for (i, changes) in workload.enumerated() {
                try log.append(changes, author: "a\(i)", timestampMicros: 1_000 + Int64(i))
            }
            log.close()
        }
        // The large transaction fills a segment of its own: three segments.
        for segment in UInt64(1)...3 {
            let path = segmentPath("/s", segment)
            #expect(whole.contents(of: path) != nil)
            #expect(streamed.contents(of: path) == whole.contents(of: path), "segment \(segment)")
        }
        let read = try readAll("/s", fileIO: streamed).0
        #expect(read.map(\.operations) == workload.map(\.expandedOperations))
        #expect(read.map(\.number) == Array(1...UInt64(read.count)))
    }

    /// Whether a record streams is judged on the bytes its blocks write: an update writes only
    /// the columns its rows set, an insert every column. A thousand rows of sixteen columns,
    /// one set: streamed as an insert, held whole as an update (each written and read back).
    @Test func anUpdateIsMeasuredByTheColumnsItSets() throws {
        let files = MemoryFileIO()
        let log = try open(files, streamingAbove: 100_000, segmentSize: 8 << 20)
        let rows = (1...UInt64(1_000)).map { $0 }
        func block(_ kind: RowBlock.Kind) -> RowBlock {
            // A column no row sets holds no slots, as a context's unsaved values leave it.
            let values: [[Value?]] = (0..<16).map { column in column == 3 ? rows.map { .int(Int64($0)) } : [] }
            return RowBlock(kind: kind, entity: 1, properties: (1...16).map { PropertyNumber($0) }, values: values,
                            defaults: kind == .insert ? Array(repeating: .int(0), count: 16) : [],
                            rows: rows, sources: Array(rows.indices))
        }
        let insert = TransactionChanges(blocks: [block(.insert)], links: [], operations: [])
        let update = TransactionChanges(blocks: [block(.update)], links: [], operations: [])
        let inserting = try log.reserve(insert, streaming: true)
        #expect(inserting.isStreamed)
        _ = try log.write(inserting)
        let updating = try log.reserve(update, streaming: true)
        #expect(!updating.isStreamed)
        _ = try log.write(updating)
        log.close()
        #expect(try readAll("/s", fileIO: files).0.map(\.operations) == [insert, update].map(\.expandedOperations))
    }

    /// A write that fails between a streamed record's pieces: a typed error, the writer
    /// poisoned, and the log reopened holds the commits before it, none of it.
    @Test func aWriteFailingBetweenPiecesPoisonsTheWriter() throws {
        let files = MemoryFileIO()
        let faulty = FaultInjectingFileIO(base: files, plan: FaultPlan())
        let log = try open(faulty, streamingAbove: 0, segmentSize: 8 << 20)
        let workload = Self.workload()
        for changes in workload.prefix(9) { try log.append(changes) }
        // The large transaction: its header, then its first piece, then the one that fails.
        faulty.setPlan(FaultPlan(failWrite: (index: faulty.writeCount + 2, errno: 5)))
        let expected = StorageError.io(operation: "write", path: segmentPath("/s", 1), errno: 5)
        #expect(throws: expected) { try log.append(workload[9]) }
        #expect(throws: StorageError.writerPoisoned(cause: expected.description)) { try log.append(workload[10]) }
        log.close()
        #expect(try readAll("/s", fileIO: files).0.map(\.operations) == workload.prefix(9).map(\.expandedOperations))
    }
}
