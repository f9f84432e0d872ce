import Foundation
import Testing
import GraphStore
import GraphStoreMacrosFree

/// "Track model changes with SwiftData history" (WWDC 2024), ported with only the model
/// declarations changed: fetch the transactions after a saved token, read each change as a
/// typed insert, update or delete, keep the newest token, delete old history.
@Suite struct HistoryPortTests {
    struct Seen {
        var inserted: [String] = []
        var updatedNames: [String] = []
        var deletedNames: [String?] = []
        var newToken: DefaultHistoryToken?
    }

    /// The session's code, as an app writes it.
    func findTripChanges(in container: ModelContainer, after token: DefaultHistoryToken?) throws -> Seen {
        let context = ModelContext(container)
        var historyDescriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        if let token {
            historyDescriptor.predicate = #Predicate { transaction in
                (transaction.token > token)
            }
        }
        let transactions = try context.fetchHistory(historyDescriptor)
        var seen = Seen()
        for transaction in transactions {
            for change in transaction.changes {
                let modelID = change.changedPersistentIdentifier
                switch change {
                case .insert(let historyInsert):
                    if historyInsert is DefaultHistoryInsert<Trip>, let trip = context.model(for: modelID) as? Trip {
                        seen.inserted.append(trip.name)
                    }
                case .update(let historyUpdate):
                    // model(for:) hands out a deleted object for a row deleted since.
                    if historyUpdate is DefaultHistoryUpdate<Trip>, let trip = context.model(for: modelID) as? Trip, !trip.isDeleted {
                        seen.updatedNames.append(trip.name)
                    }
                case .delete(let historyDelete):
                    if let delete = historyDelete as? DefaultHistoryDelete<Trip> {
                        seen.deletedNames.append(delete.tombstone[\.name] as? String)
                    }
                }
            }
        }
        seen.newToken = transactions.last?.token
        return seen
    }

    @Test func changesAfterATokenAreReadAsTypedInsertsUpdatesAndDeletes() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Trip.self, configurations: maintainedConfiguration(store.url))
        let context = ModelContext(container)
        let paris = Trip(name: "Paris"), rome = Trip(name: "Rome")
        context.insert(paris)
        context.insert(rome)
        try context.save()
        let first = try findTripChanges(in: container, after: nil)
        #expect(Set(first.inserted) == ["Paris", "Rome"])
        let token = try #require(first.newToken)

        // Another context renames one trip, deletes the other, and adds a bucket list item.
        let other = ModelContext(container)
        other.author = "widget"
        let trips = try other.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        trips[0].name = "Paris, France"
        trips[1].bucketList = [BucketListItem(title: "Colosseum")]
        try other.save()
        other.delete(trips[1])
        try other.save()

        let second = try findTripChanges(in: container, after: token)
        #expect(second.inserted.isEmpty)
        #expect(second.updatedNames == ["Paris, France"])  // Rome, given an item and then deleted, is gone
        #expect(second.deletedNames == ["Rome"])  // the tombstone kept the preserved name
        #expect(second.newToken.map { $0 > token } == true)

        // Authors, timestamps, the store, and the predicate on them.
        var byAuthor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.author == "widget" })
        byAuthor.sortBy = [SortDescriptor(\.timestamp, order: .reverse)]
        let widget = try context.fetchHistory(byAuthor)
        #expect(widget.count == 2 && widget[0].timestamp >= widget[1].timestamp)
        #expect(widget.allSatisfy { $0.storeIdentifier == store.url.path })
        var limited = HistoryDescriptor<DefaultHistoryTransaction>()
        limited.fetchLimit = 1
        #expect(try context.fetchHistory(limited).count == 1)
        // Tokens are Codable and comparable.
        let decoded = try JSONDecoder().decode(DefaultHistoryToken.self, from: JSONEncoder().encode(token))
        #expect(decoded == token && !(decoded < token))
        // Every changed property is named, key path or not.
        let updates = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).flatMap(\.changes).compactMap { change -> Set<String>? in
            if case let .update(update) = change { return update.updatedAttributeNames }
            return nil
        }
        #expect(updates.contains(["name"]) && updates.contains(["bucketList"]))  // the item's own `trip` came with its insert
        let renamed = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).flatMap(\.changes).compactMap { change in
            if case let .update(update) = change { return update as? DefaultHistoryUpdate<Trip> }
            return nil
        }
        #expect(renamed.contains { $0.wasUpdated(\.name) } && renamed.contains { $0.wasUpdated(\.bucketList) })
        #expect(!renamed.contains { $0.wasUpdated(\.destination) })
        // The key paths GraphStore has been given (here, by the predicate) are in updatedAttributes.
        _ = try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "" && $0.bucketList.count > 0 }))
        #expect(renamed.contains { $0.updatedAttributes.contains { $0 == \Trip.name } })
        #expect(renamed.contains { $0.updatedAttributes.contains { $0 == \Trip.bucketList } })
    }

    /// `deleteHistory` drops history from its start, up to what the predicate selects, and no
    /// further; a predicate that selects transactions after ones it keeps is refused.
    @Test func deletingHistoryDropsItsOldestTransactions() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Trip.self, configurations: maintainedConfiguration(store.url))
        let context = ModelContext(container)
        for i in 0..<80 {
            context.insert(Trip(name: "Trip \(i)", destination: String(repeating: "x", count: 200)))
            try context.save()
        }
        let all = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let cut = all[40].token
        #expect(throws: ModelContextError.historyNotAPrefix(transaction: all[41].token.transaction)) {
            try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > cut }))
        }
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token < cut }))
        let kept = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(kept.count < all.count)
        #expect(kept.last?.token == all.last?.token)
        #expect(kept.first.map { $0.token <= cut } == true)  // whole segments go: a little before the cut may stay
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 80)
    }
}
