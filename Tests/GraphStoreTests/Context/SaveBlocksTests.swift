import Foundation
import Testing
import GraphStoreMacrosFree
import GraphStoreModelTestSupport

/// A save writes its new rows and changed values as blocks, entity by entity. What it wrote
/// reads back the same from the context, from another context, and from the log after a
/// reopen: objects of several entities inserted in any order, unset attributes taking their
/// defaults, nulls, changes to some attributes of some objects, links and deletes beside them.
@Suite struct SaveBlocksTests {
    @Test func aSaveOfManyObjectsReadsBackAfterAReopen() throws {
        let store = TemporaryStore()
        var expected: [String: (distance: Int, status: FlightStatus, off: Date?, origin: String?, airline: String?)] = [:]
        do {
            let container = try store.container(Flight.self, Airport.self, Airline.self, durability: .full)
            let context = ModelContext(container)
            let airports = (0..<30).map { i -> Airport in
                let airport = Airport()
                airport.icao = "K\(i)"
                airport.latitude = Double(i) / 3
                return airport
            }
            let airlines = (0..<5).map { i -> Airline in
                let airline = Airline()
                airline.code = "A\(i)"
                return airline
            }
            // Entities interleaved, as an importer inserts them.
            for i in 0..<2_000 {
                if i < airports.count { context.insert(airports[i]) }
                if i < airlines.count { context.insert(airlines[i]) }
                let flight = Flight()
                flight.ident = "F\(i)"
                context.insert(flight)
                if i % 3 != 0 { flight.routeDistance = i }  // else the default
                flight.status = i % 2 == 0 ? .enroute : .scheduled
                flight.actualOff = i % 4 == 0 ? nil : Date(timeIntervalSince1970: Double(i))
                flight.origin = i % 5 == 0 ? nil : airports[i % airports.count]
                flight.airline = airlines[i % airlines.count]
            }
            try context.save()
            // Changes to some attributes of some of them, a delete and a new object, in one save.
            let flights = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
            for flight in flights where flight.ident.hasSuffix("7") {
                flight.routeDistance += 10_000
                flight.origin = nil
            }
            context.delete(try #require(flights.first { $0.ident == "F10" }))
            let late = Flight()
            late.ident = "LATE"
            context.insert(late)
            late.airline = airlines[0]
            try context.save()
            for flight in try context.fetch(FetchDescriptor<Flight>()) {
                expected[flight.ident] = (flight.routeDistance, flight.status, flight.actualOff, flight.origin?.icao, flight.airline?.code)
            }
            #expect(expected.count == 2_000)
            #expect(expected["F10"] == nil && expected["LATE"]?.airline == "A0")
            #expect(expected["F3"]?.distance == 0 && expected["F4"]?.distance == 4 && expected["F17"]?.distance == 10_017)
            #expect(expected["F17"]?.origin == nil && expected["F8"]?.origin == "K8" && expected["F5"]?.origin == nil)
            #expect(expected["F4"]?.off == nil && expected["F6"]?.off == Date(timeIntervalSince1970: 6))
            // Another context sees the same.
            let other = ModelContext(container)
            #expect(try other.fetchCount(FetchDescriptor<Flight>()) == 2_000)
            #expect(try other.fetchUnique(\Flight.ident, equals: "F27")?.routeDistance == 10_000)
            #expect(try other.fetchUnique(\Airport.icao, equals: "K8")?.flightsFrom.count == expected.values.filter { $0.origin == "K8" }.count)
            container.close()
        }
        let reopened = try store.container(Flight.self, Airport.self, Airline.self, durability: .full)
        defer { reopened.close() }
        let context = ModelContext(reopened)
        let flights = try context.fetch(FetchDescriptor<Flight>())
        #expect(flights.count == expected.count)
        for flight in flights {
            let want = try #require(expected[flight.ident])
            #expect(flight.routeDistance == want.distance && flight.status == want.status && flight.actualOff == want.off
                    && flight.origin?.icao == want.origin && flight.airline?.code == want.airline, "\(flight.ident)")
        }
        // The indexed attribute's order after the reopen follows the values.
        let byDistance = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance >= 10_000 }))
        #expect(Set(byDistance.map(\.ident)) == Set(expected.filter { $0.value.distance >= 10_000 }.map(\.key)))
    }

    /// A save lets go of what it saved: inserts nobody else holds are freed, the ones held
    /// are clean, persistent and found by their rows.
    @Test func aSaveLetsGoOfTheObjectsItSaved() throws {
        let container = try ModelContainer(for: Flight.self, Airport.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.autosaveEnabled = false
        final class Weak { weak var flight: Flight? }
        let unheld = (0..<50).map { i -> Weak in
            let flight = Flight(ident: "U\(i)")
            context.insert(flight)
            flight.origin = Airport(icao: "K\(i % 3)")
            let weak = Weak()
            weak.flight = flight
            return weak
        }
        let held = Flight(ident: "HELD")
        context.insert(held)
        try context.save()
        #expect(unheld.allSatisfy { $0.flight == nil })
        #expect(!context.hasChanges && context.insertedModelsArray.isEmpty)
        #expect(held.persistentModelID.row > 0 && !held.hasChanges)
        #expect(try context.fetchUnique(\Flight.ident, equals: "HELD") === held)
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 51)
        #expect(try context.fetch(FetchDescriptor<Airport>()).map { $0.flightsFrom.count }.reduce(0, +) == 50)
    }

    /// New objects whose unique value committed rows have take those rows over (SwiftData's
    /// upsert): every attribute of the row becomes the new object's, what it left unset its
    /// default, beside plain inserts and changes of the same save; the same after a reopen.
    @Test func upsertsSetEveryAttributeOfTheRowTheyTakeOver() throws {
        let store = TemporaryStore()
        do {
            let container = try store.container(Flight.self, Airport.self, Airline.self, durability: .full)
            let context = ModelContext(container)
            let sfo = Airport()
            sfo.icao = "KSFO"
            for i in 0..<300 {
                let flight = Flight()
                flight.ident = "F\(i)"
                context.insert(flight)
                flight.routeDistance = 1_000 + i
                flight.status = .enroute
                flight.actualOff = Date(timeIntervalSince1970: Double(i))
                flight.origin = sfo
            }
            try context.save()
            let loader = ModelContext(container)
            for i in stride(from: 0, to: 400, by: 2) {
                let flight = Flight()
                flight.ident = "F\(i)"
                loader.insert(flight)
                if i % 4 == 0 { flight.routeDistance = i }  // else left at its default
            }
            try #require(try loader.fetchUnique(\Flight.ident, equals: "F1")).routeDistance = 77
            let upserted = try #require(loader.insertedModelsArray.compactMap { $0 as? Flight }.first { $0.ident == "F2" })
            try loader.save()
            // The new object is the row it took over, registered under it, clean.
            #expect(!loader.hasChanges)
            #expect(try loader.fetchUnique(\Flight.ident, equals: "F2") === upserted)
            #expect(upserted.routeDistance == 0 && upserted.origin?.icao == "KSFO")
            container.close()
        }
        let reopened = try store.container(Flight.self, Airport.self, Airline.self, durability: .full)
        defer { reopened.close() }
        let reader = ModelContext(reopened)
        let flights = try reader.fetch(FetchDescriptor<Flight>())
        #expect(flights.count == 350)
        for flight in flights {
            let i = try #require(Int(flight.ident.dropFirst()))
            if i % 2 == 1 {
                #expect(flight.routeDistance == (i == 1 ? 77 : 1_000 + i) && flight.status == .enroute && flight.origin?.icao == "KSFO",
                        "\(flight.ident)")
            } else {
                #expect(flight.routeDistance == (i % 4 == 0 ? i : 0) && flight.status == Flight().status && flight.actualOff == nil,
                        "\(flight.ident)")
                // Relationships the new object did not set stay the row's.
                #expect(flight.origin?.icao == (i < 300 ? "KSFO" : nil), "\(flight.ident)")
            }
        }
    }
}
