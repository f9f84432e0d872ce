import Foundation
import Testing
@testable import GraphStoreMacrosFree

@Suite struct SmokeTests {
    @Test func insertSaveReopen() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gs-smoke-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(url: dir))
            let context = ModelContext(container)
            let sfo = Airport(icao: "KSFO", name: "San Francisco")
            context.insert(sfo)
            let f = Flight(ident: "UAL1")
            context.insert(f)
            f.origin = sfo
            #expect(sfo.flightsFrom.map(\.ident) == ["UAL1"])
            try context.save()
            #expect(sfo.flightsFrom.map(\.ident) == ["UAL1"])
        }
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(url: dir))
        let context = ModelContext(container)
        let flights = try context.fetch(FetchDescriptor<Flight>())
        #expect(flights.map(\.ident) == ["UAL1"])
        #expect(flights.first?.origin?.icao == "KSFO")
        #expect(flights.first?.origin?.flightsFrom.count == 1)
    }
}
