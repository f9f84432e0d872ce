import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

@Suite struct AutosaveTests {
    func countElsewhere(_ container: ModelContainer) throws -> Int {
        try ModelContext(container).fetchCount(FetchDescriptor<Flight>())
    }

    /// A context a task holds has no home the clock could reach: a due autosave runs at its
    /// next operation, `processPendingChanges()` included.
    @Test func aTaskContextAutosavesAtItsNextOperation() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        #expect(!context.autosaveEnabled)
        let clock = ManualAutosaveClock()
        context.autosaveClock = clock
        context.autosaveInterval = .seconds(5)
        context.insert(Flight(ident: "OFF"))
        clock.advance(by: .seconds(60))
        context.processPendingChanges()
        #expect(try countElsewhere(container) == 0)  // autosave is off for hand-made contexts
        context.autosaveEnabled = true
        #expect(clock.scheduledCount == 1)
        clock.advance(by: .seconds(4))
        context.processPendingChanges()
        #expect(try countElsewhere(container) == 0)
        clock.advance(by: .seconds(1))
        #expect(try countElsewhere(container) == 0 && context.hasChanges)  // due, not yet run
        context.processPendingChanges()
        #expect(try countElsewhere(container) == 1)
        #expect(!context.hasChanges && clock.scheduledCount == 0)
        // Nothing to save: nothing scheduled. A change arms it again; the next insert runs it.
        context.insert(Flight(ident: "TWO"))
        clock.advance(by: .seconds(5))
        context.insert(Flight(ident: "THREE"))
        #expect(try countElsewhere(container) == 2)
        _ = try context.fetchCount(FetchDescriptor<Flight>())
        #expect(try countElsewhere(container) == 2 && context.hasChanges)  // THREE waits for its own interval
    }

    /// A model actor's context autosaves on the actor's executor, with nothing else to run it.
    @Test func aModelActorsContextAutosavesOnItsExecutor() async throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let clock = ManualAutosaveClock()
        let actor = AutosavingActor(modelContainer: container, clock: clock)
        await actor.insert("ACTOR")
        #expect(clock.scheduledCount == 1)
        clock.advance(by: .seconds(1))
        // The autosave was handed to the executor's queue before this call's job.
        #expect(await actor.hasChanges() == false)
        #expect(try countElsewhere(container) == 1)
    }

    @Test func autosaveNeverSavesInsideATransaction() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let clock = ManualAutosaveClock()
        context.autosaveClock = clock
        context.autosaveEnabled = true
        var countInside = -1
        try context.transaction {
            context.insert(Flight(ident: "A"))
            clock.advance(by: .seconds(10))
            countInside = try countElsewhere(container)
            context.insert(Flight(ident: "B"))
        }
        #expect(countInside == 0)
        #expect(try countElsewhere(container) == 2)
    }

    @Test func aFailedAutosaveIsReportedNotSwallowed() throws {
        let store = TemporaryStore()
        let faulty = FaultInjectingFileIO(base: PosixFileIO(), plan: FaultPlan())
        let container = try store.container(Flight.self, durability: .full, fileIO: faulty)
        let context = ModelContext(container)
        let clock = ManualAutosaveClock()
        context.autosaveClock = clock
        context.autosaveEnabled = true
        var reported: [any Error] = []
        context.autosaveErrorHandler = { reported.append($0) }
        let posted = Locked(0)
        let token = NotificationCenter.default.addObserver(forName: ModelContext.autosaveFailed, object: context, queue: nil) { _ in
            posted.withLock { $0 += 1 }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        faulty.setPlan(FaultPlan(failSync: (index: faulty.syncCount, errno: 5)))
        context.insert(Flight(ident: "X"))
        clock.advance(by: .seconds(1))
        context.processPendingChanges()
        #expect(reported.count == 1)
        #expect(context.lastAutosaveError as? StorageError == .io(operation: "fdatasync", path: store.url.path + "/log-00000000000000000001.gslog", errno: 5))
        #expect(posted.value == 1)
        #expect(context.hasChanges)
    }

    /// mainContext autosaves on the main queue, with nothing else to run it.
    @MainActor @Test func mainContextAutosavesByDefault() async throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let main = container.mainContext
        let clock = ManualAutosaveClock()
        main.autosaveClock = clock
        main.insert(Flight(ident: "MAIN"))
        clock.advance(by: .seconds(1))
        // Handed to the main queue: it runs once this test lets the main actor go.
        for _ in 0..<1_000 where main.hasChanges { await Task.yield() }
        #expect(!main.hasChanges)
        #expect(try countElsewhere(container) == 1)
    }
}

@Suite struct AutosaveOnCloseTests {
    /// Close autosaves mainContext (called on the main actor); a task's context, which close
    /// cannot reach, keeps its changes and is told at its next save.
    @MainActor @Test func closingTheContainerAutosavesMainContext() throws {
        let store = TemporaryStore()
        do {
            let container = try store.container(Flight.self)
            let main = container.mainContext
            main.autosaveClock = ManualAutosaveClock()  // never advanced: only close saves
            main.insert(Flight(ident: "KEPT"))
            let task = ModelContext(container)
            task.autosaveClock = ManualAutosaveClock()
            task.autosaveEnabled = true
            task.insert(Flight(ident: "UNSAVED"))
            container.close()
            #expect(!main.hasChanges && task.hasChanges)
            #expect(throws: StorageError.closed) { try task.save() }
            #expect(task.insertedModelsArray.count == 1)  // nothing lost: still there to save elsewhere
        }
        let context = ModelContext(try store.container(Flight.self))
        #expect(try context.fetch(FetchDescriptor<Flight>()).map(\.ident) == ["KEPT"])
    }

    /// Called on a model actor, close autosaves that actor's context.
    @Test func closingOnAModelActorAutosavesItsContext() async throws {
        let store = TemporaryStore()
        do {
            let container = try store.container(Flight.self)
            let actor = AutosavingActor(modelContainer: container, clock: ManualAutosaveClock())
            await actor.insert("ACTOR")
            await actor.closeContainer()
            #expect(await actor.hasChanges() == false)
        }
        let context = ModelContext(try store.container(Flight.self))
        #expect(try context.fetch(FetchDescriptor<Flight>()).map(\.ident) == ["ACTOR"])
    }
}

/// A model actor whose context autosaves on `clock`.
actor AutosavingActor: ModelActor {
    nonisolated let modelContainer: ModelContainer
    nonisolated let modelExecutor: any ModelExecutor

    init(modelContainer: ModelContainer, clock: ManualAutosaveClock) {
        self.modelContainer = modelContainer
        let context = ModelContext(modelContainer)
        context.autosaveClock = clock
        context.autosaveEnabled = true
        modelExecutor = DefaultSerialModelExecutor(modelContext: context)
    }

    func insert(_ ident: String) { modelContext.insert(Flight(ident: ident)) }
    func hasChanges() -> Bool { modelContext.hasChanges }
    func closeContainer() { modelContainer.close() }
}
