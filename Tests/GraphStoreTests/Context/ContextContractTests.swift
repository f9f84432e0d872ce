import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStoreMacrosFree

@Suite struct ContextContractTests {
    func memory(_ types: any PersistentModel.Type...) throws -> ModelContainer {
        try ModelContainer(for: types, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func insertingAnExistingUniqueValueUpdatesTheExistingRow() throws {
        let container = try memory(Flight.self)
        let context = ModelContext(container)
        let original = Flight(ident: "UAL1")
        original.routeDistance = 100
        context.insert(original)
        original.origin = Airport(icao: "KSFO")
        original.destination = Airport(icao: "KORD")
        try context.save()
        let id = original.persistentModelID

        let other = ModelContext(container)
        let update = Flight(ident: "UAL1")
        update.routeDistance = 2_000
        other.insert(update)
        update.destination = Airport(icao: "KJFK")
        try other.save()
        // The stored row's identity survives; the inserted object became that row.
        #expect(update.persistentModelID == id)
        #expect(try other.fetchCount(FetchDescriptor<Flight>()) == 1)
        let seen = try #require(other.model(for: id) as? Flight)
        #expect(seen === update)
        #expect(seen.routeDistance == 2_000)
        // Relationships it set replace the old; those it did not set are kept.
        #expect(seen.destination?.icao == "KJFK")
        #expect(seen.origin?.icao == "KSFO")
        // The first context sees the update through its own object.
        #expect(original.routeDistance == 2_000 && original.destination?.icao == "KJFK")
        let jfk = try #require(try other.fetchUnique(\Airport.icao, equals: "KJFK"))
        #expect(jfk.flightsTo.map(\.ident) == ["UAL1"])
        let ord = try #require(try other.fetchUnique(\Airport.icao, equals: "KORD"))
        #expect(ord.flightsTo.isEmpty)
    }

    @Test func twoInsertsOfOneUniqueValueInOneSaveBecomeOneRow() throws {
        let context = ModelContext(try memory(Flight.self))
        let first = Flight(ident: "DAL5"), second = Flight(ident: "DAL5")
        first.routeDistance = 1
        second.routeDistance = 2
        context.insert(first)
        context.insert(second)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 1)
        #expect(first.persistentModelID == second.persistentModelID)
        #expect(try context.fetch(FetchDescriptor<Flight>()).first?.routeDistance == 2)
    }

    @Test func changingAUniqueValueToOneInUseIsRefused() throws {
        let context = ModelContext(try memory(Flight.self))
        let a = Flight(ident: "A"), b = Flight(ident: "B")
        context.insert(a)
        context.insert(b)
        try context.save()
        b.ident = "A"
        #expect(throws: ModelContextError.uniqueConstraintViolation(entity: "Flight", attribute: "ident", value: "\"A\"")) {
            try context.save()
        }
        // Swapping within one save is fine.
        b.ident = "C"
        a.ident = "B"
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)])).map(\.ident) == ["B", "C"])
    }

    /// An insert's unique value is claimed before changes are checked (inserts are looked up
    /// once, when upserts are resolved), so a change to the same value in that save is refused.
    @Test func changingAUniqueValueToANewInsertsIsRefused() throws {
        let context = ModelContext(try memory(Flight.self))
        let a = Flight(ident: "A")
        context.insert(a)
        try context.save()
        context.insert(Flight(ident: "Z"))
        a.ident = "Z"
        #expect(throws: ModelContextError.uniqueConstraintViolation(entity: "Flight", attribute: "ident", value: "\"Z\"")) {
            try context.save()
        }
        a.ident = "Y"
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)])).map(\.ident) == ["Y", "Z"])
    }

    @Test func findOrInsertUsesTheUniqueIndexAndUnsavedInserts() throws {
        let context = ModelContext(try memory(Flight.self))
        let saved = Airport(icao: "KSFO")
        context.insert(saved)
        try context.save()
        var created = 0
        let found = try context.findOrInsert(\Airport.icao, equals: "KSFO") { created += 1; return Airport(icao: "KSFO") }
        #expect(found === saved && created == 0)
        let new = try context.findOrInsert(\Airport.icao, equals: "KLAX") { created += 1; return Airport(icao: "KLAX") }
        let again = try context.findOrInsert(\Airport.icao, equals: "KLAX") { created += 1; return Airport(icao: "KLAX") }
        #expect(new === again && created == 1 && new.modelContext === context)
        #expect(try context.fetchUnique(\Airport.icao, equals: "KXXX") == nil)
        #expect(throws: ModelContextError.notUnique(entity: "Airport", keyPath: "\(\Airport.name as AnyKeyPath)")) {
            _ = try context.fetchUnique(\Airport.name, equals: "x")
        }
    }

    @Test func deleteRules() throws {
        let context = ModelContext(try memory(Flight.self, Gatekeeper.self))
        let sfo = Airport(icao: "KSFO"), ord = Airport(icao: "KORD")
        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        flight.origin = sfo
        flight.destination = ord
        let keeper = Gatekeeper()
        context.insert(keeper)
        keeper.flights = [flight]
        try context.save()

        // deny: the save names the model and the relationship.
        context.delete(keeper)
        #expect(throws: ModelContextError.deleteDenied(model: keeper.persistentModelID, relationship: "flights")) { try context.save() }
        context.rollback()
        #expect(!keeper.isDeleted)

        // nullify: deleting the flight takes it out of ORD's arrivals (before and after save).
        context.delete(flight)
        #expect(ord.flightsTo.isEmpty)
        context.delete(keeper)  // deny is satisfied now: its only flight is going
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 0)
        #expect(ord.flightsTo.isEmpty && sfo.flightsFrom.isEmpty)
    }

    @Test func deleteWhereDeletesTheMatches() throws {
        let context = ModelContext(try memory(Flight.self))
        for (i, ident) in ["UAL1", "UAL2", "AAL3"].enumerated() {
            let f = Flight(ident: ident)
            f.routeDistance = i
            context.insert(f)
        }
        try context.save()
        try context.delete(model: Flight.self, where: #Predicate { $0.ident.starts(with: "UAL") })
        #expect(context.deletedModelsArray.count == 2)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Flight>()).map(\.ident) == ["AAL3"])
        try context.delete(model: Flight.self)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 0)
    }

    @Test func relationshipCountsAreValidated() throws {
        let context = ModelContext(try memory(Crew.self))
        let crew = Crew()
        context.insert(crew)
        crew.members = [Member()]
        #expect(throws: ModelContextError.self) { try context.save() }
        crew.members.append(Member())
        try context.save()
        #expect(crew.members.count == 2 && crew.members.allSatisfy { $0.crew === crew })
    }

    @Test func transactionSavesAtTheEndOrRollsBack() throws {
        struct Stop: Error {}
        let context = ModelContext(try memory(Flight.self))
        try context.transaction {
            context.insert(Flight(ident: "OK1"))
        }
        #expect(try !context.hasChanges && context.fetchCount(FetchDescriptor<Flight>()) == 1)
        #expect(throws: Stop.self) {
            try context.transaction {
                context.insert(Flight(ident: "NO1"))
                throw Stop()
            }
        }
        #expect(try !context.hasChanges && context.fetchCount(FetchDescriptor<Flight>()) == 1)
    }

    @Test func modelForAndRegisteredModelFor() throws {
        let container = try memory(Flight.self)
        let context = ModelContext(container)
        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        #expect(context.model(for: flight.persistentModelID) === flight)
        try context.save()
        let other = ModelContext(container)
        let none: Flight? = other.registeredModel(for: flight.persistentModelID)
        #expect(none == nil)
        let loaded = try #require(other.model(for: flight.persistentModelID) as? Flight)
        let registered: Flight? = other.registeredModel(for: flight.persistentModelID)
        #expect(registered === loaded)
        #expect(other.existingModel(for: PersistentIdentifier(entityName: "Flight", row: 999)) == nil)
        other.processPendingChanges()
        #expect(!other.hasChanges)
    }

    @Test func theEnrouteImportPatternSeesInversesBeforeSave() throws {
        let context = ModelContext(try memory(Flight.self))
        let airline = try context.findOrInsert(\Airline.code, equals: "UAL") { Airline(code: "UAL") }
        for i in 1...3 {
            let flight = Flight(ident: "UAL\(i)")
            context.insert(flight)
            flight.airline = airline
            flight.origin = try context.findOrInsert(\Airport.icao, equals: "KSFO") { Airport(icao: "KSFO") }
            flight.destination = try context.findOrInsert(\Airport.icao, equals: "KORD") { Airport(icao: "KORD") }
        }
        let sfo = try #require(try context.fetchUnique(\Airport.icao, equals: "KSFO"))
        #expect(sfo.flightsFrom.map(\.ident) == ["UAL1", "UAL2", "UAL3"])
        #expect(airline.flights.count == 3)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Airport>()) == 2)
        #expect(sfo.flightsFrom.map(\.ident) == ["UAL1", "UAL2", "UAL3"])
    }
}
