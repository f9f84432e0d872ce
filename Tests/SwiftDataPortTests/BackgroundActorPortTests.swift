import Foundation
import GraphStoreMacrosFree
import Testing

// "Swift Utilities — working with SwiftData in the background": a generic model actor on a
// DefaultSerialModelExecutor, as the article wrote it. Only `import SwiftData` changed.

/// ```swift
///  // It is important that this actor works as a mutex,
///  // so you must have one instance of the Actor for one container
//   // for it to work correctly.
///  let actor = BackgroundSerialPersistenceActor(container: modelContainer)
///
///  Task {
///      let data: [MyModel] = try? await actor.fetchData()
///  }
///  ```
@available(iOS 17, *)
public actor BackgroundSerialPersistenceActor: ModelActor {

    public let modelContainer: ModelContainer
    public let modelExecutor: any ModelExecutor
    private var context: ModelContext { modelExecutor.modelContext }

    public init(container: ModelContainer) {
        self.modelContainer = container
        let context = ModelContext(modelContainer)
        modelExecutor = DefaultSerialModelExecutor(modelContext: context)
    }

    public func fetchData<T: PersistentModel>(
        predicate: Predicate<T>? = nil,
        sortBy: [SortDescriptor<T>] = []
    ) throws -> [T] {
        let fetchDescriptor = FetchDescriptor<T>(predicate: predicate, sortBy: sortBy)
        let list: [T] = try context.fetch(fetchDescriptor)
        return list
    }

    public func fetchCount<T: PersistentModel>(
        predicate: Predicate<T>? = nil,
        sortBy: [SortDescriptor<T>] = []
    ) throws -> Int {
        let fetchDescriptor = FetchDescriptor<T>(predicate: predicate, sortBy: sortBy)
        let count = try context.fetchCount(fetchDescriptor)
        return count
    }

    public func insert<T: PersistentModel>(data: T) {
        let context = data.modelContext ?? context
        context.insert(data)
    }

    public func save() throws {
        try context.save()
    }

    public func remove<T: PersistentModel>(predicate: Predicate<T>? = nil) throws {
        try context.delete(model: T.self, where: predicate)
    }

    public func saveAndInsertIfNeeded<T: PersistentModel>(
        data: T,
        predicate: Predicate<T>
    ) throws {
        let descriptor = FetchDescriptor<T>(predicate: predicate)
        let context = data.modelContext ?? context
        let savedCount = try context.fetchCount(descriptor)

        if savedCount == 0 {
            context.insert(data)
        }
        try context.save()
    }
}

// What the article's callers do with it. Models do not cross actors (they are not Sendable), so
// results come back as values, as the article advises ("map the result to another structure").
extension BackgroundSerialPersistenceActor {
    func tripNames() throws -> [String] {
        let trips: [Trip] = try fetchData(sortBy: [SortDescriptor(\.name)])
        return trips.map(\.name)
    }
}

@Suite struct BackgroundActorPortTests {
    @Test func theArticlesActorInsertsFetchesCountsAndRemoves() async throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: store.url))
        let actor = BackgroundSerialPersistenceActor(container: container)

        await actor.insert(data: Trip(name: "Lisbon"))
        await actor.insert(data: Trip(name: "Oslo"))
        try await actor.save()
        #expect(try await actor.fetchCount(predicate: nil as Predicate<Trip>?) == 2)
        #expect(try await actor.tripNames() == ["Lisbon", "Oslo"])

        // saveAndInsertIfNeeded: the second call finds the first and inserts nothing.
        try await actor.saveAndInsertIfNeeded(data: Trip(name: "Quito"), predicate: #Predicate<Trip> { $0.name == "Quito" })
        try await actor.saveAndInsertIfNeeded(data: Trip(name: "Quito"), predicate: #Predicate<Trip> { $0.name == "Quito" })
        #expect(try await actor.fetchCount(predicate: nil as Predicate<Trip>?) == 3)

        try await actor.remove(predicate: #Predicate<Trip> { $0.name == "Oslo" })
        try await actor.save()
        #expect(try await actor.tripNames() == ["Lisbon", "Quito"])

        // What the actor saved is in the store, seen by any other context.
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name) == ["Lisbon", "Quito"])
    }

    @Test func oneActorSerialisesManyCallersWithoutLosingAWrite() async throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: store.url))
        let actor = BackgroundSerialPersistenceActor(container: container)

        try await withThrowingTaskGroup(of: Void.self) { group in
            for caller in 0..<8 {
                group.addTask {
                    for index in 0..<25 {
                        await actor.insert(data: Trip(name: "trip \(caller)-\(index)"))
                        await Task.yield()
                    }
                    try await actor.save()
                }
            }
            try await group.waitForAll()
        }
        #expect(try await actor.fetchCount(predicate: nil as Predicate<Trip>?) == 200)

        // After reopening, every trip is there.
        container.close()
        let reopened = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: store.url))
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<Trip>()) == 200)
    }
}
