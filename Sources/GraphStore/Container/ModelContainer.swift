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
    /// The open store; nil in memory.
    public let store: Store?
    /// What recovery found when the store was opened.
    public var openReport: OpenReport? { store?.report }
    private let commitLock: NSLock
    private let contexts = Mutex<[WeakContext]>([])
    private let misuse = Mutex<[any Error]>([])

    public convenience init(for types: any PersistentModel.Type..., configurations: ModelConfiguration...) throws {
        try self.init(for: types, configurations: configurations.first ?? ModelConfiguration())
    }

    public init(for types: [any PersistentModel.Type], configurations configuration: ModelConfiguration) throws {
        schema = try SchemaBuilder.build(types: types)
        self.configuration = configuration
        guard !configuration.isStoredInMemoryOnly, let url = configuration.url else {
            graph = Graph(schema: schema)
            store = nil
            commitLock = NSLock()
            return
        }
        let store = try Store.open(directory: url.path, schema: schema, options: configuration.storeOptions)
        self.store = store
        graph = store.graph
        commitLock = store.commitLock
    }

    deinit { store?.close() }

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
        store?.close()
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
            if let store {
                number = try store.commit(operations, author: author).number
            } else {
                number = graph.lastTransaction + 1
                graph.apply(operations, number: number)
            }
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
