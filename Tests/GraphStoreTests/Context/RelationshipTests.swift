import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStoreMacrosFree

@Suite struct RelationshipTests {
    @Test func toManyOrderIsTheOrderMembersWereAddedAndSurvivesReopen() throws {
        let store = TemporaryStore()
        let idents = ["UAL9", "AAL1", "DAL5", "SWA3", "UAL2"]  // deliberately not sorted
        do {
            let context = ModelContext(try store.container(Flight.self))
            let sfo = Airport(icao: "KSFO")
            context.insert(sfo)
            for ident in idents {
                let flight = Flight(ident: ident)
                context.insert(flight)
                flight.origin = sfo
            }
            #expect(sfo.flightsFrom.map(\.ident) == idents)
            try context.save()
            // Reorder explicitly: the new order is what persists.
            sfo.flightsFrom = sfo.flightsFrom.reversed()
            try context.save()
        }
        do {
            let context = ModelContext(try store.container(Flight.self))
            let sfo = try #require(try context.fetch(FetchDescriptor<Airport>()).first)
            #expect(sfo.flightsFrom.map(\.ident) == idents.reversed())
            // Appending keeps the order, and so does a later reopen.
            let late = Flight(ident: "JBU7")
            context.insert(late)
            sfo.flightsFrom.append(late)
            #expect(late.origin === sfo)
            try context.save()
        }
        let context = ModelContext(try store.container(Flight.self))
        let sfo = try #require(try context.fetch(FetchDescriptor<Airport>()).first)
        #expect(sfo.flightsFrom.map(\.ident) == idents.reversed() + ["JBU7"])
    }

    @Test func inversesStayInStepBeforeAndAfterSave() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let sfo = Airport(icao: "KSFO"), lax = Airport(icao: "KLAX")
        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        flight.destination = sfo  // sfo is inserted along with it
        #expect(sfo.modelContext === context)
        #expect(sfo.flightsTo.map(\.ident) == ["UAL1"])
        flight.destination = lax  // moving it
        #expect(sfo.flightsTo.isEmpty && lax.flightsTo.map(\.ident) == ["UAL1"])
        try context.save()
        lax.flightsTo.removeAll()
        #expect(flight.destination == nil)
        try context.save()
        let other = ModelContext(container)
        let fetched = try #require(try other.fetch(FetchDescriptor<Flight>()).first)
        #expect(fetched.destination == nil)
        #expect(try other.fetch(FetchDescriptor<Airport>()).allSatisfy { $0.flightsTo.isEmpty })
    }

    /// Flights new and committed moved among airports at random, from either side: every
    /// airport's list holds each of its flights once, in step with the flights' to-ones, before
    /// the save, after it and in another context.
    @Test func toManyListsNeverHoldAMemberTwice() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let airports = (0..<4).map { Airport(icao: "K00\($0)") }
        var flights: [Flight] = []
        for i in 0..<12 {
            let flight = Flight(ident: "F\(i)")
            context.insert(flight)
            flight.origin = airports[i % airports.count]
            flights.append(flight)
        }
        func expectInStep(_ airports: [Airport], _ flights: [Flight]) {
            for airport in airports {
                let idents = airport.flightsFrom.map(\.ident)
                #expect(Set(idents).count == idents.count, "\(airport.icao) holds a flight twice: \(idents)")
                #expect(Set(idents) == Set(flights.filter { $0.origin === airport }.map(\.ident)))
            }
        }
        var seed: UInt64 = 3
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for round in 0..<3 {
            for _ in 0..<200 {
                let flight = flights[next(flights.count)], airport = airports[next(airports.count)]
                switch next(4) {
                case 0: flight.origin = airport
                case 1: flight.origin = nil
                case 2: if !airport.flightsFrom.contains(where: { $0 === flight }) { airport.flightsFrom.append(flight) }
                default: airport.flightsFrom.removeAll { $0 === flight }
                }
            }
            expectInStep(airports, flights)
            if round < 2 { try context.save() }
            expectInStep(airports, flights)
        }
        try context.save()
        let other = ModelContext(container)
        let otherAirports = try other.fetch(FetchDescriptor<Airport>())
        expectInStep(otherAirports, try other.fetch(FetchDescriptor<Flight>()))
    }

    /// Members leaving a committed list in one save through their side of the relationship —
    /// moved to another list, set to nil, deleted, set to nil and back, an unsaved insert put
    /// in and out again — while the list itself is never assigned: another context sees the
    /// list as this one did before the save, with exactly the members that stayed.
    @Test func membersLeavingAListInOneSaveAreWhatTheSaveWrites() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let sfo = Airport(icao: "KSFO"), lax = Airport(icao: "KLAX")
        context.insert(sfo)
        context.insert(lax)
        let flights = (1...7).map { Flight(ident: "F\($0)") }
        for flight in flights {
            context.insert(flight)
            flight.origin = sfo
        }
        try context.save()

        flights[0].origin = nil        // out
        context.delete(flights[1])     // deleted
        flights[2].origin = lax        // moved
        flights[3].origin = nil        // out and back
        flights[3].origin = sfo
        let unsaved = Flight(ident: "N1")
        context.insert(unsaved)
        unsaved.origin = sfo           // in and out before any save
        unsaved.origin = nil
        let before = sfo.flightsFrom.map(\.ident)
        #expect(Set(before) == ["F4", "F5", "F6", "F7"])
        try context.save()
        #expect(sfo.flightsFrom.map(\.ident) == before)

        let other = ModelContext(container)
        let airports = try other.fetch(FetchDescriptor<Airport>())
        let otherSFO = try #require(airports.first { $0.icao == "KSFO" }), otherLAX = try #require(airports.first { $0.icao == "KLAX" })
        #expect(otherSFO.flightsFrom.map(\.ident) == before)
        #expect(otherLAX.flightsFrom.map(\.ident) == ["F3"])
        let byIdent = Dictionary(uniqueKeysWithValues: try other.fetch(FetchDescriptor<Flight>()).map { ($0.ident, $0) })
        #expect(byIdent["F2"] == nil)
        #expect(byIdent["F1"]?.origin == nil && byIdent["N1"]?.origin == nil)
        #expect(byIdent["F4"]?.origin?.icao == "KSFO" && byIdent["F3"]?.origin?.icao == "KLAX")
    }
}
