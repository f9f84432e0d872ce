import Foundation
import GraphStoreModelTestSupport
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

    /// Observation knows a property by its slot: attribute 0 (`ident`) and relationship 0
    /// (`origin`) are different properties, and each change fires only its own observers, from
    /// this context or merged from another's save.
    @Test func attributesAndRelationshipsOfTheSameSlotAreKeptApart() throws {
        #expect(ObservationKey.of(slot: 0, isRelationship: false) != ObservationKey.of(slot: 0, isRelationship: true))
        #expect(ObservationKey.of(slot: 300, isRelationship: true) == ObservationKey.of(slot: 300, isRelationship: true))
        let (flight, writer, reader) = try savedFlight()
        let ident = observe { _ = flight.ident }
        let origin = observe { _ = flight.origin }
        flight.origin = Airport(icao: "KSFO")
        #expect(origin.count == 1 && ident.count == 0)
        let seen = try #require(try reader.fetch(FetchDescriptor<Flight>()).first)
        let seenIdent = observe { _ = seen.ident }
        let seenOrigin = observe { _ = seen.origin }
        try writer.save()
        #expect(seenOrigin.count == 1 && seenIdent.count == 0)
    }

    /// A flight saved by one context, and another context of the same container to read it in.
    func savedFlight() throws -> (flight: Flight, writer: ModelContext, reader: ModelContext) {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        let flight = Flight(ident: "UAL1")
        writer.insert(flight)
        try writer.save()
        return (flight, writer, ModelContext(container))
    }

    @Test func aSaveMergedFromAnotherContextFires() throws {
        let (flight, writer, reader) = try savedFlight()
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

    // MARK: Registrars made by the first tracked read

    /// `Model.registrarBox`: whether the object has made its registrar.
    func hasRegistrar(_ model: Model) -> Bool { model.registrarBox.load(ordering: .acquiring) != 0 }

    @Test func theProbeSeesTrackingOnlyInsideIt() {
        #expect(!ObservationProbe.isTracking())
        var inside = false, nested = false
        withObservationTracking {
            inside = ObservationProbe.isTracking()
            withObservationTracking { nested = ObservationProbe.isTracking() } onChange: {}
        } onChange: {}
        #expect(inside && nested)
        #expect(!ObservationProbe.isTracking())
    }

    @Test func readsOutsideTrackingMakeNoRegistrarAndALaterTrackedReadIsObserved() throws {
        let (flight, writer, reader) = try savedFlight()
        let seen = try #require(try reader.fetchUnique(\Flight.ident, equals: "UAL1"))
        _ = (seen.routeDistance, seen.status, seen.origin)
        seen.actualOff = .distantPast  // a write of an unobserved object
        #expect(!hasRegistrar(seen))
        flight.routeDistance = 5
        try writer.save()  // merged into an object without observers
        #expect(seen.routeDistance == 5)

        let distance = observe { _ = seen.routeDistance }
        #expect(hasRegistrar(seen))
        flight.routeDistance = 6
        try writer.save()
        #expect(distance.count == 1)
        let off = observe { _ = seen.actualOff }
        seen.actualOff = nil
        #expect(off.count == 1)
    }

    @Test func aTrackedObjectFreesItsRegistrarWithIt() throws {
        var flight: Flight? = Flight(ident: "UAL1")
        _ = observe { [flight] in _ = flight?.routeDistance }
        let word = flight!.registrarBox.load(ordering: .acquiring)
        let address = try #require(UnsafeRawPointer(bitPattern: word))
        weak let box = Unmanaged<RegistrarBox>.fromOpaque(address).takeUnretainedValue()
        #expect(box != nil)
        flight = nil
        #expect(box == nil)
    }

    @Test func threadsTrackingOneObjectAtOnceShareItsRegistrar() async {
        // An unmanaged object may be read from any thread. Every thread's first tracked read
        // races to make the registrar; all must end up observing the one that won.
        let flight = Flight(ident: "UAL1")
        nonisolated(unsafe) let shared = flight
        let flags = await withTaskGroup(of: Flag.self) { group in
            for _ in 0..<8 {
                group.addTask { self.observe { _ = shared.routeDistance } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        flight.routeDistance = 1
        #expect(flags.map(\.count) == Array(repeating: 1, count: 8))
    }
}
