import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog
import Synchronization

/// SwiftData's ModelContainer on GraphStore: discovers the schema once, opens the store
/// (recovering the log into the in-memory graph), and commits every context's saves. Sendable:
/// share it freely; give each thread or actor its own `ModelContext`.
public final class ModelContainer: @unchecked Sendable {
    // Immutable after init, except `contexts` (guarded by its mutex).
    /// The models the container stores, with their entities, attributes, relationships and indexes.
    public let schema: Schema
    /// The configuration of the container's store (the first one, when it has several).
    public let configuration: ModelConfiguration
    let graph: Graph
    /// The open store; nil in memory.
    package let store: Store?
    /// Where external-storage values are read from: the store's blob files (a migration's
    /// staging containers read the migrated store's); nil in memory.
    let blobs: BlobStore?
    /// What recovery found when the store was opened.
    public var openReport: OpenReport? { store?.report }
    /// How saves commit: to the store's log, or (in memory, staging) to the graph alone.
    private let pipeline: CommitPipeline
    private let contexts = Locked<[ContextLink]>([])
    /// A migration's staging container keeps what its contexts commit here instead of in a log.
    private let captured: Locked<[LogOperation]>?
    /// With several configurations: a container per store, by which models are routed (this
    /// container then stores nothing itself; ModelContainer+Partitions.swift).
    let partitions: ContainerPartitions?
    /// Every configuration, in the order given (SwiftData's `configurations`).
    public var configurations: [ModelConfiguration] { partitions?.containers.map(\.configuration) ?? [configuration] }

    /// A container for `types` (and every model they reach through relationships), opening or
    /// creating the store each configuration names; none gives the default store
    /// (`~/.graphstore/default`). Throws `SchemaError` for a model it cannot store and
    /// `StorageError` for a store it cannot open.
    public convenience init(for types: any PersistentModel.Type..., configurations: ModelConfiguration...) throws {
        try self.init(for: types, migrationPlan: nil, configurations: configurations)
    }

    /// The same, migrating the store through `migrationPlan`'s stages first when it was written by
    /// an older version.
    public convenience init(for types: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)?,
                            configurations: ModelConfiguration...) throws {
        try self.init(for: types, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Xcode's template: `ModelContainer(for: schema, configurations: [modelConfiguration])`.
    public convenience init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: [ModelConfiguration]) throws {
        try self.init(for: try givenSchema.checked().types, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for a `Schema`'s models, with configurations given one by one.
    public convenience init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: ModelConfiguration...) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// The form of SwiftData's first releases: `ModelContainer(for: fullSchema, trips, people)`.
    public convenience init(for givenSchema: Schema, _ configurations: ModelConfiguration...) throws {
        try self.init(for: givenSchema, migrationPlan: nil, configurations: configurations)
    }

    /// The models `types` (and every model they relate to) in the stores `configurations`
    /// describe: one store when there is one configuration (or none: the default store); with
    /// several, each configuration's models in a store of their own (Docs/guides/porting-from-swiftdata.md).
    public convenience init(for types: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                            configurations: [ModelConfiguration]) throws {
        guard configurations.count > 1 else {
            try self.init(for: types, migrationPlan: migrationPlan, configurations: configurations.first ?? ModelConfiguration())
            return
        }
        try self.init(partitioning: types, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Opens the store, first migrating it with `migrationPlan` when it is in an older version of
    /// the plan (Docs/guides/migration.md). `types` are the newest version's models.
    public init(for types: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
                configurations configuration: ModelConfiguration = ModelConfiguration()) throws {
        // With a plan, the models are known as its newest version.
        let version = migrationPlan?.schemas.last.flatMap { newest in
            Set(newest.models.map { ObjectIdentifier($0) }).isSuperset(of: types.map { ObjectIdentifier($0) }) ? newest.versionIdentifier : nil
        }
        schema = try SchemaBuilder.build(types: types, version: version)
        self.configuration = configuration
        captured = nil
        partitions = nil
        guard !configuration.isStoredInMemoryOnly, let url = configuration.url else {
            graph = Graph(schema: schema)
            store = nil
            blobs = nil
            pipeline = CommitPipeline(graph: graph, destination: .memory)
            return
        }
        if let migrationPlan, !configuration.isReadOnly {
            try Migrator(plan: migrationPlan, directory: url.path, configuration: configuration).run()
        }
        let store = try Store.open(directory: url.path, schema: schema, options: configuration.storeOptions)
        self.store = store
        blobs = store.blobs
        graph = store.graph
        pipeline = store.pipeline
    }

    /// A container over a graph that commits nowhere: what its contexts save is applied to the
    /// graph and kept for `takeCapturedOperations()` (a migration stage's old or new side).
    init(staging schema: Schema, graph: Graph, blobs: BlobStore?, configuration: ModelConfiguration) {
        self.schema = schema
        var configuration = configuration
        configuration.autosaveEnabled = false
        self.configuration = configuration
        self.graph = graph
        self.blobs = blobs
        store = nil
        let captured = Locked<[LogOperation]>([])
        self.captured = captured
        pipeline = CommitPipeline(graph: graph, destination: .staging(captured))
        partitions = nil
    }

    /// A container over other containers, one per store (`init(partitioning:…)`).
    init(facadeOver containers: [ModelContainer], indexByEntity: [String: Int], schema: Schema, configuration: ModelConfiguration) {
        self.schema = schema
        self.configuration = configuration
        graph = Graph(schema: schema)
        store = nil
        blobs = nil
        pipeline = CommitPipeline(graph: graph, destination: .memory)
        captured = nil
        partitions = ContainerPartitions(containers: containers, indexByEntity: indexByEntity)
    }

    func takeCapturedOperations() -> [LogOperation] {
        captured?.withLock { operations in
            defer { operations = [] }
            return operations
        } ?? []
    }

    deinit { store?.close() }

    /// The main actor's context, created on first use; autosaves unless the configuration says
    /// otherwise. It lives until `close()`, like SwiftData's, which the container owns.
    @MainActor public var mainContext: ModelContext {
        if let context = MainContextStore.contexts[ObjectIdentifier(self)] { return context }
        let context = ModelContext(self)
        context.link.home = .mainActor
        for part in context.partitions?.contexts ?? [] { part.link.home = .mainActor }
        context.autosaveEnabled = configuration.autosaveEnabled
        if configuration.isUndoEnabled { context.undoManager = UndoManager() }
        MainContextStore.contexts[ObjectIdentifier(self)] = context
        return context
    }

    /// Closes the store: the autosaving contexts it is called beside — mainContext when called on
    /// the main actor, a model actor's context when called on that actor — are autosaved first if
    /// they have unsaved changes (failures go to their autosave error handlers), then the log is
    /// closed and its lock released. Other contexts belong to tasks that close cannot reach: save
    /// them first. Their later saves throw `StorageError.closed` and keep their changes.
    public func close() {
        if let partitions {
            partitions.containers.forEach { $0.close() }
            let id = ObjectIdentifier(self)
            Task { @MainActor in MainContextStore.contexts[id] = nil }
            return
        }
        let onMainQueue = MainQueue.isCurrent, executor = RunningModelExecutor.current
        let reachable = contexts.withLock { links in
            links.filter { link in
                switch link.home {
                case .mainActor: return onMainQueue
                case .executor: return executor != nil && link.modelExecutor.map(ObjectIdentifier.init) == executor
                case .task: return false
                }
            }
        }
        for context in reachable.compactMap(\.context) where context.autosaveEnabled {
            context.runAutosave()
        }
        store?.close()
        // The main context lives (and keeps the container alive) until the container closes.
        let id = ObjectIdentifier(self)
        Task { @MainActor in MainContextStore.contexts[id] = nil }
    }

    /// The number of the newest committed transaction.
    public var lastTransaction: UInt64 { graph.lastTransaction }

    func register(_ link: ContextLink) {
        contexts.withLock { $0.append(link) }
    }

    func unregister(_ link: ContextLink) {
        contexts.withLock { list in list.removeAll { $0 === link } }
    }

    /// How many contexts are alive (tests).
    var registeredContextCount: Int { contexts.withLock { $0.count } }

    /// Commits one transaction through the pipeline: `encode` runs under its lock (so
    /// validation and encoding see no other save in between); once the transaction is written
    /// and synced, the other contexts hear of it.
    @discardableResult
    func commit(from saver: ModelContext?, author: String, _ encode: () throws -> [LogOperation]) throws -> (UInt64, ChangeSummary) {
        try commit(from: saver, author: author) { TransactionChanges(operations: try encode()) }
    }

    /// `cannotFail`: as `CommitPipeline.commit` calls it.
    func commit(from saver: ModelContext?, author: String, _ encode: () throws -> TransactionChanges,
                cannotFail: () -> Void = {}) throws -> (UInt64, ChangeSummary) {
        var summary: ChangeSummary?
        let number = try pipeline.commit(author: author, encode: encode, cannotFail: cannotFail) { _, changes in
            let committed = ChangeSummary(changes: changes, schema: schema)
            summary = committed
            // Through the links: a merge never takes a reference to another context.
            let saverLink = saver?.link
            for link in contexts.withLock({ $0 }) where link !== saverLink {
                link.mergeCommitted(committed)
            }
        }
        return (number, summary!)
    }
}

@MainActor enum MainContextStore {
    static var contexts: [ObjectIdentifier: ModelContext] = [:]
}
