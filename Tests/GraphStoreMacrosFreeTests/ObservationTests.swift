import Foundation
import Observation
import Synchronization
import Testing
@testable import GraphStoreMacrosFree

@Suite struct ObservationTests {
    final class Flag: @unchecked Sendable {
        private let lock = NSLock()
        private var fired = 0
        func fire() { lock.withLock { fired += 1 } }
        var count: Int { lock.withLock { fired } }
    }

    func observe(_ body: @escaping () -> Void) -> Flag {
        let flag = Flag()
        withObservationTracking(body) { flag.fire() }
        return flag
    }

    @Test func aPropertyChangedInThisContextFires() throws {
        let context = ModelContext(try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        let distance = observe { _ = flight.routeDistance }
        let ident = observe { _ = flight.ident }
        flight.routeDistance = 2_400
        #expect(distance.count == 1)
        #expect(ident.count == 0)
        // An unmanaged object is observable too.
        let loose = Flight(ident: "X")
        let status = observe { _ = loose.status }
        loose.status = .landed
        #expect(status.count == 1)
    }

    @Test func aSaveMergedFromAnotherContextFires() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        let flight = Flight(ident: "UAL1")
        writer.insert(flight)
        try writer.save()

        let reader = ModelContext(container)
        let seen = try #require(try reader.fetch(FetchDescriptor<Flight>()).first)
        let distance = observe { _ = seen.routeDistance }
        let origin = observe { _ = seen.origin }
        flight.routeDistance = 999
        #expect(distance.count == 0)  // not saved yet
        try writer.save()
        #expect(distance.count == 1)
        #expect(seen.routeDistance == 999)  // visible as soon as the save returns
        #expect(origin.count == 0)
        flight.origin = Airport(icao: "KORD")
        try writer.save()
        #expect(origin.count == 1)
        #expect(seen.origin?.icao == "KORD")
    }

    @Test func inverseUpkeepFiresOnTheOtherSide() throws {
        let context = ModelContext(try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let sfo = Airport(icao: "KSFO")
        context.insert(sfo)
        let arrivals = observe { _ = sfo.flightsTo }
        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        flight.destination = sfo
        #expect(arrivals.count == 1)
    }
}
