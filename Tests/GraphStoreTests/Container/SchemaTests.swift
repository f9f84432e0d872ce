import Foundation
import GraphStoreModelTestSupport
import Observation
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog
@_spi(GraphStoreInternals) import GraphStoreGraph

final class Unstorable {
    let label: String
    init(label: String = "declared") { self.label = label }
}

final class BadType: Model {
    @Attribute var name: String = ""
    @Attribute var handle: Unstorable = Unstorable()
}

final class Terminal: Model {
    @Attribute var code: String = ""
    @Relationship var departures: [Leg] = []
    @Relationship var arrivals: [Leg] = []
}

final class Leg: Model {
    @Attribute var number: Int = 0
    @Relationship var from: Terminal?
    @Relationship var to: Terminal?
}

final class WrongInverse: Model {
    @Attribute var name: String = ""
    @Relationship(inverse: \Flight.ident) var flights: [Flight] = []
}

final class Empty: Model {
    @Transient var scratch = 0
}

enum First { final class Thing: Model { @Attribute var a: Int = 0 } }
enum Second { final class Thing: Model { @Attribute var b: Int = 0 } }

@Suite struct SchemaTests {
    @Test func discoveryFindsEntitiesAttributesAndRelationships() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let schema = container.schema
        // Related types come along through relationships.
        #expect(Set(schema.entities.map(\.name)) == ["Flight", "Airport", "Airline"])
        let flight = try #require(schema.entity(named: "Flight"))
        #expect(flight.attributes.map(\.name) == ["ident", "routeDistance", "status", "actualOff"])
        #expect(flight.attribute(named: "ident")?.isUnique == true)
        #expect(flight.attribute(named: "routeDistance")?.isIndexed == true)
        #expect(flight.attribute(named: "status")?.type == AttributeType(kind: .string, isOptional: false))
        #expect(flight.attribute(named: "status")?.defaultValue == .string("scheduled"))
        #expect(flight.attribute(named: "actualOff")?.type == AttributeType(kind: .date, isOptional: true))
        let airport = try #require(schema.entity(named: "Airport"))
        #expect(airport.attribute(named: "lookups") == nil)  // @Transient
        #expect(airport.relationship(named: "flightsFrom")?.deleteRule == .cascade)
        #expect(airport.relationship(named: "flightsFrom")?.isToMany == true)
        #expect(flight.relationship(named: "origin")?.isToMany == false)
        #expect(schema.fingerprint.count == 16)
    }

    @Test func inversesAreDeclaredOrInferred() throws {
        let schema = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)).schema
        func inverseName(_ entity: String, _ relationship: String) -> String? {
            schema.entity(named: entity)?.relationship(named: relationship)?.inverseName
        }
        #expect(inverseName("Airport", "flightsFrom") == "origin")
        #expect(inverseName("Flight", "origin") == "flightsFrom")
        #expect(inverseName("Flight", "destination") == "flightsTo")
        // Airline.flights ↔ Flight.airline: one relationship each way, so inferred.
        #expect(inverseName("Airline", "flights") == "airline")
        #expect(inverseName("Flight", "airline") == "flights")
    }

    @Test func keyPathsMapToTheirProperties() throws {
        let schema = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)).schema
        let flight = try #require(schema.entity(named: "Flight"))
        #expect(flight.property(for: \Flight.routeDistance)?.name == "routeDistance")
        #expect(flight.property(for: \Flight.destination)?.name == "destination")
        if case .relationship? = flight.property(for: \Flight.destination) {} else { Issue.record("destination is a relationship") }
        if case .attribute? = flight.property(for: \Flight.ident) {} else { Issue.record("ident is an attribute") }
        #expect(flight.property(for: \Flight.persistentModelID) == nil)
        let airport = try #require(schema.entity(named: "Airport"))
        #expect(airport.property(for: \Airport.lookups) == nil)
        #expect(airport.property(for: \Airport.flightsTo)?.name == "flightsTo")
    }

    @Test func anUnsupportedTypeNamesTheClassAndProperty() {
        #expect(throws: SchemaError.unsupportedType(entity: "BadType", property: "handle", type: "Unstorable")) {
            try ModelContainer(for: BadType.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
    }

    /// An object of a class the schema refuses still reads, even under observation tracking: the
    /// refused property (which has no slot, so nowhere to keep a value) as its declared initial
    /// value, the others as usual.
    @Test func anObjectOfARefusedClassStillReads() {
        let object = BadType()
        #expect(object.handle.label == "declared")
        object.name = "x"
        object.handle = Unstorable(label: "assigned")
        var read: (name: String, handle: Unstorable)?
        withObservationTracking { read = (object.name, object.handle) } onChange: {}
        #expect(read?.name == "x" && read?.handle.label == "declared")
    }

    @Test func anAmbiguousInverseIsAnError() {
        #expect(throws: SchemaError.ambiguousInverse(entity: "Terminal", relationship: "departures", candidates: ["Leg.from", "Leg.to"])) {
            try ModelContainer(for: Terminal.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
    }

    @Test func anInverseThatIsNotARelationshipIsAnError() {
        #expect(throws: SchemaError.self) {
            try ModelContainer(for: WrongInverse.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        do {
            _ = try ModelContainer(for: WrongInverse.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        } catch let SchemaError.invalidInverse(entity, relationship, _) {
            #expect(entity == "WrongInverse" && relationship == "flights")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func duplicateNamesAndEmptyModelsAreErrors() {
        #expect(throws: SchemaError.duplicateEntity(name: "Thing")) {
            try ModelContainer(for: First.Thing.self, Second.Thing.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect(throws: SchemaError.noPersistentProperties(entity: "Empty")) {
            try ModelContainer(for: Empty.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
    }

    @Test func theSchemaAndItsFingerprintAreRecordedInTheStore() throws {
        let store = TemporaryStore()
        let fingerprint = try store.container(Flight.self).schema.fingerprint
        var records: [SchemaRecord] = []
        _ = try TransactionLog.open(directory: store.url.path, options: LogOptions(readOnly: true)) { transaction in
            for case let .schema(payload) in transaction.operations { records.append(try SchemaRecord(decoding: payload)) }
        }
        #expect(records.count == 1)
        #expect(records.first?.fingerprint == fingerprint)
        #expect(records.first?.entities.map(\.name).sorted() == ["Airline", "Airport", "Flight"])
        // Reopening with the same models records nothing new.
        _ = try store.container(Flight.self)
        var count = 0
        _ = try TransactionLog.open(directory: store.url.path, options: LogOptions(readOnly: true)) { transaction in
            count += transaction.operations.filter { if case .schema = $0 { true } else { false } }.count
        }
        #expect(count == 1)
    }
}
