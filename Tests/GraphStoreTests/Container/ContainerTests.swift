import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog

@Suite struct ContainerTests {
    @Test func inMemoryStoresWriteNothingAndForgetOnRelease() throws {
        let config = ModelConfiguration(isStoredInMemoryOnly: true)
        #expect(config.url == nil)
        let container = try ModelContainer(for: Flight.self, configurations: config)
        #expect(container.openReport == nil)
        let context = ModelContext(container)
        context.insert(Flight(ident: "UAL1"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 1)
        let fresh = try ModelContainer(for: Flight.self, configurations: config)
        #expect(try ModelContext(fresh).fetchCount(FetchDescriptor<Flight>()) == 0)
    }

    @Test func readOnlyContainersFetchButRefuseToSave() throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(Flight.self))
            context.insert(Flight(ident: "UAL1"))
            try context.save()
        }
        let writer = try store.container(Flight.self)  // a writer stays open beside the reader
        let reader = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(url: store.url, allowsSave: false))
        let context = ModelContext(reader)
        let flight = try #require(try context.fetch(FetchDescriptor<Flight>()).first)
        #expect(flight.ident == "UAL1")
        flight.routeDistance = 5
        #expect(throws: ModelContextError.readOnly) { try context.save() }
        withExtendedLifetime(writer) {}
    }

    @Test func theDefaultStoreLivesUnderHomeAndIsCreatedOnDemand() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("gs-home-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let saved = ProcessInfo.processInfo.environment["HOME"]
        setenv("HOME", home.path, 1)
        defer { if let saved { setenv("HOME", saved, 1) } }
        let config = ModelConfiguration()
        #expect(config.url?.path == home.path + "/.graphstore/default")
        #expect(config.durability == .full && !config.isStoredInMemoryOnly)
        let context = ModelContext(try ModelContainer(for: Flight.self, configurations: config))
        context.insert(Flight(ident: "X"))
        try context.save()
        #expect(FileManager.default.fileExists(atPath: home.path + "/.graphstore/default/LOCK"))
    }

    @MainActor @Test func mainContextAutosavesAndHandMadeContextsDoNot() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.mainContext === container.mainContext)
        #expect(container.mainContext.autosaveEnabled)
        #expect(!ModelContext(container).autosaveEnabled)
        let quiet = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true, autosaveEnabled: false))
        #expect(!quiet.mainContext.autosaveEnabled)
    }

    /// A save is one transaction: when the write fails, nothing of it is visible, in memory or
    /// after reopening, and the context keeps its changes. Its record written whole, or written
    /// as it is encoded (every record streamed) and failing after its header.
    @Test(arguments: [(LogOptions.defaultStreamedRecordBytes, 0), (0, 1)])
    func aFailedSaveLeavesNothingBehind(streamedRecordBytes: Int, failingWrite: Int) throws {
        let store = TemporaryStore()
        let faulty = FaultInjectingFileIO(base: PosixFileIO(), plan: FaultPlan())
        var configuration = ModelConfiguration(url: store.url, durability: .full, segmentSize: 1 << 20, fileIO: faulty)
        configuration.streamedRecordBytes = streamedRecordBytes
        let container = try ModelContainer(for: Flight.self, configurations: configuration)
        let context = ModelContext(container)
        context.insert(Flight(ident: "KEEP"))
        try context.save()
        faulty.setPlan(FaultPlan(failWrite: (index: faulty.writeCount + failingWrite, errno: 28)))
        let doomed = Flight(ident: "LOST")
        context.insert(doomed)
        doomed.destination = Airport(icao: "KSFO")
        #expect(throws: StorageError.self) { try context.save() }
        #expect(context.hasChanges)
        // The objects still hold their unsaved values and links.
        #expect(doomed.ident == "LOST" && doomed.destination?.icao == "KSFO" && doomed.destination?.flightsTo.map(\.ident) == ["LOST"])
        let other = ModelContext(container)
        #expect(try other.fetch(FetchDescriptor<Flight>()).map(\.ident) == ["KEEP"])
        #expect(try other.fetchCount(FetchDescriptor<Airport>()) == 0)
        // The writer is poisoned: later saves fail too, until the store is reopened.
        #expect(throws: StorageError.self) { try context.save() }
        container.close()
        let reopened = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(url: store.url, durability: .full))
        defer { reopened.close() }
        let after = ModelContext(reopened)
        #expect(try after.fetch(FetchDescriptor<Flight>()).map(\.ident) == ["KEEP"])
        #expect(try after.fetchCount(FetchDescriptor<Airport>()) == 0)
    }

    /// With `.grouped`, saves from several threads share syncs, and a save that waits for
    /// another thread's sync yields first or, with `groupCommitYieldLimitMicroseconds = 0`,
    /// sleeps at once: the configuration reaches the store's log. Every save is there after
    /// reopening. (The yielding case allows a second, far beyond the 500 µs syncs: with the
    /// default 2 ms, a loaded machine that leaves a waiter unscheduled that long makes it sleep.)
    @Test(arguments: [0, 1_000_000])
    func groupedSavesFromSeveralThreadsShareSyncs(yieldLimit: Int) throws {
        let store = TemporaryStore()
        let faulty = FaultInjectingFileIO(base: PosixFileIO(), plan: FaultPlan(syncDelay: .microseconds(500)))
        var configuration = ModelConfiguration(url: store.url, durability: .grouped, segmentSize: 1 << 20, fileIO: faulty)
        configuration.groupCommitYieldLimitMicroseconds = yieldLimit
        let writers = 6, perWriter = 10
        do {
            let container = try ModelContainer(for: Flight.self, configurations: configuration)
            let group = DispatchGroup()
            for writer in 0..<writers {
                group.enter()
                Thread {
                    let context = ModelContext(container)
                    for i in 0..<perWriter {
                        context.insert(Flight(ident: "W\(writer)-\(i)"))
                        try! context.save()
                    }
                    group.leave()
                }.start()
            }
            group.wait()
            let waits = try #require(container.store?.log.groupSyncWaits)
            #expect(waits.wokenYielding + waits.wokenSleeping > 0, "saves waited for other threads' syncs")
            if yieldLimit == 0 { #expect(waits.wokenYielding == 0, "\(waits)") } else { #expect(waits.wokenYielding > 0, "\(waits)") }
            container.close()
        }
        let reopened = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(url: store.url, durability: .grouped))
        defer { reopened.close() }
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<Flight>()) == writers * perWriter)
    }

    /// With `.grouped` a commit is applied before its record is written (the write overlaps the
    /// next commit): when that write fails, the save throws, the store is poisoned as after a
    /// failed sync, and reopening shows only what was acknowledged.
    @Test func aFailedGroupedWritePoisonsAndReopensWithWhatWasAcknowledged() throws {
        let store = TemporaryStore()
        do {
            let faulty = FaultInjectingFileIO(base: PosixFileIO(), plan: FaultPlan())
            let container = try store.container(Flight.self, durability: .grouped, fileIO: faulty)
            let context = ModelContext(container)
            context.insert(Flight(ident: "KEEP"))
            try context.save()
            faulty.setPlan(FaultPlan(failWrite: (index: faulty.writeCount, errno: 28)))
            let lost = Flight(ident: "LOST")
            context.insert(lost)
            lost.destination = Airport(icao: "KSFO")
            #expect(throws: StorageError.self) { try context.save() }
            #expect(context.hasChanges)
            #expect(lost.ident == "LOST" && lost.destination?.icao == "KSFO")
            context.insert(Flight(ident: "LATER"))
            #expect(throws: StorageError.self) { try context.save() }
            container.close()
        }
        let reopened = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(url: store.url, durability: .grouped))
        defer { reopened.close() }
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<Flight>()).map(\.ident) == ["KEEP"])
    }
}
