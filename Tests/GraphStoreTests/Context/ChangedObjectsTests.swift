import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// A context's changed objects are listed by their unsaved-values slots and a flag in each:
/// changes, repeated changes, deletes and their undoing, rollback, saves and a merge that drops
/// a change each leave exactly the objects with unsaved changes listed, once each.
@Suite struct ChangedObjectsTests {
    func idents(_ context: ModelContext) -> [String] {
        context.changedModelsArray.compactMap { ($0 as? Flight)?.ident }
    }

    @Test func theListFollowsEveryWayAnObjectGainsOrLosesChanges() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.autosaveEnabled = false
        for i in 0..<10 { context.insert(Flight(ident: "F\(i)")) }
        try context.save()
        let flights = try (0..<10).map { try #require(try context.fetchUnique(\Flight.ident, equals: "F\($0)")) }
        #expect(idents(context).isEmpty && !context.hasChanges)

        for i in [4, 1, 7] { flights[i].routeDistance = i }
        flights[4].routeDistance = 40   // again: listed once
        #expect(idents(context) == ["F4", "F1", "F7"] && context.changed.count == 3)

        context.delete(flights[1])
        #expect(idents(context) == ["F4", "F7"] && context.deletedModelsArray.count == 1)
        // Inserting a deleted object undoes the delete: its changes are unsaved again.
        context.insert(flights[1])
        #expect(idents(context) == ["F4", "F1", "F7"])

        context.rollback()
        #expect(idents(context).isEmpty && !context.hasChanges && flights.allSatisfy { !$0.isListedChanged })
        flights[2].status = .landed
        #expect(idents(context) == ["F2"])

        try context.save()
        #expect(idents(context).isEmpty && flights.allSatisfy { !$0.isListedChanged })
        flights[2].routeDistance = 5
        flights[3].routeDistance = 6
        #expect(idents(context) == ["F2", "F3"])
        #expect(try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance == 6 })).map(\.ident) == ["F3"])
        try context.save()
        #expect(try ModelContext(container).fetchUnique(\Flight.ident, equals: "F3")?.routeDistance == 6)

        // A merge that drops the only change takes the object off the list.
        context.mergePolicy = .storeWins
        flights[5].routeDistance = 55
        let other = ModelContext(container)
        try #require(try other.fetchUnique(\Flight.ident, equals: "F5")).routeDistance = 500
        try other.save()
        try context.save()
        #expect(idents(context).isEmpty && !flights[5].isListedChanged && flights[5].routeDistance == 500)
    }
}
