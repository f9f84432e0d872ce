@_spi(GraphStoreInternals) import GraphStoreCore

extension RowBlock {
    /// Sets a column into the graph's `target` column at the slot of each row, or of the rows
    /// at `items` (positions in `rows`, ascending) when given: a row that leaves the column
    /// unset gives its default for an insert and keeps its value for an update.
    package func write(column: Int, into target: Column, items: [Int]? = nil) {
        let fallback = kind == .insert ? defaults[column] : nil
        guard let items else {
            return target.set(from: columns[column], rows: rows, sources: sources, fallback: fallback)
        }
        target.set(from: columns[column], rows: items.map { rows[$0] }, sources: items.map { sources[$0] }, fallback: fallback)
    }
}
