import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore

// A custom stage whose closures read an external-storage value: its bytes live in the store's
// blob files, which both sides of the stage must read.

enum BadgeV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Badge.self] }

    final class Badge: Model {
        @Attribute(.unique) var number: String = ""
        @Attribute(.externalStorage) var scan: Data? = nil
    }
}

enum BadgeV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Badge.self] }

    final class Badge: Model {
        @Attribute(.unique) var number: String = ""
        @Attribute(.externalStorage) var scan: Data? = nil
        @Attribute var scanBytes: Int = 0
        @Attribute var scanBytesBefore: Int = 0
    }
}

enum BadgeMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [BadgeV1.self, BadgeV2.self] }
    /// What the old side of the stage read, carried to the new side (locked, as tests run in
    /// parallel).
    static let before = Locked<[String: Int]>([:])
    static var stages: [MigrationStage] {
        [
            .custom(fromVersion: BadgeV1.self, toVersion: BadgeV2.self, willMigrate: { context in
                for badge in try context.fetch(FetchDescriptor<BadgeV1.Badge>()) { before.withLock { $0[badge.number] = badge.scan?.count ?? -1 } }
            }, didMigrate: { context in
                for badge in try context.fetch(FetchDescriptor<BadgeV2.Badge>()) {
                    badge.scanBytes = badge.scan?.count ?? -1
                    badge.scanBytesBefore = before.withLock { $0[badge.number] } ?? -2
                }
            }),
        ]
    }
}

@Suite struct MigrationBlobTests {
    @Test func bothSidesOfACustomStageReadExternalStorageValues() throws {
        let store = TemporaryStore()
        let scan = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        do {
            let container = try ModelContainer(for: BadgeV1.models, migrationPlan: BadgeMigrationPlan.self,
                                               configurations: maintainedConfiguration(store.url))
            let context = ModelContext(container)
            let badge = BadgeV1.Badge()
            badge.number = "B-1"
            badge.scan = scan
            context.insert(badge)
            try context.save()
            container.close()
        }
        let container = try ModelContainer(for: BadgeV2.models, migrationPlan: BadgeMigrationPlan.self,
                                           configurations: maintainedConfiguration(store.url))
        let badge = try #require(try ModelContext(container).fetch(FetchDescriptor<BadgeV2.Badge>()).first)
        #expect(badge.scanBytesBefore == scan.count)
        #expect(badge.scanBytes == scan.count)
        #expect(badge.scan == scan)
        #expect(container.blobReadFailures.isEmpty)
        container.close()
    }
}
