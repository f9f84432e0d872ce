import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// Saves whose records are written as they are encoded (every record here, however small; by
/// default only large ones are): what they write reads back. (One whose write fails:
/// ContainerTests.aFailedSaveLeavesNothingBehind.)
@Suite struct StreamedSaveTests {
    func configuration(_ store: TemporaryStore) -> ModelConfiguration {
        var configuration = ModelConfiguration(url: store.url, durability: .full, segmentSize: 1 << 20)
        configuration.streamedRecordBytes = 0
        return configuration
    }

    static func describe(_ context: ModelContext) throws -> [String] {
        let airports = try context.fetch(FetchDescriptor<Airport>(sortBy: [SortDescriptor(\.icao)]))
        let flights = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        return airports.map { "\($0.icao) \($0.name) from \($0.flightsFrom.map(\.ident)) to \($0.flightsTo.map(\.ident))" }
            + flights.map { "\($0.ident) \($0.routeDistance) \($0.origin?.icao ?? "-") \($0.destination?.icao ?? "-")" }
    }

    /// Inserts with links, then updates, new links and deletes, each save streamed.
    @Test func streamedSavesReadBackAsTheyWereMade() throws {
        let store = TemporaryStore()
        var expected: [String] = []
        do {
            let container = try ModelContainer(for: Airport.self, Flight.self, configurations: configuration(store))
            let context = ModelContext(container)
            let airports = (0..<4).map { Airport(icao: "K\($0)", name: "Airport \($0)") }
            for airport in airports { context.insert(airport) }
            let flights = (0..<60).map { Flight(ident: String(format: "F%02d", $0)) }
            for (i, flight) in flights.enumerated() {
                context.insert(flight)
                flight.routeDistance = i * 10
                flight.origin = airports[i % 4]
                flight.destination = airports[(i + 1) % 4]
            }
            try context.save()
            for flight in flights where flight.routeDistance % 30 == 0 { flight.destination = airports[0] }
            for flight in flights.prefix(5) { context.delete(flight) }
            airports[2].name = "Renamed"
            try context.save()
            expected = try Self.describe(context)
            container.close()
        }
        #expect(expected.count == 4 + 55)
        let reopened = try ModelContainer(for: Airport.self, Flight.self, configurations: configuration(store))
        defer { reopened.close() }
        #expect(try Self.describe(ModelContext(reopened)) == expected)
    }
}
