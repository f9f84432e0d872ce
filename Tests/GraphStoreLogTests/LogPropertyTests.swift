import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog
import GraphStoreTestSupport
import Testing

/// Random transactions, reopen, and the store's state equals a model of the same operations.
@Suite struct LogPropertyTests {
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func reopenedStateEqualsModel(seed: UInt64) throws {
        let fs = MemoryFileIO()
        var generator = RandomTransactions(seed: seed)
        var model = LogStateModel()
        var committed = 0
        // Several sessions, each reopening what the last wrote, with segments small enough to roll often.
        for session in 0..<4 {
            var recovered = LogStateModel()
            var numbers: [UInt64] = []
            let log = try TransactionLog.open(directory: "/s", options: LogOptions(durability: .none, segmentSize: 2048, fileIO: fs)) {
                recovered.apply($0.operations)
                numbers.append($0.number)
            }
            #expect(recovered == model, "session \(session)")
            #expect(numbers == (0..<committed).map { UInt64($0 + 1) })
            #expect(log.report.isClean)
            for _ in 0..<(50 + session * 20) {
                let operations = generator.next()
                let receipt = try log.append(operations, author: "session \(session)")
                committed += 1
                #expect(receipt.number == UInt64(committed))
                model.apply(operations)
            }
            log.close()
        }
        let (transactions, report) = try readAll("/s", fileIO: fs)
        var final = LogStateModel()
        transactions.forEach { final.apply($0.operations) }
        #expect(final == model)
        #expect(report.segments > 3)
        #expect(transactions.last?.author == "session 3")
    }

    @Test func onDiskStoreSurvivesReopenWithEveryDurability() throws {
        let dir = TemporaryDirectory()
        var generator = RandomTransactions(seed: 99)
        var model = LogStateModel()
        for durability in Durability.allCases {
            let log = try TransactionLog.open(directory: dir.store(), options: LogOptions(durability: durability, segmentSize: 8192))
            for _ in 0..<40 {
                let operations = generator.next()
                try log.append(operations)
                model.apply(operations)
            }
            log.close()
        }
        let (transactions, _) = try readAll(dir.store())
        var recovered = LogStateModel()
        transactions.forEach { recovered.apply($0.operations) }
        #expect(recovered == model)
        #expect(transactions.map(\.number) == Array(1...120))
    }

    @Test func aRecordLargerThanASegmentGetsASegmentOfItsOwn() throws {
        let fs = MemoryFileIO()
        let log = try TransactionLog.open(directory: "/s", options: LogOptions(durability: .none, segmentSize: 1024, fileIO: fs))
        let big: [LogOperation] = [.insert(entity: 1, row: 1, values: [PropertyValue(0, .data(Data(repeating: 7, count: 10_000)))])]
        try log.append([.delete(entity: 1, row: 9)])
        try log.append(big)
        try log.append([.delete(entity: 1, row: 10)])
        log.close()
        let (transactions, report) = try readAll("/s", fileIO: fs)
        #expect(transactions.map(\.operations) == [[.delete(entity: 1, row: 9)], big, [.delete(entity: 1, row: 10)]])
        #expect(report.segments == 3)
    }

    @Test func emptyTransactionsAndEmptyStoresReopen() throws {
        let fs = MemoryFileIO()
        var log = try TransactionLog.open(directory: "/s", options: LogOptions(segmentSize: 16384, fileIO: fs))
        #expect(log.lastTransaction == 0)
        log.close()
        log = try TransactionLog.open(directory: "/s", options: LogOptions(segmentSize: 16384, fileIO: fs))
        try log.append([])
        log.close()
        let (transactions, _) = try readAll("/s", fileIO: fs)
        #expect(transactions.count == 1 && transactions[0].operations.isEmpty)
    }

    @Test func closedAndReadOnlyLogsRefuseAppends() throws {
        let fs = MemoryFileIO()
        let log = try TransactionLog.open(directory: "/s", options: LogOptions(segmentSize: 16384, fileIO: fs))
        log.close()
        #expect(throws: StorageError.closed) { try log.append([]) }
        let reader = try TransactionLog.open(directory: "/s", options: LogOptions(readOnly: true, fileIO: fs))
        #expect(throws: StorageError.readOnly) { try reader.append([]) }
        #expect(throws: StorageError.noStore(path: "/missing")) {
            try TransactionLog.open(directory: "/missing", options: LogOptions(readOnly: true, fileIO: fs))
        }
    }

    @Test func replayWritesTheStateAsOfATransaction() throws {
        let (fs, committed) = try makeMemoryStore(count: 60, seed: 3)
        let written = try LogReplay.replay(from: "/store", to: 25, into: "/copy", fileIO: fs)
        #expect(written == 25)
        let (original, _) = try readAll("/store", fileIO: fs)
        let (copy, _) = try readAll("/copy", fileIO: fs)
        #expect(copy == Array(original.prefix(25)))
        #expect(copy.map(\.operations) == Array(committed.prefix(25)))
        #expect(throws: LogReplay.Failure.transactionNotInLog(requested: 61, last: 60)) {
            try LogReplay.replay(from: "/store", to: 61, into: "/copy2", fileIO: fs)
        }
        #expect(throws: LogReplay.Failure.destinationNotEmpty("/copy")) {
            try LogReplay.replay(from: "/store", to: 5, into: "/copy", fileIO: fs)
        }
    }
}
