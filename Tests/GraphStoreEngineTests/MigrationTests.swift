import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog
@_spi(GraphStoreInternals) import GraphStoreGraph

// Versions of small models, one family per kind of change. Entity names come from the class
// name, so each version's class is the same entity.

enum CrewV1 {
    final class Crew: Model {
        @Attribute(.unique) var badge: String = ""
        @Attribute var name: String = ""
        @Attribute var retired: String = ""
        @Attribute var hours: Int16 = 0
        @Attribute var rank: UInt8 = 0
        @Attribute var base: String = ""
    }
}

enum CrewV2 {
    final class Crew: Model {
        @Attribute(.unique) var badge: String = ""
        @Attribute(originalName: "name") var fullName: String = ""   // renamed
        // `retired` removed
        @Attribute var hours: Int64 = 0                                // widened
        @Attribute var rank: Int32 = 0                                 // unsigned into a wider signed
        @Attribute(.indexed) var base: String = ""                     // index added
        @Attribute var nickname: String? = nil                         // added, optional
        @Attribute var seniority: Int = 3                              // added, with a default
    }
    final class Hangar: Model {                                        // entity added
        @Attribute(.unique) var code: String = ""
    }
}

enum CrewV3 {
    final class Crew: Model {
        @Attribute(.unique) var badge: String = ""
        @Attribute var fullName: Int = 0                               // String → Int: not lightweight
        @Attribute var hours: String = ""                              // Int64 → String: not lightweight
    }
}

enum GateV1 {
    final class Gate: Model {
        @Attribute var code: String = ""
    }
}

enum GateV2 {
    final class Gate: Model {
        @Attribute(.unique) var code: String = ""
    }
}

/// The Enroute-shaped custom stage: Airport.name splits into name and shortName, and
/// Flight.status (a String) becomes an Int-backed enum.
enum PortV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Port.self, Leg.self] }

    final class Port: Model {
        @Attribute(.unique) var icao: String = ""
        @Attribute var name: String = ""
        @Relationship(inverse: \Leg.destination) var arrivals: [Leg] = []
    }
    final class Leg: Model {
        @Attribute(.unique) var ident: String = ""
        @Attribute var status: String = ""
        @Relationship var destination: Port?
    }
}

enum LegPhase: Int, Codable { case scheduled = 0, enroute = 1, landed = 2, unknown = 9 }

enum PortV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Port.self, Leg.self] }

    final class Port: Model {
        @Attribute(.unique) var icao: String = ""
        @Attribute var name: String = ""
        @Attribute var shortName: String = ""
        @Relationship(inverse: \Leg.destination) var arrivals: [Leg] = []
    }
    final class Leg: Model {
        @Attribute(.unique) var ident: String = ""
        @Attribute var status: LegPhase = .unknown
        @Relationship var destination: Port?
    }
}

enum PortV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Port.self, Leg.self] }

    final class Port: Model {
        @Attribute(.unique) var icao: String = ""
        @Attribute var name: String = ""
        @Attribute var shortName: String = ""
        @Attribute var elevation: Int = 0
        @Relationship(inverse: \Leg.destination) var arrivals: [Leg] = []
    }
    final class Leg: Model {
        @Attribute(.unique) var ident: String = ""
        @Attribute var status: LegPhase = .unknown
        @Relationship var destination: Port?
    }
}

enum PortMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PortV1.self, PortV2.self, PortV3.self] }
    /// Statuses carried from the old models' context to the new one's, locked: tests run in
    /// parallel and more than one migrates with this plan.
    static let carried = Locked<[String: String]>([:])
    static var stages: [MigrationStage] {
        [
            .custom(fromVersion: PortV1.self, toVersion: PortV2.self, willMigrate: { context in
                for leg in try context.fetch(FetchDescriptor<PortV1.Leg>()) { carried.withLock { $0[leg.ident] = leg.status } }
            }, didMigrate: { context in
                for port in try context.fetch(FetchDescriptor<PortV2.Port>()) {
                    port.shortName = port.name.replacingOccurrences(of: " International", with: "")
                }
                for leg in try context.fetch(FetchDescriptor<PortV2.Leg>()) {
                    switch carried.withLock({ $0[leg.ident] }) {
                    case "Scheduled": leg.status = .scheduled
                    case "En Route": leg.status = .enroute
                    case "Landed": leg.status = .landed
                    default: leg.status = .unknown
                    }
                }
            }),
            .lightweight(fromVersion: PortV2.self, toVersion: PortV3.self),
        ]
    }
}

func storeFiles(_ url: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where name != "LOCK" {
        files[name] = try Data(contentsOf: url.appendingPathComponent(name))
    }
    return files
}

@Suite struct MigrationTests {
    func configuration(_ store: TemporaryStore, readOnly: Bool = false, asOf: UInt64? = nil) -> ModelConfiguration {
        maintainedConfiguration(store.url, readOnly: readOnly, asOf: asOf)
    }

    @Test func lightweightChangesApplyAutomaticallyAndAreRecorded() throws {
        let store = TemporaryStore()
        do {
            let container = try ModelContainer(for: [CrewV1.Crew.self], configurations: configuration(store))
            let context = ModelContext(container)
            for i in 0..<3 {
                let crew = CrewV1.Crew()
                crew.badge = "B\(i)"
                crew.name = "Name \(i)"
                crew.retired = "x"
                crew.hours = Int16(1000 + i)
                crew.rank = UInt8(200 + i)
                crew.base = i == 0 ? "SFO" : "ORD"
                context.insert(crew)
            }
            try context.save()
            container.close()
        }
        let container = try ModelContainer(for: [CrewV2.Crew.self, CrewV2.Hangar.self], configurations: configuration(store))
        let context = ModelContext(container)
        let crew = try context.fetch(FetchDescriptor<CrewV2.Crew>(sortBy: [SortDescriptor(\.badge)]))
        #expect(crew.map(\.fullName) == ["Name 0", "Name 1", "Name 2"])
        #expect(crew.map(\.hours) == [1000, 1001, 1002])
        #expect(crew.map(\.rank) == [200, 201, 202])
        #expect(crew.map(\.nickname) == [nil, nil, nil])
        #expect(crew.map(\.seniority) == [3, 3, 3])
        // The added index answers queries through the planner.
        let descriptor = FetchDescriptor<CrewV2.Crew>(predicate: #Predicate { $0.base == "ORD" })
        #expect(try context.fetchCount(descriptor) == 2)
        #expect(try context.explain(descriptor).contains("index"))
        context.insert(CrewV2.Hangar())
        try context.save()
        // Recorded as a schema transaction: the history has two schema versions.
        #expect(container.store!.schemaHistory.count == 2)
        container.close()
        // Narrowing back is not lightweight: refused, naming both attributes.
        #expect(throws: SchemaError.incompatible(differences: ["Crew.hours is stored as Int but declared as Int16",
                                                               "Crew.rank is stored as Int32 but declared as UInt8"])) {
            _ = try ModelContainer(for: [CrewV1.Crew.self], configurations: configuration(store))
        }
    }

    @Test func aChangeThatNeedsAMigrationIsRefusedListingEveryDifferenceAndTouchesNothing() throws {
        let store = TemporaryStore()
        do {
            let container = try ModelContainer(for: [CrewV2.Crew.self], configurations: configuration(store))
            let crew = CrewV2.Crew()
            crew.badge = "B1"
            crew.fullName = "Ada"
            let context = ModelContext(container)
            context.insert(crew)
            try context.save()
            container.close()
        }
        let before = try storeFiles(store.url)
        do {
            _ = try ModelContainer(for: [CrewV3.Crew.self], configurations: configuration(store))
            Issue.record("opened with incompatible models")
        } catch let SchemaError.incompatible(differences) {
            #expect(differences.count == 2)
            #expect(differences.contains("Crew.fullName is stored as String but declared as Int"))
            #expect(differences.contains("Crew.hours is stored as Int but declared as String"))
        }
        #expect(try storeFiles(store.url) == before)
    }

    @Test func addingAUniqueConstraintChecksTheStoredRows() throws {
        let store = TemporaryStore()
        do {
            let container = try ModelContainer(for: [GateV1.Gate.self], configurations: configuration(store))
            let context = ModelContext(container)
            for code in ["A1", "A2", "A1"] {
                let gate = GateV1.Gate()
                gate.code = code
                context.insert(gate)
            }
            try context.save()
            container.close()
        }
        let before = try storeFiles(store.url)
        do {
            _ = try ModelContainer(for: [GateV2.Gate.self], configurations: configuration(store))
            Issue.record("a unique constraint was added over duplicates")
        } catch let SchemaError.incompatible(differences) {
            #expect(differences.count == 1)
            #expect(differences[0].contains("Gate.code cannot become unique"))
            #expect(differences[0].contains("\"A1\" (rows 1 and 3)"))
        }
        #expect(try storeFiles(store.url) == before)
        // Without duplicates it is accepted, and enforced from then on.
        do {
            let container = try ModelContainer(for: [GateV1.Gate.self], configurations: configuration(store))
            let context = ModelContext(container)
            context.delete(try context.fetch(FetchDescriptor<GateV1.Gate>(predicate: #Predicate { $0.code == "A1" })).last!)
            try context.save()
            container.close()
        }
        let container = try ModelContainer(for: [GateV2.Gate.self], configurations: configuration(store))
        #expect(try ModelContext(container).fetchUnique(\GateV2.Gate.code, equals: "A2") != nil)
        // Dropping the constraint again is lightweight.
        container.close()
        #expect(try ModelContext(try ModelContainer(for: [GateV1.Gate.self], configurations: configuration(store))).fetchCount(FetchDescriptor<GateV1.Gate>()) == 2)
    }

    func seedPorts(_ store: TemporaryStore) throws -> UInt64 {
        let container = try ModelContainer(for: PortV1.models, configurations: configuration(store))
        let context = ModelContext(container)
        let sfo = PortV1.Port(), ord = PortV1.Port()
        sfo.icao = "KSFO"; sfo.name = "San Francisco International"
        ord.icao = "KORD"; ord.name = "Chicago O'Hare International"
        for (ident, status, port) in [("UAL1", "En Route", sfo), ("UAL2", "Landed", ord), ("AAL3", "Scheduled", sfo), ("DAL4", "Diverted", ord)] {
            let leg = PortV1.Leg()
            leg.ident = ident
            leg.status = status
            leg.destination = port
            context.insert(leg)
        }
        try context.save()
        let last = container.lastTransaction
        container.close()
        return last
    }

    @Test func aCustomStageSplitsANameAndMovesAStatusIntoAnEnum() throws {
        let store = TemporaryStore()
        let beforeMigration = try seedPorts(store)
        let container = try ModelContainer(for: PortV3.models, migrationPlan: PortMigrationPlan.self, configurations: configuration(store))
        let context = ModelContext(container)
        let ports = try context.fetch(FetchDescriptor<PortV3.Port>(sortBy: [SortDescriptor(\.icao)]))
        #expect(ports.map(\.shortName) == ["Chicago O'Hare", "San Francisco"])
        #expect(ports.map(\.name) == ["Chicago O'Hare International", "San Francisco International"])
        #expect(ports.map(\.elevation) == [0, 0])
        let legs = try context.fetch(FetchDescriptor<PortV3.Leg>(sortBy: [SortDescriptor(\.ident)]))
        #expect(legs.map(\.ident) == ["AAL3", "DAL4", "UAL1", "UAL2"])
        #expect(legs.map(\.status) == [.scheduled, .unknown, .enroute, .landed])
        #expect(legs.map { $0.destination?.icao } == ["KSFO", "KORD", "KSFO", "KORD"])
        #expect(ports.last!.arrivals.count == 2)
        // The schema history names every version; the custom stage was one transaction.
        let history = container.store!.schemaHistory
        // The seed was written without a plan, so its schema has no version identifier.
        #expect(history.map(\.record.versionIdentifier) == ["", "2.0.0", "3.0.0"])
        #expect(history[1].transaction == beforeMigration + 1)
        let migration = try container.fetchHistory(after: DefaultHistoryToken(transaction: beforeMigration, storeIdentifier: container.currentHistoryToken.storeIdentifier), fetchLimit: 1)
        #expect(migration.first?.author == "migration 1.0.0 → 2.0.0")
        try context.save()
        container.close()

        // Opening again runs nothing; the old version's models can open the past.
        let again = try ModelContainer(for: PortV3.models, migrationPlan: PortMigrationPlan.self, configurations: configuration(store))
        #expect(again.store!.schemaHistory.count == 3)
        #expect(again.lastTransaction == history.last!.transaction, "opening again commits nothing")
        again.close()
        let past = try ModelContainer(for: PortV1.models, configurations: configuration(store, readOnly: true, asOf: beforeMigration))
        let oldLegs = try ModelContext(past).fetch(FetchDescriptor<PortV1.Leg>(sortBy: [SortDescriptor(\.ident)]))
        #expect(oldLegs.map(\.status) == ["Scheduled", "Diverted", "En Route", "Landed"])
        // The new models cannot read the old version as it was (its statuses were strings).
        #expect(throws: SchemaError.self) {
            _ = try ModelContainer(for: PortV3.models, configurations: configuration(store, readOnly: true, asOf: beforeMigration))
        }
    }

    @Test func replayAcrossVersions() throws {
        let store = TemporaryStore()
        let beforeMigration = try seedPorts(store)
        do {
            let container = try ModelContainer(for: PortV3.models, migrationPlan: PortMigrationPlan.self, configurations: configuration(store))
            let context = ModelContext(container)
            let port = PortV3.Port()
            port.icao = "KDEN"
            port.elevation = 5434
            context.insert(port)
            try context.save()
            container.close()
        }
        let last = try StoreInspection.inspect(directory: store.url.path).lastTransaction
        let old = store.url.path + "-old", new = store.url.path + "-new"
        defer {
            try? FileManager.default.removeItem(atPath: old)
            try? FileManager.default.removeItem(atPath: new)
        }
        try LogReplay.replay(from: store.url.path, to: beforeMigration, into: old)
        try LogReplay.replay(from: store.url.path, to: last, into: new)
        let oldContainer = try ModelContainer(for: PortV1.models, configurations: maintainedConfiguration(URL(fileURLWithPath: old)))
        #expect(try ModelContext(oldContainer).fetchCount(FetchDescriptor<PortV1.Leg>()) == 4)
        let newContainer = try ModelContainer(for: PortV3.models, configurations: maintainedConfiguration(URL(fileURLWithPath: new)))
        let ports = try ModelContext(newContainer).fetch(FetchDescriptor<PortV3.Port>(sortBy: [SortDescriptor(\.icao)]))
        #expect(ports.map(\.icao) == ["KDEN", "KORD", "KSFO"])
        #expect(ports.map(\.shortName) == ["", "Chicago O'Hare", "San Francisco"])
        // A replay to before the migration migrates again when opened with the plan.
        oldContainer.close()
        let migrated = try ModelContainer(for: PortV3.models, migrationPlan: PortMigrationPlan.self,
                                          configurations: maintainedConfiguration(URL(fileURLWithPath: old)))
        #expect(try ModelContext(migrated).fetch(FetchDescriptor<PortV3.Leg>()).allSatisfy { $0.status != .unknown || $0.ident == "DAL4" })
    }

    @Test func aFailingStageLeavesTheOldVersionUntouched() throws {
        let store = TemporaryStore()
        _ = try seedPorts(store)
        let before = try storeFiles(store.url)
        #expect(throws: StageFailure.self) {
            _ = try ModelContainer(for: PortV2.models, migrationPlan: FailingPlan.self, configurations: configuration(store))
        }
        #expect(try storeFiles(store.url) == before)
        let container = try ModelContainer(for: PortV1.models, configurations: configuration(store))
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<PortV1.Leg>()) == 4)
    }
}

struct StageFailure: Error {}

enum FailingPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [PortV1.self, PortV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: PortV1.self, toVersion: PortV2.self, willMigrate: { context in
            for leg in try context.fetch(FetchDescriptor<PortV1.Leg>()) { leg.status = "changed" }
            try context.save()
        }, didMigrate: { _ in throw StageFailure() })]
    }
}

enum FleetV1 {
    final class Plane: Model {
        @Attribute(.unique) var tail: String = ""
        @Attribute var seats: Int = 0
        @Relationship var base: Base?
    }
    final class Base: Model {
        @Attribute(.unique) var code: String = ""
        @Relationship(inverse: \Plane.base) var planes: [Plane] = []
    }
}

enum FleetV2 {
    /// Plane, renamed; Base removed (with its relationship).
    final class Aircraft: Model {
        override class var originalName: String? { "Plane" }
        @Attribute(.unique) var tail: String = ""
        @Attribute var seats: Int = 0
    }
}

@Suite struct EntityRenameTests {
    @Test func anEntityRenamedThroughOriginalNameKeepsItsRowsAndARemovedEntityIsDropped() throws {
        let store = TemporaryStore()
        do {
            let container = try ModelContainer(for: [FleetV1.Plane.self, FleetV1.Base.self], configurations: maintainedConfiguration(store.url))
            let context = ModelContext(container)
            let base = FleetV1.Base()
            base.code = "SFO"
            for (tail, seats) in [("N1", 150), ("N2", 180)] {
                let plane = FleetV1.Plane()
                plane.tail = tail
                plane.seats = seats
                plane.base = base
                context.insert(plane)
            }
            try context.save()
            try container.checkpoint()
            container.close()
        }
        let container = try ModelContainer(for: [FleetV2.Aircraft.self], configurations: maintainedConfiguration(store.url))
        #expect(container.schema.entity(named: "Aircraft")?.originalName == "Plane")
        let context = ModelContext(container)
        let aircraft = try context.fetch(FetchDescriptor<FleetV2.Aircraft>(sortBy: [SortDescriptor(\.tail)]))
        #expect(aircraft.map(\.tail) == ["N1", "N2"])
        #expect(aircraft.map(\.seats) == [150, 180])
        #expect(aircraft.map(\.persistentModelID.entityName) == ["Aircraft", "Aircraft"])
        #expect(try context.fetchUnique(\FleetV2.Aircraft.tail, equals: "N2")?.seats == 180)
        // Recorded as a new schema version; history names the old rows by the new entity name.
        #expect(container.store!.schemaHistory.count == 2)
        let firstAircraft = PersistentIdentifier(entityName: "Aircraft", row: 1)
        #expect(try container.fetchHistory(after: nil).contains { transaction in
            transaction.changes.contains { if case let .insert(insert) = $0 { return insert.changedPersistentIdentifier == firstAircraft } else { return false } }
        })
    }
}

enum GateIndexed {
    final class Gate: Model {
        @Attribute(.indexed) var code: String = ""
    }
}

@Suite struct IndexChangeTests {
    @Test func addingAndDroppingAnIndexIsLightweight() throws {
        let store = TemporaryStore()
        func codes(_ container: ModelContainer) throws -> [String] {
            try ModelContext(container).fetch(FetchDescriptor<GateV1.Gate>(sortBy: [SortDescriptor(\.code)])).map(\.code)
        }
        do {
            let container = try ModelContainer(for: [GateIndexed.Gate.self], configurations: maintainedConfiguration(store.url))
            let context = ModelContext(container)
            for code in ["B2", "A1", "C3"] {
                let gate = GateIndexed.Gate()
                gate.code = code
                context.insert(gate)
            }
            try context.save()
            let descriptor = FetchDescriptor<GateIndexed.Gate>(predicate: #Predicate { $0.code == "A1" })
            #expect(try context.explain(descriptor).hasPrefix("index Gate.code"))
            container.close()
        }
        // Dropped: the same rows, now found by a scan; the change is recorded as a schema version.
        let dropped = try ModelContainer(for: [GateV1.Gate.self], configurations: maintainedConfiguration(store.url))
        #expect(try codes(dropped) == ["A1", "B2", "C3"])
        #expect(try ModelContext(dropped).explain(FetchDescriptor<GateV1.Gate>(predicate: #Predicate { $0.code == "A1" })).hasPrefix("scan Gate"))
        #expect(dropped.store!.schemaHistory.count == 2)
    }
}
