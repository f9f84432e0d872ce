import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// A background actor written the way SwiftData users write one (the @ModelActor expansion),
/// generic over the model type.
actor BackgroundStore: ModelActor {
    nonisolated let modelContainer: ModelContainer
    nonisolated let modelExecutor: any ModelExecutor

    init(modelContainer: ModelContainer) {
        self.modelContainer = modelContainer
        let modelContext = ModelContext(modelContainer)
        self.modelExecutor = DefaultSerialModelExecutor(modelContext: modelContext)
    }

    func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        try modelContext.fetch(descriptor).map(\.persistentModelID)
    }

    func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try modelContext.fetchCount(descriptor)
    }

    func insert<T: PersistentModel>(_ model: T) {
        modelContext.insert(model)
    }

    func save() throws {
        try modelContext.save()
    }

    func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil) throws {
        try modelContext.delete(model: model, where: predicate)
    }

    /// Upserts flights with the given distances in one save; returns the transaction number.
    func upsert(_ distances: [String: Int]) throws -> UInt64? {
        for (ident, distance) in distances.sorted(by: { $0.key < $1.key }) {
            let flight = Flight(ident: ident)
            flight.routeDistance = distance
            modelContext.insert(flight)
        }
        var number: UInt64?
        let observation = modelContext.onDidSave { number = $0.transaction }
        try modelContext.save()
        observation.cancel()
        return number
    }
}

@Suite struct ConcurrencyContractTests {
    @Test func aGenericBackgroundActorWorksUnchanged() async throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let store = BackgroundStore(modelContainer: container)
        await store.insert(Flight(ident: "UAL1"))
        await store.insert(Flight(ident: "AAL2"))
        try await store.save()
        #expect(try await store.fetchCount(FetchDescriptor<Flight>()) == 2)
        let ids = try await store.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "UAL1" }))
        #expect(ids.count == 1)
        try await store.delete(model: Flight.self, where: #Predicate { $0.ident == "AAL2" })
        try await store.save()
        #expect(try await store.fetchCount(FetchDescriptor<Flight>()) == 1)
    }

    @MainActor @Test func aBackgroundSaveIsVisibleToMainContextWhenItReturns() async throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let main = container.mainContext
        let existing = Flight(ident: "UAL1")
        main.insert(existing)
        try main.save()
        let store = BackgroundStore(modelContainer: container)
        _ = try await store.upsert(["UAL1": 777, "DAL9": 5])
        #expect(existing.routeDistance == 777)
        #expect(try main.fetchCount(FetchDescriptor<Flight>()) == 2)
    }

    /// Four background actors upsert overlapping flights while mainContext fetches: no crash, no
    /// lost update, and the final state equals applying the same saves one after another.
    @MainActor @Test func concurrentUpsertsEqualTheSerialOrder() async throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let idents = (0..<40).map { "UAL\($0)" }
        let rounds = 25
        let results = try await withThrowingTaskGroup(of: [(UInt64, [String: Int])].self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let store = BackgroundStore(modelContainer: container)
                    var saves: [(UInt64, [String: Int])] = []
                    var rng = SystemRandomNumberGenerator()
                    for round in 0..<rounds {
                        var batch: [String: Int] = [:]
                        for ident in idents.shuffled(using: &rng).prefix(10) { batch[ident] = worker * 10_000 + round }
                        if let number = try await store.upsert(batch) { saves.append((number, batch)) }
                    }
                    return saves
                }
            }
            var fetches = 0
            var all: [(UInt64, [String: Int])] = []
            let main = container.mainContext
            while fetches < 50 {
                let count = try main.fetchCount(FetchDescriptor<Flight>())
                #expect(count <= idents.count)
                fetches += 1
                await Task.yield()
            }
            for try await saves in group { all.append(contentsOf: saves) }
            return all
        }
        #expect(results.count == 4 * rounds)
        #expect(Set(results.map(\.0)).count == results.count)  // one transaction per save
        var expected: [String: Int] = [:]
        for (_, batch) in results.sorted(by: { $0.0 < $1.0 }) { expected.merge(batch) { $1 } }
        let final = try container.mainContext.fetch(FetchDescriptor<Flight>())
        #expect(final.count == expected.count)
        #expect(Dictionary(uniqueKeysWithValues: final.map { ($0.ident, $0.routeDistance) }) == expected)
    }
}

/// Moves a non-Sendable value to another thread on purpose (to test misuse).
struct UnsafeTransfer<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
