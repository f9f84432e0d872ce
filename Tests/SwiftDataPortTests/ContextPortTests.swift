import Foundation
import Testing
import GraphStoreMacrosFree

/// ModelContext as SwiftData has it: model(for:), batched fetches, an UndoManager of the app's.
@Suite struct ContextPortTests {
    func tripsContext(count: Int) throws -> ModelContext {
        let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for i in 0..<count { context.insert(Trip(name: "trip \(i)", destination: i % 2 == 0 ? "Rome" : "Paris")) }
        try context.save()
        return context
    }

    @Test func modelForAnIdentifierWithNoRowIsADeletedObjectOfItsType() throws {
        let context = try tripsContext(count: 2)
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        let id = trips[0].persistentModelID
        let found: any PersistentModel = context.model(for: id)
        #expect(found === trips[0])

        let other = ModelContext(context.container)
        other.delete(try #require(other.existingModel(for: id)) as! Trip)
        try other.save()
        let fresh = ModelContext(context.container)
        let gone = fresh.model(for: id)
        #expect(gone is Trip && gone.isDeleted && gone.modelContext == nil)
        #expect(gone.persistentModelID == id)
        #expect(fresh.existingModel(for: id) == nil)
        #expect(fresh.registeredModel(for: id) as Trip? == nil)

        // An identifier of an entity this schema has not.
        let stranger = fresh.model(for: PersistentIdentifier(entityName: "Nowhere", row: 1))
        #expect(stranger.isDeleted && stranger.persistentModelID.entityName == "Nowhere")
    }

    /// "Dive deeper into SwiftData": enumerate in batches, with and without mutations inside.
    @Test func enumerateTraversesInBatchesAndGuardsAgainstTrappedMutations() throws {
        let context = try tripsContext(count: 12)
        var seen: [String] = []
        try context.enumerate(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 5) { trip in
            seen.append(trip.name)
        }
        #expect(seen.count == 12 && seen == seen.sorted())

        // A mutation inside the block: refused after the batch, unless it is intended.
        #expect(throws: ModelContextError.mutationDuringEnumeration) {
            try context.enumerate(FetchDescriptor<Trip>(), batchSize: 5) { trip in
                trip.bucketList.append(BucketListItem(title: "swim"))
            }
        }
        context.rollback()
        try context.enumerate(FetchDescriptor<Trip>(), batchSize: 10000, allowEscapingMutations: true) { trip in
            trip.bucketList.append(BucketListItem(title: "swim"))
        }
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 12)
    }

    @Test func batchedFetchHandsOutObjectsABatchAtATime() throws {
        let context = try tripsContext(count: 25)
        let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.destination == "Rome" }, sortBy: [SortDescriptor(\.name, order: .reverse)])
        let all = try context.fetch(descriptor).map(\.name)
        let batched: FetchResultsCollection<Trip> = try context.fetch(descriptor, batchSize: 4)
        #expect(batched.count == 13)
        #expect(batched.map(\.name) == all)
        #expect(batched[12].name == all[12] && batched[0].name == all[0])
        #expect(Array(batched.reversed()).map(\.name) == all.reversed())
        #expect(batched[3] === batched[3])

        let identifiers: FetchResultsCollection<PersistentIdentifier> = try context.fetchIdentifiers(descriptor, batchSize: 5)
        #expect(Array(identifiers) == (try context.fetchIdentifiers(descriptor)))

        // A row deleted after the fetch comes back deleted, in its place.
        let held = batched[5].persistentModelID
        let other = ModelContext(context.container)
        other.delete(other.model(for: held) as! Trip)
        try other.save()
        let later = try ModelContext(context.container).fetch(descriptor, batchSize: 100)
        #expect(later.count == 12)
        #expect(batched.count == 13)
    }

    @Test func batchedFetchIncludesUnsavedInserts() throws {
        let context = try tripsContext(count: 3)
        context.insert(Trip(name: "unsaved", destination: "Rome"))
        let batched = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 2)
        #expect(batched.map(\.name) == ["trip 0", "trip 1", "trip 2", "unsaved"])
        #expect(batched[3].hasChanges)
    }

    @Test @MainActor func anUndoManagerOfTheAppsOwn() throws {
        let context = try tripsContext(count: 1)
        let undoManager = UndoManager()
        context.undoManager = undoManager
        let trip = try context.fetch(FetchDescriptor<Trip>())[0]
        trip.name = "renamed"
        undoManager.setActionName("Rename")
        context.processPendingChanges()
        #expect(undoManager.canUndo && undoManager.undoActionName == "Rename")
        #expect(undoManager.undoMenuItemTitle == "Undo Rename")
        undoManager.undo()
        #expect(trip.name == "trip 0" && undoManager.canRedo && undoManager.redoActionName == "Rename")
        undoManager.redo()
        #expect(trip.name == "renamed")
    }

    /// UndoManager's own API, as Foundation has it, for the app's own actions.
    @Test func undoManagerRegistersTargetsGroupsAndLimits() {
        final class Counter { var value = 0 }
        let counter = Counter()
        let undo = UndoManager()
        undo.groupsByEvent = false
        func add(_ amount: Int) {
            counter.value += amount
            undo.registerUndo(withTarget: counter) { _ in add(-amount) }
        }
        undo.beginUndoGrouping()
        add(1)
        add(2)
        undo.beginUndoGrouping()
        add(3)
        undo.endUndoGrouping()
        #expect(undo.groupingLevel == 1)
        undo.endUndoGrouping()
        #expect(undo.groupingLevel == 0 && counter.value == 6)
        undo.undo()
        #expect(counter.value == 0 && undo.canRedo)
        undo.redo()
        #expect(counter.value == 6)

        undo.levelsOfUndo = 2
        for amount in [10, 20, 30] {
            undo.beginUndoGrouping()
            add(amount)
            undo.endUndoGrouping()
        }
        undo.undo()
        undo.undo()
        #expect(!undo.canUndo && counter.value == 6 + 10)

        undo.disableUndoRegistration()
        #expect(!undo.isUndoRegistrationEnabled)
        undo.beginUndoGrouping()
        add(100)
        undo.endUndoGrouping()
        undo.enableUndoRegistration()
        #expect(!undo.canUndo)

        undo.beginUndoGrouping()
        add(1)
        undo.endUndoGrouping()
        undo.removeAllActions(withTarget: counter)
        #expect(!undo.canUndo)
    }

    @Test func undoManagerPostsItsNotifications() {
        let undo = UndoManager()
        undo.groupsByEvent = false
        final class Target {}
        let target = Target()
        final class Names: @unchecked Sendable {
            let lock = NSLock()
            var seen: [Notification.Name] = []
        }
        let names = Names()
        let watched: [Notification.Name] = [.NSUndoManagerDidUndoChange, .NSUndoManagerDidRedoChange, .NSUndoManagerDidCloseUndoGroup]
        let observers = watched.map { name in
            NotificationCenter.default.addObserver(forName: name, object: undo, queue: nil) { note in names.lock.withLock { names.seen.append(note.name) } }
        }
        defer { observers.forEach(NotificationCenter.default.removeObserver) }
        undo.beginUndoGrouping()
        undo.registerUndo(withTarget: target) { _ in }
        undo.endUndoGrouping()
        undo.undo()
        #expect(names.lock.withLock { names.seen } == [.NSUndoManagerDidCloseUndoGroup, .NSUndoManagerDidUndoChange])
    }
}
