import Foundation
import GraphStoreModelTestSupport
import Observation
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// The identity map holds objects without retaining them; objects take themselves out when
/// freed (ObjectRegistry). These check that nothing dangles: not after a free, not when a row's
/// entry was replaced, not when another thread's merge races an object's deinit.
@Suite struct ObjectRegistryTests {
    func stored(_ count: Int) throws -> (ModelContainer, [PersistentIdentifier]) {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let loader = ModelContext(container)
        let flights = (0..<count).map { i -> Flight in
            let flight = Flight(ident: "F\(i)")
            flight.routeDistance = i
            return flight
        }
        flights.forEach(loader.insert)
        try loader.save()
        return (container, flights.map(\.persistentModelID))
    }

    /// Flights of `airports` airports, `perAirport` each, saved; a fresh context on them.
    func flightsFrom(airports: Int, perAirport: Int) throws -> ModelContext {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let loader = ModelContext(container)
        for a in 0..<airports {
            let airport = Airport(icao: "A\(a)")
            for f in 0..<perAirport {
                let flight = Flight(ident: "F\(a)-\(f)")
                loader.insert(flight)
                flight.origin = airport
            }
        }
        try loader.save()
        return ModelContext(container)
    }

    /// A to-one target nobody holds is made once, not once a read: the context keeps the last
    /// targets it made (RecentTargets).
    @Test func toOneTargetsAreKeptAcrossReads() throws {
        let context = try flightsFrom(airports: 2, perAirport: 100)
        let flights = try context.fetch(FetchDescriptor<Flight>())
        for flight in flights { #expect(flight.origin?.icao.hasPrefix("A") == true) }
        // Every flight, and the two airports though nothing here holds them.
        #expect(context.registry.count == 202)
        let first = try #require(flights.first?.origin)
        #expect(flights.allSatisfy { $0.origin === first || $0.origin?.icao != first.icao })
    }

    /// The kept targets are bounded: a walk over more targets than that keeps no more.
    @Test func keptTargetsAreBounded() throws {
        let airports = RecentTargets.capacity + 300
        let context = try flightsFrom(airports: airports, perAirport: 1)
        let flights = try context.fetch(FetchDescriptor<Flight>())
        #expect(Set(flights.compactMap { $0.origin?.icao }).count == airports)
        #expect(context.registry.count == flights.count + RecentTargets.capacity)
    }

    @Test func freedObjectsLeaveTheRegistryAndHeldOnesStayTheSame() throws {
        let (container, ids) = try stored(500)
        let context = ModelContext(container)
        let held = try #require(context.model(for: ids[7]) as? Flight)
        do {
            let all = ids.compactMap { context.model(for: $0) as? Flight }
            #expect(all.count == 500 && context.registry.count == 500)
            #expect(all[7] === held)
        }
        // Only the held object is left; asking again gives it back, not a copy.
        #expect(context.registry.count == 1)
        #expect(context.model(for: ids[7]) === held)
        let again = try #require(context.model(for: ids[8]) as? Flight)
        #expect(again.ident == "F8" && again.routeDistance == 8)
    }

    @Test func aFreedObjectLeavesANewerEntryForItsRowAlone() throws {
        let (container, ids) = try stored(2)
        let context = ModelContext(container)
        let entity = try #require(container.schema.entity(named: "Flight")).index
        let replacement = Flight(ident: "stand-in")
        do {
            let first = try #require(context.model(for: ids[0]) as? Flight)
            // The row's entry now names another object; the first one is freed after.
            context.registry.register(replacement, entity: entity, row: first.persistentModelID.row)
        }
        #expect(context.registry.object(entity: entity, row: ids[0].row) === replacement)
    }

    /// Rows are kept in pages of the registry's own; a page goes when its last object does.
    @Test func freedObjectsGiveBackTheirPages() throws {
        let (container, ids) = try stored(500)
        let context = ModelContext(container)
        do {
            let all = try context.fetch(FetchDescriptor<Flight>())
            #expect(all.count == 500 && context.registry.pageCount >= 500 / 64)
        }
        #expect(context.registry.count == 0 && context.registry.pageCount == 0)
        #expect((context.model(for: ids[499]) as? Flight)?.routeDistance == 499)
    }

    /// An entry whose object is not of its entity's type, or does not take itself out when
    /// freed (held weakly), is boxed; both are found, replaced and taken out like the others.
    @Test func boxedEntriesAreFoundReplacedAndTakenOut() throws {
        let (container, ids) = try stored(2)
        let context = ModelContext(container)
        let entity = try #require(container.schema.entity(named: "Flight")).index
        let first = try #require(context.model(for: ids[0]) as? Flight)
        let other = Airport(icao: "KSFO")
        context.registry.register(other, entity: entity, row: ids[1].row)
        #expect(context.registry.object(entity: entity, row: ids[1].row) === other)
        #expect(context.registry.object(entity: entity, row: ids[0].row) === first)
        do {
            let weaklyHeld = UnknownEntityModel()
            context.registry.register(weaklyHeld, entity: entity, row: ids[1].row)
            #expect(context.registry.object(entity: entity, row: ids[1].row) === weaklyHeld)
            #expect(context.registry.count == 2)
        }
        // Freed: its weak entry answers nothing until the row is taken out.
        #expect(context.registry.object(entity: entity, row: ids[1].row) == nil)
        context.registry.unregister(entity: entity, row: ids[1].row)
        #expect(context.registry.count == 1)
        #expect(context.registry.object(entity: entity, row: ids[0].row) === first)
    }

    @Test func objectsOutliveTheirContextAndLeaveItsRegistry() throws {
        let (container, ids) = try stored(3)
        var context: ModelContext? = ModelContext(container)
        let registry = try #require(context).registry
        var flight = context?.model(for: ids[1]) as? Flight
        context = nil
        #expect(flight?.ident == "F1")
        #expect(registry.count == 1)
        flight = nil
        #expect(registry.count == 0)
    }

    /// Other threads' saves look up this context's objects (to tell their observers) while this
    /// thread makes and frees them: a lookup must never retain an object being freed.
    @Test func mergesFromOtherThreadsRaceObjectsBeingFreed() async throws {
        let (container, ids) = try stored(64)
        let reader = ModelContext(container)
        var seen = 0
        try await whileCommittingElsewhere(in: container, edit: { context, round in
            for id in ids { (context.model(for: id) as? Flight)?.status = round % 2 == 0 ? .enroute : .landed }
        }) {
            for round in 0..<registryRaceRounds {
                // Objects made, observed and dropped, over and over, while merges come in.
                let flights = ids.compactMap { reader.model(for: $0) as? Flight }
                for flight in flights where flight.routeDistance == round % 64 { seen += 1 }
                if round % 3 == 0 {
                    withObservationTracking { _ = flights.first?.status } onChange: {}
                }
            }
        }
        #expect(seen == registryRaceRounds)
        #expect(reader.registry.count == 0)
    }
}
