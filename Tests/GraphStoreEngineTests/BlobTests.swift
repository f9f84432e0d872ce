import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog

@Suite struct BlobTests {
    func blobFiles(_ store: TemporaryStore) throws -> [String] {
        let directory = store.url.appendingPathComponent(BlobStore.directoryName)
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    @Test func externalDataLivesInBlobFilesThatCompactionRemovesWhenUnreferenced() throws {
        let store = TemporaryStore()
        let photo = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        do {
            let container = try ModelContainer(for: [PilotV1.Pilot.self], configurations: maintainedConfiguration(store.url))
            let context = ModelContext(container)
            let pilot = PilotV1.Pilot()
            pilot.license = "ATP-7"
            pilot.photo = photo
            context.insert(pilot)
            try context.save()
            #expect(try blobFiles(store).count == 1)
            // The log holds a reference, not the bytes.
            #expect(try container.store!.log.recordBytes() < 2_000)
            #expect(pilot.photo == photo)
            container.close()
        }
        do {
            let container = try ModelContainer(for: [PilotV1.Pilot.self], configurations: maintainedConfiguration(store.url))
            let context = ModelContext(container)
            let pilot = try #require(try context.fetch(FetchDescriptor<PilotV1.Pilot>()).first)
            #expect(pilot.photo == photo)
            pilot.photo = Data([9, 9, 9])
            try context.save()
            #expect(try blobFiles(store).count == 2)
            // History keeps the old value's blob; compaction without history drops it.
            #expect(try container.compact(retention: .all).blobsRemoved == 0)
            #expect(try blobFiles(store).count == 2)
            #expect(try container.compact(retention: HistoryRetention.none).blobsRemoved == 1)
            #expect(try blobFiles(store).count == 1)
            pilot.photo = nil
            try context.save()
            #expect(try container.compact(retention: HistoryRetention.none).blobsRemoved == 1)
            #expect(try blobFiles(store).isEmpty)
            container.close()
        }
        let container = try ModelContainer(for: [PilotV1.Pilot.self], configurations: maintainedConfiguration(store.url))
        #expect(try ModelContext(container).fetch(FetchDescriptor<PilotV1.Pilot>()).first?.photo == nil)
    }

    @Test func aMissingOrDamagedBlobReadsAsNilAndIsReported() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: [PilotV1.Pilot.self], configurations: maintainedConfiguration(store.url))
        let context = ModelContext(container)
        for license in ["A", "B"] {
            let pilot = PilotV1.Pilot()
            pilot.license = license
            pilot.photo = Data(license.utf8 + [1, 2, 3])
            context.insert(pilot)
        }
        try context.save()
        let files = try blobFiles(store)
        let directory = store.url.appendingPathComponent(BlobStore.directoryName)
        // One file altered, one removed.
        var bytes = try Data(contentsOf: directory.appendingPathComponent(files[0]))
        bytes[bytes.count - 1] ^= 0xFF
        try bytes.write(to: directory.appendingPathComponent(files[0]))
        try FileManager.default.removeItem(at: directory.appendingPathComponent(files[1]))

        let reader = ModelContext(container)
        let pilots = try reader.fetch(FetchDescriptor<PilotV1.Pilot>())
        #expect(pilots.map(\.photo) == [nil, nil])
        let failures = container.store!.blobs.readFailures
        #expect(failures.count == 2)
        #expect(failures.contains { $0.contains("checksum mismatch") })
        #expect(failures.contains { $0.contains("missing") })
        #expect(failures.allSatisfy { $0.contains("Pilot/") && $0.contains(".photo") })
    }

    @Test func aFailedBlobWriteFailsTheSaveAndCommitsNothing() throws {
        let store = TemporaryStore()
        let faults = FaultInjectingFileIO(base: PosixFileIO(), plan: FaultPlan())
        var configuration = maintainedConfiguration(store.url)
        configuration.fileIO = faults
        configuration.durability = .full
        let container = try ModelContainer(for: [PilotV1.Pilot.self], configurations: configuration)
        let before = container.lastTransaction
        let context = ModelContext(container)
        let pilot = PilotV1.Pilot()
        pilot.license = "X"
        pilot.photo = Data([1, 2, 3])
        context.insert(pilot)
        // The blob file's sync is the commit's first: it fails, so no record is written.
        faults.setPlan(FaultPlan(failSync: (index: faults.syncCount, errno: 28)))
        #expect(throws: StorageError.self) { try context.save() }
        #expect(container.lastTransaction == before)
        #expect(context.hasChanges)
    }
}

enum PilotInline {
    /// PilotV1.Pilot with `photo` no longer external: a lightweight change.
    final class Pilot: Model {
        @Attribute(.unique) var license: String = ""
        @Attribute var callsign: String = ""
        @Attribute var photo: Data? = nil
    }
}

@Suite struct BlobSchemaChangeTests {
    @Test func blobsStoredBeforeExternalStorageWasDroppedStayReadableThroughCompaction() throws {
        let store = TemporaryStore()
        let photo = Data((0..<500).map { UInt8(truncatingIfNeeded: $0) })
        do {
            let container = try ModelContainer(for: [PilotV1.Pilot.self], configurations: maintainedConfiguration(store.url))
            let context = ModelContext(container)
            let pilot = PilotV1.Pilot()
            pilot.license = "A"
            pilot.photo = photo
            context.insert(pilot)
            try context.save()
            container.close()
        }
        let container = try ModelContainer(for: [PilotInline.Pilot.self], configurations: maintainedConfiguration(store.url))
        let context = ModelContext(container)
        #expect(try context.fetch(FetchDescriptor<PilotInline.Pilot>()).first?.photo == photo)
        #expect(try container.compact(retention: HistoryRetention.none).blobsRemoved == 0)
        #expect(container.store!.verifyBlobs().isEmpty)
        #expect(try ModelContext(container).fetch(FetchDescriptor<PilotInline.Pilot>()).first?.photo == photo)
        container.close()
        let reopened = try ModelContainer(for: [PilotInline.Pilot.self], configurations: maintainedConfiguration(store.url))
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<PilotInline.Pilot>()).first?.photo == photo)
    }
}
