import Foundation
import Testing
import GraphStoreMacrosFree
import GraphStoreModelTestSupport

/// A context keeps its unsaved inserts' values by column, each insert a slot, and a save hands
/// the columns to its transaction. Every way an insert's values can leave that table — saved,
/// deleted before the save, rolled back, a failed save, an undo — leaves them right, in the
/// object and in the store, and no object ever reads another's slot.
@Suite struct InsertedValuesTests {
    private func flight(_ ident: String, _ distance: Int, in context: ModelContext) -> Flight {
        let flight = Flight()
        flight.ident = ident
        context.insert(flight)
        flight.routeDistance = distance
        return flight
    }

    @Test func insertsDeletedBeforeTheSaveAreLeftOutAndKeepTheirValues() throws {
        let store = TemporaryStore()
        let container = try store.container(Flight.self, Airport.self, Airline.self)
        let context = ModelContext(container)
        let flights = (0..<10).map { flight("F\($0)", $0 * 100, in: context) }
        flights[3].status = .enroute
        context.delete(flights[3])
        context.delete(flights[7])
        // Values set before and after the delete stay the object's own.
        flights[7].routeDistance = 7_777
        #expect(flights[3].routeDistance == 300 && flights[3].status == .enroute && flights[7].routeDistance == 7_777)
        try context.save()
        let saved = try ModelContext(container).fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        #expect(saved.map(\.ident) == ["F0", "F1", "F2", "F4", "F5", "F6", "F8", "F9"])
        #expect(saved.map(\.routeDistance) == [0, 100, 200, 400, 500, 600, 800, 900])
        #expect(flights[3].routeDistance == 300 && flights[7].routeDistance == 7_777)
        // New inserts after the save start a fresh table: the saved and deleted objects keep
        // their values, not the new slots'.
        let next = (0..<3).map { flight("G\($0)", 5_000 + $0, in: context) }
        #expect(flights[0].routeDistance == 0 && flights[1].routeDistance == 100 && flights[3].routeDistance == 300)
        #expect(next.map(\.routeDistance) == [5_000, 5_001, 5_002])
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Flight>()) == 11)
    }

    @Test func aSaveThatThrowsLeavesTheTableIntact() throws {
        let store = TemporaryStore()
        let container = try store.container(Flight.self, Airport.self, Airline.self, Everything.self)
        let context = ModelContext(container)
        context.insert(Airport())  // another entity's slots beside the flights'
        let flights = (0..<20).map { flight("F\($0)", $0 * 3, in: context) }
        try context.save()
        // A value that cannot be stored makes the save throw, with every insert's values still
        // in place for the save after it.
        let more = (0..<5).map { flight("N\($0)", 1_000 + $0, in: context) }
        let everything = Everything()
        context.insert(everything)
        everything.persistentBacking.recordEncodingFailure(at: 0, reason: "test", of: everything)
        #expect(throws: ModelContextError.self) { try context.save() }
        #expect(more.map(\.routeDistance) == [1_000, 1_001, 1_002, 1_003, 1_004])
        context.delete(everything)
        try context.save()
        let saved = try ModelContext(container).fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance >= 1_000 },
                                                                               sortBy: [SortDescriptor(\.routeDistance)]))
        #expect(saved.map(\.ident) == ["N0", "N1", "N2", "N3", "N4"])
        #expect(flights[4].routeDistance == 12)
    }

    @Test func rollbackGivesInsertsTheirValuesBack() throws {
        let store = TemporaryStore()
        let container = try store.container(Flight.self, Airport.self, Airline.self)
        let context = ModelContext(container)
        let kept = flight("K", 1, in: context)
        let airport = Airport()
        airport.icao = "KSFO"
        context.insert(airport)
        try context.save()
        let dropped = (0..<4).map { flight("D\($0)", 10 + $0, in: context) }
        for flight in dropped { flight.origin = airport }
        #expect(airport.flightsFrom.count == 4)
        context.rollback()
        #expect(dropped.map(\.routeDistance) == [10, 11, 12, 13] && dropped.allSatisfy { $0.modelContext == nil })
        #expect(dropped.allSatisfy { $0.origin === airport } && airport.flightsFrom.isEmpty)
        // Inserted again: saved with the values and links they had.
        dropped[2].routeDistance = 99
        context.insert(dropped[2])
        #expect(airport.flightsFrom.map(\.ident) == ["D2"])
        try context.save()
        let reader = ModelContext(container)  // kept: its objects read relationships through it
        let saved = try reader.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        #expect(saved.map(\.ident) == ["D2", "K"] && saved.map(\.routeDistance) == [99, 1] && kept.routeDistance == 1)
        #expect(saved.map { $0.origin?.icao } == ["KSFO", nil])
    }

    @Test func anInsertBroughtBackByUndoIsSavedWithItsValues() throws {
        let store = TemporaryStore()
        let container = try store.container(Flight.self, Airport.self, Airline.self)
        let context = ModelContext(container)
        context.undoManager = UndoManager()
        context.undoManager?.groupsByEvent = false
        context.undoManager?.beginUndoGrouping()
        let made = flight("U", 42, in: context)
        made.status = .landed
        context.undoManager?.endUndoGrouping()
        context.undoManager?.beginUndoGrouping()
        context.delete(made)
        context.undoManager?.endUndoGrouping()
        context.undoManager?.undo()  // the delete
        #expect(made.routeDistance == 42 && made.status == .landed)
        _ = flight("V", 7, in: context)
        try context.save()
        let saved = try ModelContext(container).fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        #expect(saved.map(\.ident) == ["U", "V"] && saved.map(\.routeDistance) == [42, 7] && saved[0].status == .landed)
    }

    @Test func anInsertDeletedThenInsertedAgainIsSaved() throws {
        let store = TemporaryStore()
        let container = try store.container(Flight.self, Airport.self, Airline.self)
        let context = ModelContext(container)
        let again = flight("AGAIN", 5, in: context)
        let gone = flight("GONE", 6, in: context)
        context.delete(again)
        context.delete(gone)
        context.insert(again)
        again.routeDistance = 55
        #expect(context.insertedModelsArray.count == 1 && context.hasChanges)
        #expect(try context.fetch(FetchDescriptor<Flight>()).map(\.ident) == ["AGAIN"])
        try context.save()
        let saved = try ModelContext(container).fetch(FetchDescriptor<Flight>())
        #expect(saved.map(\.ident) == ["AGAIN"] && saved.map(\.routeDistance) == [55])
        // Deleted, saved, then inserted again: a new insert of its row.
        context.delete(again)
        try context.save()
        let shown = again.routeDistance
        context.insert(again)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Flight>()).map(\.routeDistance) == [shown])
    }

    @Test func anInsertOutlivingItsContextKeepsItsValues() throws {
        let store = TemporaryStore()
        let container = try store.container(Flight.self, Airport.self, Airline.self)
        var made: Flight?
        do {
            let context = ModelContext(container)
            made = flight("ORPHAN", 123, in: context)
            made?.status = .enroute
        }
        #expect(made?.routeDistance == 123 && made?.status == .enroute && made?.ident == "ORPHAN")
    }
}
