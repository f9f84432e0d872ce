import Foundation
import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
import Observation

/// The results of a fetch that keep themselves current: after any context's save they update —
/// incrementally, re-checking only the changed rows, when a save touches a few objects of the
/// fetched type and nothing else; by refetching otherwise. Observable: views and
/// `withObservationTracking` see `results` change. Unlike SwiftData's @Query, the predicate and
/// sort can change at run time: assign `descriptor`.
///
/// A live query belongs with its context. Saves of other contexts reach it in the context's home
/// (the main queue for mainContext, the model executor for an actor's context); for any other
/// context they apply the next time `results` is read.
public final class LiveQuery<T: PersistentModel>: Observable {
    /// The context the query fetches in (with several stores, the one that holds `T`).
    public let context: ModelContext
    private let registrar = ObservationRegistrar()
    private var stored: [T] = []
    /// The rows of `stored`: whether a save touched a result is then a question of the rows it
    /// touched, not a walk through every result (a board of ten thousand flights, after each
    /// save of a flight that is on no board). Nil while a result is an unsaved insert: its save
    /// may give it another row (one its unique value already held).
    private var storedRows: RowFlags?
    private var waiting: [ChangeSummary] = []
    private let waitingLock = NSLock()

    /// Change it to re-run the query with another predicate, sort, limit.
    public var descriptor: FetchDescriptor<T> {
        didSet { refetch() }
    }

    /// How many times the results were computed from scratch (the rest were incremental).
    public private(set) var refetchCount = 0
    /// The last failure to update, kept (the results stay as they were).
    public private(set) var lastError: (any Error)?
    /// A save that touches at most this many rows of the type, and no other type, is applied incrementally.
    public var incrementalLimit = 64

    /// A query that fetches `descriptor` in `context` now and again after each save that may change
    /// its results.
    public init(_ descriptor: FetchDescriptor<T>, in context: ModelContext) {
        self.descriptor = descriptor
        // With several stores, the query lives with the store that holds T.
        self.context = (try? context.partitions?.context(for: T.self, in: context.schema)) ?? context
        let reference = WeakLiveQuery(self)
        self.context.link.addLiveQuery(reference)
        refetch()
    }

    /// The current results; reading them under observation tracking (SwiftUI,
    /// `withObservationTracking`) is told when they change.
    public var results: [T] {
        applyWaiting()
        registrar.access(self, keyPath: \.results)
        return stored
    }

    /// Recomputes the results from scratch.
    public func refetch() {
        do {
            let fresh = try context.fetch(descriptor)
            refetchCount += 1
            lastError = nil
            replace(with: fresh)
        } catch {
            lastError = error
        }
    }

    private func replace(with fresh: [T]) {
        registrar.withMutation(of: self, keyPath: \.results) { stored = fresh }
        let savedOnly = !fresh.contains { $0.persistentBacking.state == .inserted }
        storedRows = savedOnly ? RowFlags(fresh.map { $0.persistentBacking.row }) : nil
    }

    /// A commit (this context's or another's) that may change the results.
    func committed(_ summary: ChangeSummary, inHome: Bool) {
        // Kept until the context's next read at home: worked out now, so it keeps no operations.
        if !inHome { summary.settle() }
        waitingLock.withLock { waiting.append(summary) }
        if inHome { applyWaiting() }
    }

    private func applyWaiting() {
        let summaries = waitingLock.withLock {
            defer { waiting = [] }
            return waiting
        }
        guard !summaries.isEmpty else { return }
        guard let entity = context.schema.entity(for: T.self) else { return }
        var touched: Set<UInt64> = []
        var onlyThisType = true
        for summary in summaries {
            for (e, rows) in summary.changes {
                if e == entity.index { touched.formUnion(rows.keys) } else { onlyThisType = false }
            }
            for id in summary.inserted + summary.deleted {
                if id.entityName == entity.name { touched.insert(id.row) } else { onlyThisType = false }
            }
        }
        guard !touched.isEmpty || !onlyThisType else { return }
        // Limits and offsets depend on rows outside the touched ones: refetch those too.
        guard onlyThisType, touched.count <= incrementalLimit, descriptor.fetchLimit == nil, descriptor.fetchOffset ?? 0 == 0 else {
            refetch()
            return
        }
        do {
            let touchesResult = storedRows.map { rows in touched.contains(where: rows.contains) } ?? true
            let kept = touchesResult ? stored.filter { !touched.contains($0.persistentBacking.row) } : stored
            var added: [T] = []
            for row in touched.sorted() {
                // A row deleted by the save is no result, though this context may still hold
                // its object (registered, and not deleted here).
                guard context.graph.read({ $0.isLive(entity: entity.index, row: row) }),
                      let model = context.existingModel(for: PersistentIdentifier(entityName: entity.name, row: row)) as? T,
                      !model.isDeleted else { continue }
                if try evaluatingOnObjects({ try descriptor.predicate?.evaluate(model) ?? true }) { added.append(model) }
            }
            // Unsaved changes of the context may have moved any result in a sort: then they are
            // all sorted again.
            let inOrder = descriptor.sortBy.isEmpty || !context.hasChanges
            if inOrder && kept.count == stored.count && added.isEmpty {
                // None of the changed rows is or becomes a result (a save elsewhere in the
                // store): the results stand, not sorted again, and no change is announced.
                return
            }
            if descriptor.sortBy.isEmpty {
                replace(with: (kept + added).sorted { $0.persistentBacking.row < $1.persistentBacking.row })
            } else if !inOrder || added.count > Self.insertionLimit {
                replace(with: try context.stableSorted(kept + added, by: descriptor.sortBy))
            } else {
                // What is left stays in order: each row that joins is put in its place, as a
                // stable sort of the whole would put it (after the rows it ties with).
                replace(with: try evaluatingOnObjects { try inserting(context.stableSorted(added, by: descriptor.sortBy), into: kept) })
            }
        } catch {
            lastError = error
        }
    }

    /// A change that brings more rows than this into sorted results sorts them all again.
    private static var insertionLimit: Int { 16 }

    /// `added`, in order, put into `sorted` (in order by the descriptor's sort): each after the
    /// last row that does not sort after it.
    private func inserting(_ added: [T], into sorted: [T]) -> [T] {
        var results = sorted
        results.reserveCapacity(sorted.count + added.count)
        for model in added {
            var low = 0, high = results.count
            while low < high {
                let middle = (low + high) / 2
                if order(results[middle], model) == .orderedDescending { high = middle } else { low = middle + 1 }
            }
            results.insert(model, at: low)
        }
        return results
    }

    /// How the descriptor's sort orders `a` and `b`.
    private func order(_ a: T, _ b: T) -> ComparisonResult {
        for sort in descriptor.sortBy {
            let result = sort.compare(a, b)
            if result != .orderedSame { return result }
        }
        return .orderedSame
    }
}

/// Lets a context reach its live queries without keeping them alive.
protocol LiveQueryUpdating: AnyObject {
    func committed(_ summary: ChangeSummary, inHome: Bool)
}

extension LiveQuery: LiveQueryUpdating {}

final class WeakLiveQuery {
    weak var query: (any LiveQueryUpdating)?
    init(_ query: any LiveQueryUpdating) { self.query = query }
}
