import Foundation
import GraphStoreMacrosFree
import GraphStoreModelTestSupport
import Testing

/// The README's example, verbatim but for the store's location: it must keep compiling and working.
enum Readme {
    final class Airport: Model {
        @Attribute(.unique) var icao: String = ""
        @Attribute var name: String = ""
        @Relationship(inverse: \Flight.destination) var arrivals: [Flight] = []
        convenience init(icao: String) { self.init(); self.icao = icao }
    }

    final class Flight: Model {
        @Attribute(.unique) var ident: String = ""
        @Attribute var routeDistance: Int = 0
        @Relationship var destination: Airport?
        convenience init(ident: String) { self.init(); self.ident = ident }
    }
}

@Suite struct ReadmeExampleTests {
    @Test func theReadmeExampleWorks() throws {
        typealias Airport = Readme.Airport
        typealias Flight = Readme.Flight
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }

        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let flight = Flight(ident: "UAL123")
        context.insert(flight)
        flight.destination = Airport(icao: "KSFO")     // inserted too; KSFO.arrivals now holds the flight
        flight.routeDistance = 2_565
        try context.save()                              // one transaction, synced before save returns

        let long = try context.fetch(FetchDescriptor<Flight>(
            predicate: #Predicate { $0.routeDistance > 1000 },
            sortBy: [SortDescriptor(\.routeDistance, order: .reverse)]))
        #expect(long.map(\.ident) == ["UAL123"])
        #expect(flight.destination?.arrivals.map(\.ident) == ["UAL123"])
    }
}
