import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStoreMacrosFree

@Suite struct IdentityAndCodableTests {
    @Test func modelsAreIdentifiableByIdentifierAndHashableByIdentity() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let a = Flight(ident: "A"), b = Flight(ident: "B")
        #expect(a.id.isTemporary)
        context.insert(a)
        context.insert(b)
        #expect(!a.id.isTemporary && a.id != b.id)
        #expect(a.id == a.persistentModelID && a.id.entityName == "Flight")
        #expect(Set([a, b, a]).count == 2)
        try context.save()
        // One object per identifier per context.
        let again = try context.fetch(FetchDescriptor<Flight>()).first { $0.ident == "A" }
        #expect(again === a)
        #expect(context.model(for: a.id) === a)
        let other = ModelContext(container)
        let there = try #require(other.model(for: a.id) as? Flight)
        #expect(there !== a && there.ident == "A" && there.id == a.id)
        // Identifiers are Codable.
        let data = try JSONEncoder().encode(a.id)
        #expect(try JSONDecoder().decode(PersistentIdentifier.self, from: data) == a.id)
    }

    @Test func modelsAreCodableThroughTheirSchema() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let ord = Airport(icao: "KORD", name: "O'Hare")
        context.insert(ord)
        let flight = Flight(ident: "UAL7")
        context.insert(flight)
        flight.routeDistance = 1_846
        flight.status = .enroute
        flight.actualOff = Date(timeIntervalSince1970: 1_700_000_000)
        flight.destination = ord
        try context.save()

        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .iso8601
        let json = try encoder.encode(flight)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains("\"ident\":\"UAL7\""))
        #expect(text.contains("\"status\":\"enroute\""))
        #expect(text.contains("\"actualOff\":\"2023-11-14T22:13:20Z\""))
        #expect(text.contains("\"destination\":{\"entity\":\"Airport\",\"row\":\(ord.id.row)}"))

        // Decoding makes an unmanaged copy; inserting it resolves relationships by identifier.
        flight.ident = "UAL7-old"
        try context.save()
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let copy = try decoder.decode(Flight.self, from: json)
        #expect(copy.ident == "UAL7" && copy.routeDistance == 1_846 && copy.status == .enroute)
        #expect(copy.actualOff == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(copy.modelContext == nil)
        context.insert(copy)
        #expect(copy.destination === ord)
        #expect(ord.flightsTo.count == 2)

        let everything = Everything()
        everything.gates = [Gate(terminal: "B", number: 2)]
        everything.scores = ["x": 1]
        everything.optionalGate = Gate(terminal: "C", number: 3)
        let decoded = try JSONDecoder().decode(Everything.self, from: try JSONEncoder().encode(everything))
        #expect(decoded.gates == everything.gates && decoded.scores == ["x": 1] && decoded.optionalGate == everything.optionalGate)
        #expect(decoded.uuid == everything.uuid && decoded.decimal == everything.decimal)
    }
}
