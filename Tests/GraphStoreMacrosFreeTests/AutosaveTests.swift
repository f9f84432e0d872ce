import Foundation
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

@Suite struct AutosaveTests {
    func countElsewhere(_ container: ModelContainer) throws -> Int {
        try ModelContext(container).fetchCount(FetchDescriptor<Flight>())
    }

    @Test func anAutosavingContextSavesOnItsClock() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        #expect(!context.autosaveEnabled)
        let clock = ManualAutosaveClock()
        context.autosaveClock = clock
        context.autosaveInterval = .seconds(5)
        context.insert(Flight(ident: "OFF"))
        clock.advance(by: .seconds(60))
        #expect(try countElsewhere(container) == 0)  // autosave is off for hand-made contexts
        context.autosaveEnabled = true
        #expect(clock.scheduledCount == 1)
        clock.advance(by: .seconds(4))
        #expect(try countElsewhere(container) == 0)
        clock.advance(by: .seconds(1))
        #expect(try countElsewhere(container) == 1)
        #expect(!context.hasChanges && clock.scheduledCount == 0)
        // Nothing to save: nothing scheduled. A change arms it again.
        context.insert(Flight(ident: "TWO"))
        clock.advance(by: .seconds(5))
        #expect(try countElsewhere(container) == 2)
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
        #expect(reported.count == 1)
        #expect(context.lastAutosaveError as? StorageError == .io(operation: "fdatasync", path: store.url.path + "/log-00000000000000000001.gslog", errno: 5))
        #expect(posted.value == 1)
        #expect(context.hasChanges)
    }

    @MainActor @Test func mainContextAutosavesByDefault() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let main = container.mainContext
        let clock = ManualAutosaveClock()
        main.autosaveClock = clock
        main.insert(Flight(ident: "MAIN"))
        clock.advance(by: .seconds(1))
        #expect(!main.hasChanges)
        #expect(try countElsewhere(container) == 1)
    }
}

@Suite struct AutosaveOnCloseTests {
    @Test func closingTheContainerAutosavesItsContexts() throws {
        let store = TemporaryStore()
        do {
            let container = try store.container(Flight.self)
            let saving = ModelContext(container)
            saving.autosaveClock = ManualAutosaveClock()  // never advanced: only close saves
            saving.autosaveEnabled = true
            saving.insert(Flight(ident: "KEPT"))
            let manual = ModelContext(container)
            manual.insert(Flight(ident: "DROPPED"))  // autosave off: close does not save it
            container.close()
            #expect(!saving.hasChanges && manual.hasChanges)
            #expect(throws: StorageError.closed) { try manual.save() }
        }
        let context = ModelContext(try store.container(Flight.self))
        #expect(try context.fetch(FetchDescriptor<Flight>()).map(\.ident) == ["KEPT"])
    }
}
