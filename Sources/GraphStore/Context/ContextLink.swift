import CSwiftRuntime
import Foundation

/// The part of a context that other threads and the context's objects may reach: where the
/// context belongs (read on every property access, to refuse use from elsewhere), its identity
/// map, its live queries, the inbox of other contexts' commits its merge policy waits for, and
/// a way back to the context. One per context; its objects and the container hold it.
///
/// Merges from other threads' saves go through the link alone and never take a reference to
/// the context, so a context is freed only where the app lets go of it. The way back is not a
/// weak reference either: a weak reference gives the context a side table, and every retain
/// and release of the context then takes the runtime's slow path (with 16 writers that was a
/// tenth of each save). The link keeps the context's address and clears it in the context's
/// deinit; the owner reads it directly, anyone else through `swift_tryRetain` under the lock,
/// so a context whose deinit has begun is never handed out (the pattern of ObjectRegistry).
final class ContextLink: @unchecked Sendable {
    private let lock = NSLock()
    private var address: UnsafeMutableRawPointer?
    // Read by every property access of the context's objects (the thread check), so without
    // run-time exclusivity checks; each is only ever read or assigned whole.
    @exclusivity(unchecked) var owner: ContextOwner
    /// Cleared when the context is deinitialised (its objects then answer like unmanaged ones).
    @exclusivity(unchecked) private(set) var contextIsAlive = true
    private var storedMisuse: ModelContextError?
    private var storedAutosavePending = false
    /// The context's identity map, which its objects leave when they are freed (even after the
    /// context itself is gone). Its lock also guards `liveQueries` and the inbox: a merge takes
    /// one lock (with 16 writers every commit is merged into 15 other contexts).
    let registry: ObjectRegistry
    /// The container's schema and committed graph, which the context's objects reach through
    /// their link: one reference per object to keep, not three (ModelBacking).
    let schema: Schema
    let graph: Graph
    /// Which attributes the context's objects are read for, so that lookups load them early.
    let readAhead: AttributeReadAhead
    // The live queries and the inbox are reached only under the registry's lock, each access
    // whole, so without run-time exclusivity checks (with 16 writers every save merges into 15
    // contexts, and each merge paid three).
    /// The context's live queries, told about every commit (guarded by the registry's lock).
    @exclusivity(unchecked) private var liveQueries: [WeakLiveQuery] = []
    /// The model executor that owns the context, if an actor's.
    weak var modelExecutor: DefaultSerialModelExecutor?
    /// Other contexts' commits, waiting to have the merge policy applied at the context's next
    /// save. Only commits made while the context has edits are kept: one made before an edit
    /// cannot clash with it. (A context that never edits would otherwise hold every other
    /// context's summaries forever — an import's among them.)
    @exclusivity(unchecked) private var inbox: [ChangeSummary] = []
    @exclusivity(unchecked) private var inboxWanted = false

    init(owner: ContextOwner, registry: ObjectRegistry, schema: Schema, graph: Graph) {
        self.owner = owner
        self.registry = registry
        self.schema = schema
        self.graph = graph
        readAhead = AttributeReadAhead(entityCount: schema.entities.count)
    }

    deinit { readAhead.deallocate() }

    /// The context, unless it is gone or going.
    var context: ModelContext? {
        // The owner needs no lock: a context is freed only where it is used (nothing else
        // keeps a reference to it), and `detach` ran there before the memory went.
        if owner.isCurrent {
            guard contextIsAlive, let address else { return nil }
            return Unmanaged<ModelContext>.fromOpaque(address).takeUnretainedValue()
        }
        lock.lock()
        defer { lock.unlock() }
        guard let address, graphstore_try_retain(address) else { return nil }
        return Unmanaged<ModelContext>.fromOpaque(address).takeRetainedValue()
    }

    /// Called once, by the context's initialiser.
    func attach(_ context: ModelContext) {
        lock.withLock { address = Unmanaged.passUnretained(context).toOpaque() }
    }

    /// Called by the context's deinit, before its memory goes.
    func detach() {
        lock.withLock {
            address = nil
            contextIsAlive = false
        }
    }

    /// The last use from the wrong thread or actor (kept here, so that recording it never
    /// touches the context from that thread).
    var lastMisuse: ModelContextError? {
        get { lock.withLock { storedMisuse } }
        set { lock.withLock { storedMisuse = newValue } }
    }

    /// An autosave came due while the owner (a plain thread) could not be reached.
    var autosavePending: Bool {
        get { lock.withLock { storedAutosavePending } }
        set { lock.withLock { storedAutosavePending = newValue } }
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

    /// Hands a commit to the live queries, on the owner (or for their next read).
    func notifyLiveQueries(_ summary: ChangeSummary) {
        notifyLiveQueries(summary, registry.lock.withLock { liveQueries.compactMap(\.query) })
    }

    private func notifyLiveQueries(_ summary: ChangeSummary, _ queries: [any LiveQueryUpdating]) {
        guard !queries.isEmpty else { return }
        if owner.isCurrent {
            for query in queries { query.committed(summary, onOwner: true) }
            return
        }
        for query in queries { query.committed(summary, onOwner: false) }
        if case .thread = owner { return }  // applied at the next read of `results`
        let transfer = UncheckedTransfer(queries)
        performOnOwner {
            for query in transfer.value { query.committed(ChangeSummary.empty, onOwner: true) }
        }
    }

    /// Runs `body` where the context belongs: right here when that is here; on the main queue
    /// for mainContext; on the model executor for an actor's context. A context owned by a plain
    /// thread cannot be reached from elsewhere, so its due autosave runs at its next operation.
    func performOnOwner(_ body: @escaping () -> Void) {
        if owner.isCurrent {
            body()
            return
        }
        let transfer = UncheckedTransfer(body)
        switch owner {
        case .mainThread:
            DispatchQueue.main.async { transfer.value() }
        case .executor:
            if let executor = modelExecutor {
                executor.perform { transfer.value() }
            }
        case .thread:
            autosavePending = true
        }
    }
}

// Reflection (debuggers, test failure reports, `dump` of a model, whose backing holds its link)
// stops here: the registry holds its objects without reference counts, which the runtime's
// reflection does not copy safely.
extension ContextLink: CustomReflectable {
    var customMirror: Mirror {
        Mirror(self, children: ["owner": owner.description, "contextIsAlive": contextIsAlive], displayStyle: .class)
    }
}
