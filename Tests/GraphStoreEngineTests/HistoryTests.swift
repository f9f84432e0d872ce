import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog

@Suite struct HistoryTests {
    let types: [any PersistentModel.Type] = [Airport.self, Airline.self, Flight.self]

    @Test func historyNamesInsertsUpdatesDeletesAuthorsAndBothSidesOfALink() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
        let start = container.currentHistoryToken
        let context = ModelContext(container)
        context.author = "importer"
        let sfo = Airport(icao: "KSFO"), ord = Airport(icao: "KORD")
        let flight = Flight(ident: "UAL1")
        flight.origin = sfo
        context.insert(flight)
        context.insert(ord)
        try context.save()
        let afterInsert = container.currentHistoryToken

        let editor = ModelContext(container)
        editor.author = "editor"
        let stored = try #require(try editor.fetchUnique(\Flight.ident, equals: "UAL1"))
        stored.routeDistance = 1846
        stored.destination = try editor.fetchUnique(\Airport.icao, equals: "KORD")
        try editor.save()
        editor.delete(stored)
        try editor.save()

        let history = try context.fetchHistory(after: start)
        #expect(history.map(\.author) == ["importer", "editor", "editor"])
        #expect(history.map(\.token.transaction) == [start.transaction + 1, start.transaction + 2, start.transaction + 3])
        func summary(_ transaction: DefaultHistoryTransaction) -> Set<String> {
            Set(transaction.changes.map { change in
                switch change {
                case let .insert(insert): return "insert \(insert.changedPersistentIdentifier)"
                case let .update(update): return "update \(update.changedPersistentIdentifier) \(update.updatedAttributeNames.sorted())"
                case let .delete(delete): return "delete \(delete.changedPersistentIdentifier)"
                }
            })
        }
        let flightID = stored.persistentModelID
        #expect(summary(history[0]) == ["insert \(flightID)", "insert \(sfo.persistentModelID)", "insert \(ord.persistentModelID)"])
        #expect(summary(history[1]) == ["update \(flightID) [\"destination\", \"routeDistance\"]",
                                        "update \(ord.persistentModelID) [\"flightsTo\"]"])
        #expect(summary(history[2]).contains("delete \(flightID)"))
        #expect(history.allSatisfy { abs($0.timestamp.timeIntervalSinceNow) < 60 })
        // Typed as the app's models.
        #expect(history[0].changes.contains { if case let .insert(insert) = $0 { return insert is DefaultHistoryInsert<Flight> } else { return false } })

        #expect(try context.fetchHistory(after: afterInsert).count == 2)
        #expect(try container.fetchHistory(after: start, fetchLimit: 1).count == 1)
        #expect(try container.fetchHistory(after: start, author: "importer").count == 1)
        #expect(try context.fetchHistory(after: container.currentHistoryToken).isEmpty)
        // Tokens are Codable.
        let token = try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(afterInsert))
        #expect(token == afterInsert)
    }

    @Test func historyReadsAcrossSegmentsReopensAndCheckpoints() throws {
        let store = TemporaryStore()
        do {
            let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            try commitRandomChanges(container, count: 60, seed: 21)
            try container.checkpoint()
            try commitRandomChanges(container, count: 60, seed: 22, author: "second")
            container.close()
        }
        let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
        let history = try container.fetchHistory(after: nil)
        #expect(history.count == Int(container.lastTransaction))
        #expect(history.map(\.token.transaction) == Array(1...container.lastTransaction))
        #expect(history.first?.author == "schema")
        #expect(history.last?.author == "second")
    }

    @Test func anInMemoryContainerHasNoHistory() throws {
        let container = try ModelContainer(for: types, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(throws: ModelContextError.noHistory) { try container.fetchHistory(after: nil) }
        #expect(throws: ModelContextError.noHistory) { try container.compact() }
    }

    @Test func aReadOnlyContainerOpensAsOfAPastTransaction() throws {
        let store = TemporaryStore()
        var states: [UInt64: String] = [:]
        do {
            let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            for round in 0..<6 {
                try commitRandomChanges(container, count: 15, seed: 30 + UInt64(round))
                states[container.lastTransaction] = try describeState(container)
                if round == 2 { try container.checkpoint() }
            }
            container.close()
        }
        for (transaction, expected) in states {
            let past = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url, readOnly: true, asOf: transaction))
            #expect(past.lastTransaction == transaction)
            #expect(try describeState(past) == expected, "as of \(transaction)")
            let context = ModelContext(past)
            context.insert(Airport(icao: "NOPE"))
            #expect(throws: ModelContextError.readOnly) { try context.save() }
        }
        // Asking for the future or for a writable past is refused.
        #expect(throws: LogReplay.Failure.self) {
            _ = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url, readOnly: true, asOf: 10_000))
        }
        #expect(throws: StorageError.self) {
            _ = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url, asOf: 3))
        }
    }

    @Test func timeTravelBeforeCompactedHistoryIsATypedError() throws {
        let store = TemporaryStore()
        var compactedAt: UInt64 = 0
        var expected = ""
        do {
            let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            try commitRandomChanges(container, count: 80, seed: 40)
            compactedAt = try container.compact(retention: HistoryRetention.none).checkpoint.transaction
            expected = try describeState(container)
            try commitRandomChanges(container, count: 10, seed: 41)
            container.close()
        }
        #expect(throws: StorageError.historyCompacted(requested: 5, oldestAvailable: compactedAt)) {
            _ = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url, readOnly: true, asOf: 5))
        }
        let atCompaction = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url, readOnly: true, asOf: compactedAt))
        #expect(try describeState(atCompaction) == expected)
    }
}
