import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// Point lookups load early the attributes the context's objects are read for
/// (AttributeReadAhead): learned from reads, and never changing an answer.
@Suite struct ReadAheadTests {
    @Test func lookupsLearnWhatTheirObjectsAreReadFor() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        for i in 0..<200 {
            let flight = Flight(ident: "UAL\(i)")
            flight.routeDistance = i * 10
            writer.insert(flight)
        }
        try writer.save()
        let entity = try #require(container.schema.entity(for: Flight.self))
        let distance = try #require(entity.attribute(named: "routeDistance")).index
        let status = try #require(entity.attribute(named: "status")).index

        let reader = ModelContext(container)
        // Past a turn, reading only the distance: that is what lookups load, and answers are right.
        for i in 0..<(2 * AttributeReadAhead.turn) {
            let found = try reader.fetchUnique(\Flight.ident, equals: "UAL\(i % 200)")
            let flight = try #require(found)
            #expect(flight.routeDistance == (i % 200) * 10)
        }
        #expect(reader.link.readAhead.attributesToLoad(entity: entity.index) == 1 << UInt64(distance))
        // Reading the status too, through `#Predicate` lookups: both, from the next turn on.
        for i in 0..<(2 * AttributeReadAhead.turn) {
            let found = try reader.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "UAL7" }))
            #expect(found.map(\.routeDistance) == [70] && found.map(\.status) == [.scheduled])
            _ = i
        }
        #expect(reader.link.readAhead.attributesToLoad(entity: entity.index) == (1 << UInt64(distance)) | (1 << UInt64(status)))
        #expect(try reader.fetchUnique(\Flight.ident, equals: "none") == nil)
    }
}
