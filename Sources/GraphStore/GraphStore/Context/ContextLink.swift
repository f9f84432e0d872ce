import Foundation
@_spi(GraphStoreInternals) import GraphStoreGraph
import GraphStoreLog
import Synchronization
@_spi(GraphStoreInternals) import GraphStoreCore

/// Where work for a context that arrives from elsewhere (a due autosave, other contexts' saves
/// for its live queries) is run: the main queue for `mainContext` (the main actor's), the model
/// executor for a `ModelActor`'s context, and nowhere for any other context — it belongs to
/// whatever task holds it, which nothing else can reach, so that work waits for the context's
/// next use there.
enum ContextHome: Equatable {
    case mainActor
    case executor
    case task
}

/// The part of a context that other threads and the context's objects may reach: which thread is
/// inside the context right now (ContextUse), its identity map, its live queries, the inbox of
/// other contexts' commits its merge policy waits for, and a way back to the context. One per
/// context; its objects and the container hold it.
///
/// Merges from other threads' saves go through the link alone and never take a reference to
/// the context, so a context is freed only where the app lets go of it. The way back is not a
/// weak reference either: a weak reference gives the context a side table, and every retain
/// and release of the context then takes the runtime's slow path. The link keeps the context's
/// reference, unretained, and clears it in the context's deinit; only the context's own isolation domain (its
/// objects, its autosave, its undo actions) follows it back, and the context is freed only there.
final class ContextLink: @unchecked Sendable {
    private let lock = NSLock()
    // Written once by the context's initialiser and cleared by its deinit, both in the context's
    // own domain, which is the only one that reads them: without run-time exclusivity checks.
    @exclusivity(unchecked) private var unretainedContext: Unretained<ModelContext>?
    /// Cleared when the context is deinitialised (its objects then answer like unmanaged ones).
    @exclusivity(unchecked) private(set) var contextIsAlive = true
    /// The thread inside the context now (`graphstore_thread_token`), 0 when none (ContextUse).
    let occupant = Atomic<UInt>(0)
    /// The operation that thread entered with (a static string's address), for the misuse report.
    let occupation = Atomic<UInt>(0)
    /// Where work arriving from elsewhere runs (set before the context is shared, never after).
    @exclusivity(unchecked) var home: ContextHome = .task
    private var storedMisuse: ModelContextError?
    private let storedAutosavePending = Atomic<Bool>(false)
    /// The context's identity map, which its objects leave when they are freed (even after the
    /// context itself is gone). Its lock also guards `liveQueries` and the inbox: a merge takes
    /// one lock (with 16 writers every commit is merged into 15 other contexts).
    let registry: ObjectRegistry
    /// The container's schema and committed graph, which the context's objects reach through
    /// their link: one reference per object to keep, not three (ModelBacking).
    let schema: Schema
    let graph: Graph
    /// Where the store keeps external-storage values; nil in memory, where they stay inline.
    let blobs: BlobStore?
    /// The attribute values of the context's unsaved inserts, by column. Here rather than in the
    /// context because an insert's values must stay readable through its link after the context
    /// is gone, as a fetched object's stored ones do; only the context's own domain touches it.
    @exclusivity(unchecked) var unsavedValues = UnsavedValues()
    /// Which attributes the context's objects are read for, so that lookups load them early.
    let readAhead: AttributeReadAhead
    /// The order of the context's last large fetch, so that reading it in order loads ahead.
    let resultReadAhead = ResultReadAhead()
    // The live queries and the inbox are reached only under the registry's lock, each access
    // whole, so without run-time exclusivity checks (with 16 writers every save merges into 15
    // contexts, and each merge paid three).
    /// The context's live queries, told about every commit (guarded by the registry's lock).
    @exclusivity(unchecked) private var liveQueries: [WeakLiveQuery] = []
    /// The model executor that owns the context, if an actor's.
    weak var modelExecutor: DefaultSerialModelExecutor?
    /// With a container of several stores: the context the app made, of which this context is
    /// one store's part (what its objects answer as their `modelContext`).
    weak var facade: ModelContext?
    /// Other contexts' commits, waiting to have the merge policy applied at the context's next
    /// save. Only commits made while the context has edits are kept: one made before an edit
    /// cannot clash with it. (A context that never edits would otherwise hold every other
    /// context's summaries forever — an import's among them.)
    @exclusivity(unchecked) private var inbox: [ChangeSummary] = []
    @exclusivity(unchecked) private var inboxWanted = false

    init(registry: ObjectRegistry, schema: Schema, graph: Graph, blobs: BlobStore?) {
        self.registry = registry
        self.schema = schema
        self.graph = graph
        self.blobs = blobs
        readAhead = AttributeReadAhead(entityCount: schema.entities.count)
    }

    deinit { readAhead.deallocate() }

    /// The context, unless it is gone. Asked only in the context's own isolation domain (by its
    /// objects, its autosave and its undo actions), where the context is also freed: `detach`
    /// ran there before its memory went.
    var context: ModelContext? {
        guard contextIsAlive, let unretainedContext else { return nil }
        return unretainedContext.object
    }

    /// Calls `body` with the context, retaining nothing; nil when it is gone. Only from the
    /// context's own domain (where its owner keeps it alive for the call).
    @inline(__always)
    func withContext<Result>(_ body: (ModelContext) throws -> Result) rethrows -> Result? {
        guard contextIsAlive, let unretainedContext else { return nil }
        return try unretainedContext.with(body)
    }

    /// Called once, by the context's initialiser.
    func attach(_ context: ModelContext) {
        unretainedContext = Unretained(context)
    }

    /// Called by the context's deinit, before its memory goes.
    func detach() {
        unretainedContext = nil
        contextIsAlive = false
    }

    /// The last concurrent use found (kept here, so that recording it never touches the
    /// context from the misusing thread).
    var lastMisuse: ModelContextError? {
        get { lock.withLock { storedMisuse } }
        set { lock.withLock { storedMisuse = newValue } }
    }

    /// An autosave came due for a context with no home to run it in: its next operation runs it.
    var autosavePending: Bool {
        get { storedAutosavePending.load(ordering: .acquiring) }
        set { storedAutosavePending.store(newValue, ordering: .releasing) }
    }

    /// Registers a live query of the context, to be told about commits.
    func addLiveQuery(_ query: WeakLiveQuery) {
        registry.lock.withLock { liveQueries.append(query) }
    }

    // MARK: The inbox

    /// The context's unsaved edits began (keep other contexts' commits from now on) or ended
    /// (drop them).
    func setWantsCommits(_ wanted: Bool) {
        registry.lock.withLock {
            inboxWanted = wanted
            if !wanted { inbox = [] }
        }
    }

    /// Empties the inbox, returning what it held.
    func takeInbox() -> [ChangeSummary] {
        registry.lock.withLock {
            defer { inbox = [] }
            return inbox
        }
    }

    /// How many other contexts' commits wait for the merge policy (tests).
    var pendingMergeCount: Int { registry.lock.withLock { inbox.count } }

    /// Whether every waiting summary is worked out, holding no operations (tests).
    var pendingMergesAreSettled: Bool { registry.lock.withLock { inbox.allSatisfy(\.isSettled) } }

    // MARK: Merging other contexts' commits

    /// Another context's save: the committed rows changed under this context's registered
    /// objects. Their clean properties already read the new values (they read the graph); tell
    /// their observers. Properties the context has unsaved edits for keep the edits.
    ///
    /// Runs on the saving context's thread: it touches only the (locked) registry, the inbox and
    /// the observers, and leaves the merge policy to the context's own next save.
    func mergeCommitted(_ summary: ChangeSummary) {
        // One pass under one lock for the inbox, the live queries and the changed rows' objects.
        var queries: [any LiveQueryUpdating] = []
        var touched: [(model: any PersistentModel, names: Set<String>)] = []
        var kept = false
        registry.lock.withLock {
            if inboxWanted {
                inbox.append(summary)
                kept = true
            }
            if !liveQueries.isEmpty { queries = liveQueries.compactMap(\.query) }
            // A context holding none of the changed rows needs no summary worked out.
            guard !registry.isEmptyLocked, summary.mayChange(anyOf: registry.holdsLocked) else { return }
            for (entity, rows) in summary.changes {
                for (row, names) in rows {
                    if let model = registry.objectLocked(entity: entity, row: row) { touched.append((model, names)) }
                }
            }
        }
        // A summary kept for later is worked out now, outside the lock, so that it lets the
        // transaction's operations go.
        if kept { summary.settle() }
        notifyLiveQueries(summary, queries)
        for (model, names) in touched {
            for name in names { model.committedPropertyDidChange(named: name) }
        }
    }

    /// Hands the context's own commit to its live queries (in the context's domain: at once).
    func notifyLiveQueriesOfOwnCommit(_ summary: ChangeSummary) {
        let queries = registry.lock.withLock { liveQueries.compactMap(\.query) }
        for query in queries { query.committed(summary, inHome: true) }
    }

    /// Hands another context's commit to the live queries, from the saving thread: each keeps it
    /// and applies it at home (the main queue, the model executor) or at its next read.
    private func notifyLiveQueries(_ summary: ChangeSummary, _ queries: [any LiveQueryUpdating]) {
        guard !queries.isEmpty else { return }
        for query in queries { query.committed(summary, inHome: false) }
        guard home != .task else { return }  // applied at the next read of `results`
        let transfer = UncheckedTransfer(queries)
        performAtHome {
            for query in transfer.value { query.committed(ChangeSummary.empty, inHome: true) }
        }
    }

    /// Runs `body` later in the context's home: on the main queue for mainContext, as a job of
    /// the model executor for an actor's context. False (and `body` never runs) for any other
    /// context, which has no home that work from elsewhere could reach.
    @discardableResult
    func performAtHome(_ body: @escaping () -> Void) -> Bool {
        let transfer = UncheckedTransfer(body)
        switch home {
        case .mainActor:
            DispatchQueue.main.async { transfer.value() }
            return true
        case .executor:
            guard let modelExecutor else { return false }
            modelExecutor.perform { transfer.value() }
            return true
        case .task:
            return false
        }
    }
}

// Reflection (debuggers, test failure reports, `dump` of a model, whose backing holds its link)
// stops here: the registry holds its objects without reference counts, which the runtime's
// reflection does not copy safely.
extension ContextLink: CustomReflectable {
    var customMirror: Mirror {
        Mirror(self, children: ["home": "\(home)", "contextIsAlive": contextIsAlive], displayStyle: .class)
    }
}
