import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreLog
import GraphStoreTestSupport

/// A fresh directory under the system temporary directory, removed when the test is done.
final class TemporaryDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("graphstore-\(UUID().uuidString)").path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func store(_ name: String = "store") -> String { path + "/" + name }
}

/// Reads every transaction of a store (read-only).
func readAll(_ directory: String, fileIO: any FileIO = PosixFileIO(), salvage: Bool = false) throws -> ([LogTransaction], OpenReport) {
    var transactions: [LogTransaction] = []
    let log = try TransactionLog.open(directory: directory, options: LogOptions(readOnly: true, salvage: salvage, fileIO: fileIO)) {
        transactions.append($0)
    }
    log.close()
    return (transactions, log.report)
}

/// Writes `count` random transactions to a new in-memory store and returns the file system and what was committed.
func makeMemoryStore(count: Int, seed: UInt64 = 1, segmentSize: UInt64 = 4096, directory: String = "/store")
    throws -> (MemoryFileIO, [[LogOperation]])
{
    let fs = MemoryFileIO()
    var generator = RandomTransactions(seed: seed)
    let log = try TransactionLog.open(directory: directory, options: LogOptions(durability: .none, segmentSize: segmentSize, fileIO: fs))
    var committed: [[LogOperation]] = []
    for _ in 0..<count {
        let operations = generator.next()
        try log.append(operations)
        committed.append(operations)
    }
    log.close()
    return (fs, committed)
}

func segmentPath(_ directory: String, _ number: UInt64) -> String {
    directory + "/" + SegmentFormat.fileName(segment: number)
}
