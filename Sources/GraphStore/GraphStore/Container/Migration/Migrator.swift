import Foundation
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreCore

/// Runs a migration plan's stages on a store before its container opens it.
struct Migrator {
    let plan: any SchemaMigrationPlan.Type
    let directory: String
    let configuration: ModelConfiguration

    private var options: StoreOptions {
        var options = configuration.storeOptions
        options.maintenance = .manual
        options.asOfTransaction = nil
        return options
    }

    /// The version the store is in and the stages run, for the caller to report.
    @discardableResult
    func run() throws -> [String] {
        let fileIO = configuration.fileIO
        guard fileIO.isDirectory(directory), let current = try Store.recordedSchema(directory: directory, fileIO: fileIO) else {
            return []  // a new store: the container records the newest version
        }
        let versions = try plan.schemas.map { version in
            (type: version, schema: try SchemaBuilder.build(types: version.models, version: version.versionIdentifier))
        }
        // Newest matching version first (two versions may share a shape, like a version bump).
        guard let start = versions.lastIndex(where: { SchemaRecord(schema: $0.schema).fingerprint == current.fingerprint }) else {
            return []  // not a version of the plan: the open decides (lightweight, or refused listing the differences)
        }
        var ran: [String] = []
        for k in start..<(versions.count - 1) {
            let from = versions[k], to = versions[k + 1]
            let stage = plan.stages.first {
                ObjectIdentifier($0.fromVersion) == ObjectIdentifier(from.type) && ObjectIdentifier($0.toVersion) == ObjectIdentifier(to.type)
            } ?? .lightweight(fromVersion: from.type, toVersion: to.type)
            switch stage {
            case .lightweight:
                // Open with the new models: checks, then records the schema as one transaction.
                try Store.open(directory: directory, schema: to.schema, options: options).close()
            case let .custom(_, _, willMigrate, didMigrate):
                try runCustom(from: from.schema, to: to.schema, willMigrate: willMigrate, didMigrate: didMigrate)
            }
            ran.append("\(from.type.versionIdentifier) → \(to.type.versionIdentifier)")
        }
        return ran
    }

    /// The old models' context works on the store's graph without writing; the data then moves to
    /// a graph of the new schema, where the new models' context works; what both saved, with the
    /// schema change between, is appended as one transaction.
    private func runCustom(from: Schema, to: Schema, willMigrate: ((ModelContext) throws -> Void)?,
                           didMigrate: ((ModelContext) throws -> Void)?) throws {
        // Opened without a version identifier, so that opening records nothing: the store's
        // recorded schema already has this shape.
        let store = try Store.open(directory: directory, schema: try SchemaBuilder.build(types: from.entities.compactMap(\.type)),
                                   options: options)
        defer { store.close() }
        let old = ModelContainer(staging: from, graph: store.graph, blobs: store.blobs, configuration: configuration)
        if let willMigrate {
            let context = ModelContext(old)
            try willMigrate(context)
            if context.hasChanges { try context.save() }
        }
        let graph = Graph(schema: to)
        try CheckpointCodec.transfer(from: store.graph, history: store.schemaHistory, into: graph)
        let translation = SchemaTranslation(record: SchemaRecord(schema: from), schema: to)
        let violations = uniqueViolations(translation.newlyUnique, in: graph, schema: to)
        if !violations.isEmpty { throw SchemaError.incompatible(differences: violations) }
        let new = ModelContainer(staging: to, graph: graph, blobs: store.blobs, configuration: configuration)
        if let didMigrate {
            let context = ModelContext(new)
            try didMigrate(context)
            if context.hasChanges { try context.save() }
        }
        try store.appendMigration(old: old.takeCapturedOperations(), schema: to, new: new.takeCapturedOperations(),
                                  author: "migration \(from.versionIdentifier?.description ?? "?") → \(to.versionIdentifier?.description ?? "?")")
    }
}
