import Foundation
import Synchronization

/// SwiftData's ModelContainer on GraphStore: discovers the schema once, opens the store
/// (recovering the log into the in-memory graph), and commits every context's saves. Sendable:
/// share it freely; give each thread or actor its own `ModelContext`.
public final class ModelContainer: @unchecked Sendable {
    // Immutable after init, except `contexts` (guarded by its mutex) and `commitLock`'s critical sections.
    public let schema: Schema
    public let configuration: ModelConfiguration
    let graph: Graph
    let log: TransactionLog?
    /// What recovery found when the store was opened.
    public let openReport: OpenReport?
    private let commitLock = NSLock()
    private let contexts = Mutex<[WeakContext]>([])
    private let misuse = Mutex<[any Error]>([])

    public convenience init(for types: any PersistentModel.Type..., configurations: ModelConfiguration...) throws {
        try self.init(for: types, configurations: configurations.first ?? ModelConfiguration())
    }

    public init(for types: [any PersistentModel.Type], configurations configuration: ModelConfiguration) throws {
        schema = try SchemaBuilder.build(types: types)
        self.configuration = configuration
        let graph = Graph(schema: schema)
        self.graph = graph
        guard !configuration.isStoredInMemoryOnly, let url = configuration.url else {
            log = nil
            openReport = nil
            return
        }
        let schema = self.schema
        var translation: SchemaTranslation?
        var identity = false
        var pendingError: (any Error)?
        graph.beginLoading()
        defer { graph.finishLoading() }
        let log = try TransactionLog.open(
            directory: url.path,
            options: LogOptions(durability: configuration.durability, segmentSize: configuration.segmentSize,
                                readOnly: configuration.isReadOnly, salvage: configuration.salvage, fileIO: configuration.fileIO)
        ) { transaction in
            var operations: [LogOperation] = []
            operations.reserveCapacity(transaction.operations.count)
            for operation in transaction.operations {
                if case let .schema(payload) = operation {
                    let record = try SchemaRecord(decoding: payload)
                    let t = SchemaTranslation(record: record, schema: schema)
                    if !t.incompatibilities.isEmpty { pendingError = SchemaError.incompatible(differences: t.incompatibilities) }
                    translation = t
                    identity = SchemaTranslation.isIdentity(record: record, schema: schema)
                    continue
                }
                guard let translation else {
                    throw StorageError.corruption(segment: 0, offset: 0, reason: "transaction \(transaction.number) holds data before any schema record")
                }
                if let translated = identity ? operation : translation.translate(operation) { operations.append(translated) }
            }
            graph.apply(operations, number: transaction.number)
        }
        if let pendingError {
            log.close()
            throw pendingError
        }
        self.log = log
        openReport = log.report
        // Record the schema when the store is new or the models' numbering changed.
        if !identity && !configuration.isReadOnly {
            let receipt = try log.append([.schema(payload: SchemaRecord(schema: schema).encoded())], author: "schema")
            graph.apply([], number: receipt.number)
        }
    }

    deinit { log?.close() }

    /// The main actor's context, created on first use; autosaves unless the configuration says
    /// otherwise. It lives until `close()`, like SwiftData's, which the container owns.
    @MainActor public var mainContext: ModelContext {
        if let context = MainContextStore.contexts[ObjectIdentifier(self)] { return context }
        let context = ModelContext(self)
        context.owner = .mainThread
        context.autosaveEnabled = configuration.autosaveEnabled
        if configuration.isUndoEnabled { context.undoManager = UndoStack() }
        MainContextStore.contexts[ObjectIdentifier(self)] = context
        return context
    }

    /// Closes the store: every autosaving context that belongs to the calling thread (or actor)
    /// and has unsaved changes is autosaved first (failures go to its autosave error handler),
    /// then the log is closed and its lock released. Later saves throw `StorageError.closed`.
    /// Contexts that belong elsewhere are not touched: save them on their own thread first.
    public func close() {
        for context in contexts.withLock({ $0.compactMap(\.context) }) where context.autosaveEnabled && context.owner.isCurrent {
            context.runAutosave()
        }
        log?.close()
        // The main context lives (and keeps the container alive) until the container closes.
        let id = ObjectIdentifier(self)
        Task { @MainActor in MainContextStore.contexts[id] = nil }
    }

    /// The number of the newest committed transaction.
    public var lastTransaction: UInt64 { graph.lastTransaction }

    func register(_ context: ModelContext) {
        contexts.withLock { list in
            list.removeAll { $0.context == nil }
            list.append(WeakContext(context))
        }
    }

    func reportMisuse(_ error: any Error) { misuse.withLock { $0.append(error) } }

    /// Commits one transaction: `encode` runs under the commit lock (the graph changes only under
    /// it, so validation and encoding see no other save in between), then the operations are
    /// appended to the log and applied to the graph, and the other contexts hear of it.
    @discardableResult
    func commit(from saver: ModelContext?, author: String, _ encode: () throws -> [LogOperation]) throws -> (UInt64, ChangeSummary) {
        commitLock.lock()
        let number: UInt64
        let operations: [LogOperation]
        do {
            defer { commitLock.unlock() }
            operations = try encode()
            if let log {
                number = try log.append(operations, author: author).number
            } else {
                number = graph.lastTransaction + 1
            }
            graph.apply(operations, number: number)
        }
        let summary = ChangeSummary(operations: operations, schema: schema)
        for context in contexts.withLock({ $0.compactMap(\.context) }) where context !== saver {
            context.mergeCommitted(summary)
        }
        return (number, summary)
    }
}

final class WeakContext: @unchecked Sendable {
    weak var context: ModelContext?
    init(_ context: ModelContext) { self.context = context }
}

@MainActor enum MainContextStore {
    static var contexts: [ObjectIdentifier: ModelContext] = [:]
}
