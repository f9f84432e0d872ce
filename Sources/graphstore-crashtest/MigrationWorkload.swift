import Foundation
import GraphStore
import GraphStoreMacrosFree

// The migration crash test's child: `--migration-seed N` writes N items with the version 1
// models; `--migrate` opens with a plan whose custom stage fills a new attribute item by item
// (slowly, so a kill lands inside it), printing "migrating" first and "migrated" when done.

enum ItemsV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Item.self] }
    final class Item: Model {
        @Attribute(.unique) var key: Int = 0
        @Attribute var label: String = ""
    }
}

enum ItemsV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Item.self] }
    final class Item: Model {
        @Attribute(.unique) var key: Int = 0
        @Attribute var label: String = ""
        @Attribute var upper: String = ""
    }
}

enum ItemsPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ItemsV1.self, ItemsV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: ItemsV1.self, toVersion: ItemsV2.self, willMigrate: { _ in
            emit("migrating")
        }, didMigrate: { context in
            for (i, item) in try context.fetch(FetchDescriptor<ItemsV2.Item>()).enumerated() {
                item.upper = item.label.uppercased()
                if i % 20 == 0 { Thread.sleep(forTimeInterval: 0.005) }
            }
        })]
    }
}

func runMigrationMode(store: String, arguments: [String]) -> Never {
    let configuration = ModelConfiguration(url: URL(fileURLWithPath: store), durability: .full, autosaveEnabled: false)
    do {
        if let i = arguments.firstIndex(of: "--migration-seed"), i + 1 < arguments.count, let count = Int(arguments[i + 1]) {
            let container = try ModelContainer(for: ItemsV1.models, configurations: configuration)
            let context = ModelContext(container)
            for key in 0..<count {
                let item = ItemsV1.Item()
                item.key = key
                item.label = "item \(key)"
                context.insert(item)
            }
            try context.save()
            container.close()
            emit("seeded \(count)")
        } else {
            let container = try ModelContainer(for: ItemsV2.models, migrationPlan: ItemsPlan.self, configurations: configuration)
            container.close()
            emit("migrated")
        }
        exit(0)
    } catch {
        emit("migration failed: \(error)", to: 2)
        exit(1)
    }
}
