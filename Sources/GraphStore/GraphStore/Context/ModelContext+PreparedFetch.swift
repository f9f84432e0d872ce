import Foundation
import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreCore

/// Running prepared fetches: the predicate is planned and compiled on the context's first run
/// (see CompiledQuery); each run binds the values and runs it on rows (`fetchOnRows`).
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
        let values = fetch.storedSlotValues(parameters).map(SlotValues.init(stored:))
            ?? SlotValues(given: fetch.slotValues(parameters) + fetch.prepared.constants)
        if let found: [T] = try fetchOnRows(compiled, entity: entity, values: values,
                                            sortBy: fetch.sortBy, offset: fetch.fetchOffset, limit: fetch.fetchLimit) {
            return found
        }
        return try self.fetch(fetch.descriptor(parameters))
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
