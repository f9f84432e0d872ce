import Foundation
import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreCore

/// Running prepared fetches: the predicate is planned and compiled on the context's first run
/// (see CompiledQuery); each run binds the values, runs the plan and filters its rows with the
/// condition, then sorts and pages as `fetch`.
extension ModelContext {
    /// Runs a prepared fetch with `parameters`: the same objects, in the same order, as
    /// `fetch(prepared.descriptor(parameters))`; planned and compiled on the context's first run of
    /// it.
    public func fetch<T: PersistentModel, Parameters>(_ fetch: PreparedFetch<T, Parameters>, _ parameters: Parameters) throws -> [T] {
        if let partitions { return try partitions.context(for: T.self, in: schema).fetch(fetch, parameters) }
        let entered = try link.enter("fetch")
        defer { link.leave(entered) }
        runPendingAutosave()
        // Unsaved changes, or a predicate only objects can answer: the bound descriptor's fetch.
        guard queryPlanningEnabled, !hasChanges, let entity = schema.entity(for: T.self) else {
            return try self.fetch(fetch.descriptor(parameters))
        }
        let compiled = compiledPreparedFetch(fetch.prepared, entity: entity)
        // Stored forms straight from the parameters when each slot has a typed reader;
        // otherwise converted from the values as given.
        let stored: [Value], given: [Any], complete: Bool
        if let typed = fetch.storedSlotValues(parameters) {
            (stored, given, complete) = (typed, [], true)
        } else {
            given = fetch.slotValues(parameters) + fetch.prepared.constants
            (stored, complete) = QueryPlanner.storedValues(given)
        }
        guard compiled.condition != nil, complete else { return try self.fetch(fetch.descriptor(parameters)) }
        let matched: (rows: [UInt64], sorted: Bool) = graph.read { view in
            let executor = QueryExecutor(plan: compiled.plan, schema: schema, entity: entity, view: view, stored: stored, given: given,
                                         marks: rowMarks)
            var planned: QueryExecutor.Candidates?
            let matched = compiled.matches(in: executor, storedComplete: true, planned: &planned) ?? []
            guard matched.count > 1 else { return (matched, false) }
            if let inOrder = Self.rowsInOrder(matched, by: fetch.sortBy, entity: entity, in: view) { return (inOrder, true) }
            // Rows in row order, as a scan and `fetch` give them before sorting.
            return (matched.sorted(), false)
        }
        guard !matched.rows.isEmpty else { return [] }
        var matches: [T] = []
        matches.reserveCapacity(matched.rows.count)
        for row in matched.rows {
            if let model = downcast(object(entity: entity.index, row: row), to: T.self) { matches.append(model) }
        }
        // In order already, and not paged: as found. (Sorting and paging, generic over the
        // model type, look up its descriptors' type metadata at run time each time.)
        if matched.sorted || matches.count < 2, fetch.fetchOffset == nil, fetch.fetchLimit == nil { return matches }
        return try sortedAndPaged(matches, sortBy: matched.sorted ? [] : fetch.sortBy, offset: fetch.fetchOffset, limit: fetch.fetchLimit)
    }

    /// `rows` in the order `sortBy` gives their objects, worked out from the graph, when the
    /// first sort key is a stored number or date and no two rows share it (so the other keys
    /// never decide): for a context without unsaved changes, what the objects hold. Nil
    /// otherwise, and the objects are sorted (see `stableSorted`).
    private static func rowsInOrder<T>(_ rows: [UInt64], by sortBy: [SortDescriptor<T>], entity: Schema.Entity,
                                       in view: GraphView) -> [UInt64]? {
        guard let first = sortBy.first, let keyPath = first.keyPath,
              case let .attribute(attribute)? = entity.property(for: keyPath) else { return nil }
        var keyed: [(key: Double, row: UInt64)] = []
        keyed.reserveCapacity(rows.count)
        for row in rows {
            let key: Double
            switch view.value(entity: entity.index, row: row, attribute: attribute.index) {
            case let .int(int): key = Double(int)
            case let .uint(uint): key = Double(uint)
            case let .double(double): key = double
            case let .date(date): key = date.timeIntervalSinceReferenceDate
            default: return nil  // nil, strings and others sort through Foundation
            }
            guard SortKeys.isExact(key) else { return nil }
            keyed.append((key, row))
        }
        keyed.sort { $0.key < $1.key }
        for i in keyed.indices.dropFirst() where keyed[i].key == keyed[i - 1].key { return nil }
        return first.order == .forward ? keyed.map(\.row) : keyed.reversed().map(\.row)
    }

    /// How many objects the prepared fetch finds for `parameters` (its bound descriptor's count).
    public func fetchCount<T: PersistentModel, Parameters>(_ fetch: PreparedFetch<T, Parameters>, _ parameters: Parameters) throws -> Int {
        try fetchCount(fetch.descriptor(parameters))
    }

    /// The identifiers of what the prepared fetch finds for `parameters`, in its order.
    public func fetchIdentifiers<T: PersistentModel, Parameters>(_ fetch: PreparedFetch<T, Parameters>,
                                                                _ parameters: Parameters) throws -> [PersistentIdentifier] {
        try self.fetch(fetch, parameters).map(\.persistentModelID)
    }

    /// How a prepared fetch will find its rows for `parameters`: its bound descriptor's plan.
    public func explain<T: PersistentModel, Parameters>(_ fetch: PreparedFetch<T, Parameters>, _ parameters: Parameters) throws -> String {
        try explain(fetch.descriptor(parameters))
    }

    /// This context's compiled form of a prepared predicate, made on its first run here.
    private func compiledPreparedFetch(_ prepared: PreparedPredicate, entity: Schema.Entity) -> CompiledQuery {
        let identity = ObjectIdentifier(prepared)
        if let compiled = compiledPreparedFetches[identity] { return compiled }
        // Prepared fetches are meant to be made once and kept; one made per run would only fill this.
        if compiledPreparedFetches.count >= 256 { compiledPreparedFetches.removeAll() }
        let compiled = CompiledQuery(prepared.shape, schema: schema, entity: entity)
        compiledPreparedFetches[identity] = compiled
        return compiled
    }
}
