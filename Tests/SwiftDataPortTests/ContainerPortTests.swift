import Foundation
import Testing
import GraphStore
import GraphStoreMacrosFree
// Only to read each store's recorded schema (`Store.recordedSchema`), which no public API shows.
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph

/// SwiftData's container and configuration code, as SwiftData users write it (only the model
/// declarations differ: TripModels.swift).
@Suite struct ContainerPortTests {
    /// Xcode's SwiftData app template, word for word (in memory, so that the test writes nothing
    /// to the home directory).
    @Test func xcodesTemplateCompilesAndRuns() throws {
        let sharedModelContainer: ModelContainer = {
            let schema = Schema([
                Item.self,
            ])
            let modelConfiguration = ModelConfiguration(schema: schema, isStoredInMemoryOnly: true)
            do {
                return try ModelContainer(for: schema, configurations: [modelConfiguration])
            } catch {
                fatalError("Could not create ModelContainer: \(error)")
            }
        }()
        let context = ModelContext(sharedModelContainer)
        context.insert(Item(timestamp: Date()))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 1)
        #expect(sharedModelContainer.schema.entities.map(\.name) == ["Item"])
        #expect(sharedModelContainer.schema.entities[0].attributes.map(\.name) == ["timestamp"])
    }

    @Test func schemasAndConfigurationsAsSwiftDataNamesThem() throws {
        let schema = Schema([Trip.self])  // related models come along
        #expect(Set(schema.entities.map(\.name)) == ["Trip", "BucketListItem", "LivingAccommodation"])
        #expect(schema.entities.first { $0.name == "Trip" }?.relationships.map(\.name) == ["bucketList", "livingAccommodations"])
        #expect(Schema(versionedSchema: TripsV1.self).versionIdentifier == Schema.Version(1, 0, 0))
        let inMemory = ModelConfiguration(for: Trip.self, isStoredInMemoryOnly: true)
        #expect(inMemory.isStoredInMemoryOnly && inMemory.schema?.entities.count == 3 && inMemory.name == "default")
        let named = ModelConfiguration("trips", schema: schema, isStoredInMemoryOnly: false, allowsSave: false)
        #expect(named.name == "trips" && !named.allowsSave && named.url?.lastPathComponent == "trips")
        let container = try ModelContainer(for: Trip.self, configurations: inMemory)
        #expect(container.configurations.count == 1)
    }

    /// SwiftData's URLs name a store file (`…/trips.store`): GraphStore keeps its store as a
    /// directory at that path; a file already there is refused, not overwritten.
    @Test func aURLNamingAStoreFileBecomesTheStoresDirectory() throws {
        let dir = TemporaryStore()
        try FileManager.default.createDirectory(at: dir.url, withIntermediateDirectories: true)
        let url = dir.url.appendingPathComponent("trips.store")
        do {
            let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(Trip(name: "Iceland"))
            try context.save()
            container.close()
        }
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue)
        let reopened = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<Trip>()).map(\.name) == ["Iceland"])
        reopened.close()
        let sqlite = dir.url.appendingPathComponent("old.sqlite")
        try Data("SQLite format 3".utf8).write(to: sqlite)
        #expect(throws: StorageError.self) { _ = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: sqlite)) }
        #expect(try Data(contentsOf: sqlite) == Data("SQLite format 3".utf8))
    }

    @Test func deleteAllDataEmptiesEveryStore() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: store.url, durability: .none))
        let context = ModelContext(container)
        let trip = Trip(name: "Oslo")
        trip.bucketList = [BucketListItem(title: "Fjords")]
        context.insert(trip)
        try context.save()
        try container.deleteAllData()
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 0 && trip.isDeleted == false)
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 0)
        container.close()
        let reopened = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: store.url))
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<Trip>()) == 0)
    }
}

/// "Dive deeper into SwiftData": trips in one store, people in another.
@Suite struct SeveralConfigurationsTests {
    func configurations(_ dir: URL, peopleIO: any FileIO = PosixFileIO()) -> (Schema, ModelConfiguration, ModelConfiguration) {
        // The session's code, with only the paths made temporary.
        let fullSchema = Schema([
            Trip.self,
            BucketListItem.self,
            LivingAccommodation.self,
            Person.self,
            Address.self,
        ])
        let trips = ModelConfiguration(
            schema: Schema([
                Trip.self,
                BucketListItem.self,
                LivingAccommodation.self,
            ]),
            url: URL(filePath: dir.path + "/trip.store"),
            cloudKitContainerIdentifier: "com.example.trips"
        )
        let people = ModelConfiguration(
            schema: Schema([Person.self, Address.self]),
            url: URL(filePath: dir.path + "/people.store"),
            cloudKitContainerIdentifier: "com.example.people",
            durability: .full, fileIO: peopleIO
        )
        return (fullSchema, trips, people)
    }

    @Test func eachConfigurationsModelsLiveInTheirOwnStore() throws {
        let dir = TemporaryStore()
        do {
            let (fullSchema, trips, people) = configurations(dir.url)
            let container = try ModelContainer(for: fullSchema, trips, people)
            #expect(container.configurations.map(\.name) == ["trip", "people"])
            let context = ModelContext(container)
            let trip = Trip(name: "Lisbon")
            trip.livingAccommodations = [LivingAccommodation(placeName: "Second")]
            context.insert(trip)
            let person = Person(name: "Ana")
            person.addresses = [Address(street: "Rua Augusta")]
            context.insert(person)
            #expect(trip.modelContext === context && person.modelContext === context)
            try context.save()
            // The session's predicate, unchanged.
            let hotelNames = ["First", "Second", "Third"]
            let predicate = #Predicate<Trip> { trip in
                trip.livingAccommodations.filter {
                    hotelNames.contains($0.placeName)
                }.count > 0
            }
            let descriptor = FetchDescriptor(predicate: predicate)
            #expect(try context.fetch(descriptor).map(\.name) == ["Lisbon"])
            #expect(try context.fetchCount(FetchDescriptor<Address>()) == 1)
            container.close()
        }
        // Each store holds its own models' schema and rows only.
        let tripStore = try #require(try Store.recordedSchema(directory: dir.url.path + "/trip.store"))
        let peopleStore = try #require(try Store.recordedSchema(directory: dir.url.path + "/people.store"))
        #expect(Set(tripStore.entities.map(\.name)) == ["Trip", "BucketListItem", "LivingAccommodation"])
        #expect(Set(peopleStore.entities.map(\.name)) == ["Person", "Address"])
        let (fullSchema, trips, people) = configurations(dir.url)
        let reopened = try ModelContainer(for: fullSchema, trips, people)
        let context = ModelContext(reopened)
        #expect(try context.fetch(FetchDescriptor<Person>()).first?.addresses.map(\.street) == ["Rua Augusta"])
        #expect(try context.fetch(FetchDescriptor<Trip>()).first?.livingAccommodations.map(\.placeName) == ["Second"])
    }

    /// A relationship between models of different stores is refused when the container is made,
    /// naming both.
    @Test func aRelationshipAcrossStoresIsRefused() throws {
        let dir = TemporaryStore()
        let trips = ModelConfiguration(schema: Schema([Trip.self, LivingAccommodation.self]), url: dir.url.appendingPathComponent("a"))
        let items = ModelConfiguration(schema: Schema([BucketListItem.self]), url: dir.url.appendingPathComponent("b"))
        #expect {
            _ = try ModelContainer(for: Schema([Trip.self]), configurations: trips, items)
        } throws: { error in
            guard case let .crossStoreRelationship(entity, relationship, target, _)? = error as? SchemaError else { return false }
            return [entity, target].sorted() == ["BucketListItem", "Trip"] && ["bucketList", "trip"].contains(relationship)
        }
        // A model no configuration names (each names its own) is refused too: never ignored.
        #expect {
            _ = try ModelContainer(for: Schema([Trip.self, Person.self]), configurations:
                ModelConfiguration(schema: Schema([Trip.self]), url: dir.url.appendingPathComponent("c")),
                ModelConfiguration(schema: Schema([Item.self]), url: dir.url.appendingPathComponent("d")))
        } throws: { error in
            if case .notInOneConfiguration("Person", [])? = error as? SchemaError { return true }
            return false
        }
    }

    /// A save touching both stores commits each store's share in turn; when the second store
    /// fails, the first store's share is saved, and the rest stays unsaved in the context until
    /// a later save stores it. Nothing is lost.
    @Test func aFailureInTheSecondStoreKeepsItsShareUnsaved() throws {
        let dir = TemporaryStore()
        let faulty = FaultInjectingFileIO(base: PosixFileIO(), plan: FaultPlan())
        let (fullSchema, trips, people) = configurations(dir.url, peopleIO: faulty)
        let container = try ModelContainer(for: fullSchema, trips, people)
        let context = ModelContext(container)
        context.insert(Trip(name: "Rome"))
        context.insert(Person(name: "Marco"))
        faulty.setPlan(FaultPlan(failWrite: (index: faulty.writeCount, errno: 28)))
        #expect {
            try context.save()
        } throws: { error in
            guard let partial = error as? PartialSaveError else { return false }
            return partial.store == "people" && partial.savedStores == ["trip"] && partial.underlying is StorageError
        }
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.compactMap { ($0 as? Person)?.name } == ["Marco"])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 1)
        container.close()
        // The people store was poisoned by the failed write: reopened, it takes the save.
        let (schema2, trips2, people2) = configurations(dir.url)
        let reopened = try ModelContainer(for: schema2, trips2, people2)
        let again = ModelContext(reopened)
        again.insert(Person(name: "Marco"))
        try again.save()
        #expect(try again.fetch(FetchDescriptor<Person>()).map(\.name) == ["Marco"])
        #expect(try again.fetch(FetchDescriptor<Trip>()).map(\.name) == ["Rome"])
    }
}

enum TripsV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self, BucketListItem.self, LivingAccommodation.self] }
}
