import Foundation

/// A prepared fetch compiled for one context: its predicate's tree with parameter slots, its
/// condition on committed rows (`compiles` false: the predicate runs on objects), and the
/// slots that condition reads, which each run binds.
final class CompiledPreparedFetch {
    let prepared: PreparedPredicate
    let parameters = ParameterSlots()
    let compiles: Bool
    let condition: RowCondition
    /// The column every candidate is checked on first (see ColumnWarming).
    let firstRead: RowCompiler.ColumnRead?
    /// Its index paths, when its shape lets them be worked out once.
    let plan: PreparedPlan

    init(_ prepared: PreparedPredicate, schema: Schema, entity: Schema.Entity) {
        self.prepared = prepared
        plan = PreparedPlan(prepared.node, entity: entity, schema: schema)
        var compiler = RowCompiler(schema: schema, entity: entity)
        compiler.parameters = parameters
        let condition = compiler.condition(prepared.node)
        compiles = condition != nil
        self.condition = condition ?? RowCondition { _, _ in false }
        firstRead = compiler.reads.first
    }
}

/// Running prepared fetches: bind the values, plan with them as constants, filter the planned
/// rows with the condition compiled on the context's first run, then sort and page as `fetch`.
extension ModelContext {
    public func fetch<T: PersistentModel, Parameters>(_ fetch: PreparedFetch<T, Parameters>, _ parameters: Parameters) throws -> [T] {
        try checkOwner("fetch")
        runPendingAutosave()
        // Unsaved changes, or a predicate only objects can answer: the bound descriptor's fetch.
        guard queryPlanningEnabled, !hasChanges, let entity = schema.entity(for: T.self) else {
            return try self.fetch(fetch.descriptor(parameters))
        }
        let compiled = compiledPreparedFetch(fetch.prepared, entity: entity)
        guard compiled.compiles else { return try self.fetch(fetch.descriptor(parameters)) }
        let slots = compiled.parameters, condition = compiled.condition
        // The general planner reads the values as given; a prepared plan, in their stored form.
        var values: [Any] = []
        if !compiled.plan.isUsable { values = fetch.slotValues(parameters) }
        if let stored = fetch.storedSlotValues(parameters) {
            slots.bind(stored: stored)
        } else {
            if values.isEmpty { values = fetch.slotValues(parameters) }
            guard slots.bind(values) else { return try self.fetch(fetch.descriptor(parameters)) }
        }
        let matched: [UInt64] = graph.read { view in
            var planner = QueryPlanner(schema: schema, entity: entity, view: view)
            planner.marks = rowMarks
            planner.parameters = values
            let plan = compiled.plan.isUsable ? planner.candidates(for: compiled.plan, values: slots.stored)
                                              : planner.candidates(for: compiled.prepared.node)
            let rows = plan?.rows ?? view.table(entity.index).liveRows
            slots.resolve(in: view, satisfying: plan?.satisfies ?? [])
            if rows.count >= 64, let first = compiled.firstRead { warmedChecksum &+= view.warm(first, rows: rows) }
            return rows.filter { condition(view, $0) }
        }
        // Rows in row order, as a scan and `fetch` give them before sorting.
        let matches = matched.sorted().compactMap { object(entity: entity.index, row: $0) as? T }
        return try sortedAndPaged(matches, sortBy: fetch.sortBy, offset: fetch.fetchOffset, limit: fetch.fetchLimit)
    }

    /// How a prepared fetch will find its rows for `parameters`: its bound descriptor's plan.
    public func explain<T: PersistentModel, Parameters>(_ fetch: PreparedFetch<T, Parameters>, _ parameters: Parameters) throws -> String {
        try explain(fetch.descriptor(parameters))
    }

    /// This context's compiled form of a prepared predicate, made on its first run here.
    private func compiledPreparedFetch(_ prepared: PreparedPredicate, entity: Schema.Entity) -> CompiledPreparedFetch {
        let identity = ObjectIdentifier(prepared)
        if let compiled = compiledPreparedFetches[identity] { return compiled }
        // Prepared fetches are meant to be made once and kept; one made per run would only fill this.
        if compiledPreparedFetches.count >= 256 { compiledPreparedFetches.removeAll() }
        let compiled = CompiledPreparedFetch(prepared, schema: schema, entity: entity)
        compiledPreparedFetches[identity] = compiled
        return compiled
    }
}
