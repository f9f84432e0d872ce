import Foundation
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreCore

/// A compiled query run on committed rows for a context without unsaved changes: the plan's
/// rows checked by the condition, put in order from the graph's columns where the first sort
/// key allows it, and only then made into objects. Prepared fetches and ad-hoc `#Predicate`
/// fetches of a shape this context has compiled both end here, so a fresh predicate costs what
/// a prepared one costs once its shape is found.
extension ModelContext {
    /// The objects `compiled` matches for the slots' `values`, in `sortBy`'s order, paged. Nil
    /// when the condition cannot decide (the predicate runs on objects, or a value has no stored
    /// form): the caller then fetches through objects.
    func fetchOnRows<T: PersistentModel>(_ compiled: CompiledQuery, entity: Schema.Entity, values: SlotValues,
                                         sortBy: [SortDescriptor<T>], offset: Int?, limit: Int?) throws -> [T]? {
        guard compiled.condition != nil, values.storedComplete else { return nil }
        let matched: (rows: [UInt64], sorted: Bool) = graph.read { view in
            let executor = QueryExecutor(plan: compiled.plan, schema: schema, entity: entity, view: view, stored: values.stored,
                                         given: values.given, marks: rowMarks)
            var planned: QueryExecutor.Candidates?
            let matched = compiled.matches(in: executor, storedComplete: true, planned: &planned) ?? []
            guard matched.count > 1 else { return (matched, false) }
            let leadingCount = limit.map { LeadingRows.count(offset: offset, limit: $0) }
            if let inOrder = Self.rowsInOrder(matched, by: sortBy, entity: entity, in: view) {
                // In their final order: a limit needs objects for the first rows only.
                guard let leadingCount else { return (inOrder, true) }
                return (Array(inOrder.prefix(leadingCount)), true)
            }
            // Rows in row order, as a scan and `fetch` give them before sorting; with a limit,
            // only those that can lead (in order when the rows could tell it).
            let inRowOrder = matched.sorted()
            if let leadingCount, let leading = LeadingRows.of(inRowOrder, by: sortBy, count: leadingCount, entity: entity, in: view) {
                return (leading.rows, leading.inOrder)
            }
            return (inRowOrder, false)
        }
        guard !matched.rows.isEmpty else { return [] }
        let matches = objects(entity: entity.index, rows: matched.rows, as: T.self)
        // In order already, and not paged: as found. (Sorting and paging, generic over the
        // model type, look up its descriptors' type metadata at run time each time.)
        if matched.sorted || matches.count < 2, offset == nil, limit == nil { return matches }
        return try sortedAndPaged(matches, sortBy: matched.sorted ? [] : sortBy, offset: offset, limit: limit)
    }

    /// `rows` in the order `sortBy` gives their objects, worked out from the graph, when the
    /// first sort key is a stored number or date and no two rows share it (so the other keys
    /// never decide): for a context without unsaved changes, what the objects hold. Nil
    /// otherwise, and the objects are sorted (see `stableSorted`).
    private static func rowsInOrder<T>(_ rows: [UInt64], by sortBy: [SortDescriptor<T>], entity: Schema.Entity,
                                       in view: GraphView) -> [UInt64]? {
        guard let (attribute, forward) = LeadingRows.firstKey(sortBy, entity: entity) else { return nil }
        var keyed: [(key: Double, row: UInt64)] = []
        keyed.reserveCapacity(rows.count)
        for row in rows {
            // Nil, strings and others sort through Foundation.
            guard let key = LeadingRows.numberKey(view.value(entity: entity.index, row: row, attribute: attribute.index)) else { return nil }
            keyed.append((key, row))
        }
        keyed.sort { $0.key < $1.key }
        for i in keyed.indices.dropFirst() where keyed[i].key == keyed[i - 1].key { return nil }
        return forward ? keyed.map(\.row) : keyed.reversed().map(\.row)
    }
}
