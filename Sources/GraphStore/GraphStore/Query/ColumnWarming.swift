@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreCore

/// Reading one column of many candidate rows in a tight loop before a compiled predicate runs
/// on them: the rows are scattered over a column too large for the cache, and loads that do not
/// depend on each other overlap their cache misses, where the same loads made one by one inside
/// the predicate's closures each wait their turn (at 1M flights this halved the Enroute filter).
extension GraphView {
    /// Reads `column` at every row and returns a checksum of what it read; the caller keeps the
    /// checksum so that the reads cannot be optimised away.
    func warm(_ column: RowCompiler.ColumnRead, rows: [UInt64]) -> UInt64 {
        switch column {
        case let .toOne(entity, relationship): return table(entity).touchToOne(relationship, rows: rows)
        case let .attribute(entity, attribute): return table(entity).columns[attribute].touch(rows: rows)
        }
    }
}
