import Foundation
import Testing
import GraphStoreMacrosFree
import GraphStoreModelTestSupport
@testable import GraphStore

/// A context keeps its objects' unsaved changes by column, each insert or changed object a
/// slot, and a save hands the columns to its transaction. Every way changes can leave that
/// table — saved, deleted before the save, rolled back, a failed save, an undo, a merge the
/// store wins — leaves them right, in the object and in the store, and no object ever reads
/// another's slot.
@Suite struct UnsavedValuesTests {
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

    /// A table emptied by a save keeps its storage for the next save's changes (a few slots'
    /// worth; a larger one is let go): the next inserts in those slots hold only what they set,
    /// nothing of the slots' earlier objects, and those objects read what was saved.
    @Test(arguments: [3, UnsavedValues.slotsKeptAfterEmptying + 1])
    func slotsOfAnEmptiedTableStartUnset(first count: Int) throws {
        let store = TemporaryStore()
        let container = try store.container(Flight.self, Airport.self, Airline.self)
        let context = ModelContext(container)
        let airport = Airport()
        airport.icao = "KSFO"
        context.insert(airport)
        let earlier = (0..<count).map { flight("E\($0)", 100 + $0, in: context) }
        for flight in earlier {
            flight.status = .enroute
            flight.actualOff = Date(timeIntervalSinceReferenceDate: 1_000)
            flight.origin = airport
        }
        try context.save()
        earlier[1].routeDistance = 7  // a committed object's change in slot 0 of the next table
        let later = (0..<2).map { i -> Flight in
            let flight = Flight()
            flight.ident = "L\(i)"
            context.insert(flight)
            return flight
        }
        func unset(_ flight: Flight) -> Bool {
            flight.routeDistance == 0 && flight.status == .scheduled && flight.actualOff == nil && flight.origin == nil
        }
        #expect(later.allSatisfy(unset))
        try context.save()
        #expect(later.allSatisfy(unset))
        let reader = ModelContext(container)
        let saved = try reader.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "L0" || $0.ident == "L1" }))
        #expect(saved.count == 2 && saved.allSatisfy(unset))
        let first = try #require(try reader.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "E1" })).first)
        #expect(first.routeDistance == 7 && first.status == .enroute && first.origin?.icao == "KSFO")
        #expect(earlier[2].routeDistance == 102 && earlier[2].status == .enroute && earlier[2].origin === airport)
        #expect(airport.flightsFrom.count == count)
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

    @Test func changesToCommittedObjectsAreSavedAndTheirSlotsGoAfterward() throws {
        let store = TemporaryStore()
        let container = try store.container(Flight.self, Airport.self, Airline.self)
        let context = ModelContext(container)
        let airline = Airline()
        airline.code = "UA"
        context.insert(airline)
        let flights = (0..<20).map { flight("F\($0)", $0, in: context) }
        for flight in flights { flight.actualOff = Date(timeIntervalSince1970: 1) }
        try context.save()
        for (i, flight) in flights.enumerated() {
            if i % 2 == 0 { flight.routeDistance = 1_000 + i }
            if i % 3 == 0 { flight.status = .landed }
            if i % 5 == 0 { flight.actualOff = nil }
            if i % 4 == 0 { flight.airline = airline }
        }
        _ = flight("NEW", 7, in: context)  // an insert's slot beside the changes'
        #expect(flights[6].routeDistance == 1_006 && flights[6].status == .landed && flights[5].actualOff == nil)
        try context.save()
        func check(_ expected: (Int) -> (Int, FlightStatus, Bool, Bool)) throws {
            let reader = ModelContext(container)
            let saved = try reader.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident != "NEW" }, sortBy: [SortDescriptor(\.routeDistance)]))
            var byIdent: [String: Flight] = [:]
            for flight in saved { byIdent[flight.ident] = flight }
            for i in 0..<20 {
                let flight = try #require(byIdent["F\(i)"])
                let (distance, status, hasOff, hasAirline) = expected(i)
                #expect(flight.routeDistance == distance && flight.status == status, "F\(i)")
                #expect((flight.actualOff != nil) == hasOff && (flight.airline != nil) == hasAirline, "F\(i)")
            }
        }
        try check { i in (i % 2 == 0 ? 1_000 + i : i, i % 3 == 0 ? .landed : .scheduled, i % 5 != 0, i % 4 == 0) }
        // The same objects changed again after the table was emptied: new slots, nothing stale.
        flights[1].routeDistance = 5
        flights[2].status = .enroute
        #expect(flights[0].routeDistance == 1_000 && flights[3].status == .landed)
        try context.save()
        try check { i in
            (i == 1 ? 5 : i % 2 == 0 ? 1_000 + i : i, i == 2 ? .enroute : i % 3 == 0 ? .landed : .scheduled, i % 5 != 0, i % 4 == 0)
        }
        // Rolled back: the committed values show again.
        flights[4].routeDistance = 44
        context.rollback()
        #expect(flights[4].routeDistance == 1_004 && !context.hasChanges)
    }

    @Test func aChangedObjectDeletedThenInsertedAgainKeepsItsChanges() throws {
        let store = TemporaryStore()
        let container = try store.container(Flight.self, Airport.self, Airline.self)
        let context = ModelContext(container)
        let made = flight("X", 1, in: context)
        try context.save()
        made.routeDistance = 2
        context.delete(made)
        context.insert(made)
        #expect(made.routeDistance == 2 && context.hasChanges)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Flight>()).map(\.routeDistance) == [2])
    }

    @Test func aChangeTheStoreWinsOverLeavesNoSlotBehind() throws {
        let store = TemporaryStore()
        let container = try store.container(Flight.self, Airport.self, Airline.self)
        let setup = ModelContext(container)
        _ = flight("A", 1, in: setup)
        _ = flight("B", 2, in: setup)
        try setup.save()
        let local = ModelContext(container)
        local.mergePolicy = .storeWins
        let a = try #require(try local.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "A" })).first)
        let b = try #require(try local.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "B" })).first)
        a.routeDistance = 10
        let remote = ModelContext(container)
        try #require(try remote.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "A" })).first).routeDistance = 20
        try remote.save()
        b.routeDistance = 30
        try local.save()  // A's change loses to the store's; B's is saved
        #expect(a.routeDistance == 20 && b.routeDistance == 30)
        // A changed again after the table was emptied reads and saves its own value.
        a.routeDistance = 40
        _ = flight("C", 3, in: local)
        #expect(a.routeDistance == 40)
        try local.save()
        let saved = try ModelContext(container).fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        #expect(saved.map(\.routeDistance) == [40, 30, 3])
    }

    @Test func aContextDroppedWithUnsavedChangesKeepsNothingAlive() throws {
        let store = TemporaryStore()
        let container = try store.container(Flight.self, Airport.self, Airline.self)
        let setup = ModelContext(container)
        _ = flight("C", 1, in: setup)
        try setup.save()
        weak var inserted: Flight?
        weak var changed: Flight?
        weak var droppedContext: ModelContext?
        do {
            let context = ModelContext(container)
            droppedContext = context
            let made = flight("N", 2, in: context)
            inserted = made
            let committed = try #require(try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "C" })).first)
            committed.routeDistance = 3
            changed = committed
        }
        // Neither the context's table of unsaved values nor its objects keep each other alive.
        #expect(droppedContext == nil)
        #expect(inserted == nil)
        #expect(changed == nil)
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
