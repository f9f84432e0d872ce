/// Rows of one entity kept by column: a batch's inserts, or its updates, as it commits them.
///
/// A batch of a hundred thousand rows made as many `.insert` or `.update` operations, each
/// with an array of values built, encoded, applied and freed, and most of the fresh memory an
/// import touched. A block is encoded into
/// the log as exactly those operations (the same bytes: FILE-FORMAT.md knows no blocks) and
/// applied to the graph straight from its columns. Recovery reads the operations back.
///
/// Immutable once shared, with one exception: a block made with `releasesColumnsWhenApplied`
/// gives up each column as the graph, the last reader of its values, writes it (under the
/// commit lock, before any other thread sees the block).
@_spi(GraphStoreInternals) public final class RowBlock: @unchecked Sendable {
    @usableFromInline package enum Kind: Sendable {
        /// New rows: a column a row leaves unset takes its default.
        case insert
        /// Existing rows: only what a row sets is written.
        case update
    }

    @usableFromInline package let kind: Kind
    package let entity: EntityNumber
    /// Each column's property number.
    package let properties: [PropertyNumber]
    /// The rows written, in order.
    package let rows: [UInt64]
    /// By column, each source row's value (nil: unset). Written only by `releaseColumn`, under
    /// the commit lock before another thread sees the block (above): the run-time exclusivity
    /// check each read otherwise makes costs as much as reading a row's few values.
    @usableFromInline @exclusivity(unchecked) package private(set) var columns: [BatchColumn]
    /// Whether applying the block to the graph frees each column once written there: set by a
    /// context's save, whose transaction is encoded before it is applied and whose summaries
    /// read an insert block's rows only, so that a large save's values are not held twice (in
    /// the block and in the graph's new columns) at its end.
    package let releasesColumnsWhenApplied: Bool
    /// Each row's source row in `columns`.
    @usableFromInline package let sources: [Int]
    /// By column, for inserts: what an unset slot takes.
    @usableFromInline package let defaults: [Value]
    /// `defaults` has a value per column for inserts (it is not read for updates). An update
    /// block keeps only the columns some source row sets (it writes no others, so each column it
    /// keeps is one a row may write), and the caller's column array is left to the caller alone
    /// (a context empties its unsaved columns after the save while the block is still held, and
    /// a shared array would be copied whole).
    package init(kind: Kind, entity: EntityNumber, properties: [PropertyNumber], columns: [BatchColumn],
         defaults: [Value], rows: [UInt64], sources: [Int], releasesColumnsWhenApplied: Bool = false) {
        precondition(properties.count == columns.count && rows.count == sources.count, "a property per column, a source per row")
        precondition(kind == .update || defaults.count == columns.count, "a default per column for inserts")
        self.kind = kind
        self.entity = entity
        self.defaults = defaults
        self.rows = rows
        self.sources = sources
        self.releasesColumnsWhenApplied = releasesColumnsWhenApplied
        if kind == .update {
            let set = columns.indices.filter { !columns[$0].isEmpty }
            self.properties = set.map { properties[$0] }
            self.columns = set.map { columns[$0] }
        } else {
            self.properties = properties
            self.columns = columns
        }
    }

    /// Lets go of a column the graph has written (`releasesColumnsWhenApplied`); its values
    /// read as unset from then on.
    package func releaseColumn(_ column: Int) {
        precondition(releasesColumnsWhenApplied, "a block that keeps its columns")
        columns[column] = BatchColumn()
    }

    /// A block of columns given as optional values (tests).
    package convenience init(kind: Kind, entity: EntityNumber, properties: [PropertyNumber], values: [[Value?]],
                     defaults: [Value], rows: [UInt64], sources: [Int]) {
        let columns = values.map { slots in
            var column = BatchColumn()
            for (row, value) in slots.enumerated() { column.setSlowly(value, row: row) }
            return column
        }
        self.init(kind: kind, entity: entity, properties: properties, columns: columns, defaults: defaults, rows: rows, sources: sources)
    }

    package var count: Int { rows.count }

    /// The `index`th row's values, column by column: every column for an insert (defaults for
    /// what it leaves unset), the columns it sets for an update.
    @inlinable
    @_spi(GraphStoreInternals) public func forEachValue(ofRow index: Int, _ body: (_ column: Int, _ value: Value) -> Void) {
        let source = sources[index]
        switch kind {
        case .insert:
            for column in columns.indices { body(column, columns[column][source] ?? defaults[column]) }
        case .update:
            for column in columns.indices {
                if let value = columns[column][source] { body(column, value) }
            }
        }
    }

    /// Writes the `index`th row exactly as its `.insert` or `.update` operation is encoded
    /// (`ByteWriter.operation`): the tag, the entity and row numbers, the count of values, then
    /// each value as its property number and `ByteWriter.value`'s bytes.
    @inline(__always) package func encodeRow(_ index: Int, into w: inout ByteWriter) {
        w.u8(kind == .insert ? OperationTag.insert.rawValue : OperationTag.update.rawValue)
        w.varint(UInt64(entity))
        w.varint(rows[index])
        // Below 128 columns a row's count of values is one varint byte: written after its
        // values (counted on the way) instead of counted in a pass of its own.
        let countAfter = properties.count < 128
        let countOffset = w.count
        w.varint(countAfter ? 0 : valueCount(ofRow: index))
        let written = encodeValues(ofRow: index, into: &w)
        if countAfter { w.patchU8(UInt8(written), at: countOffset) }
    }

    /// Writes the `index`th row's values as `forEachValue(ofRow:)` gives them, each as its
    /// property number then the value (`ByteWriter.value`'s bytes), and returns how many.
    private func encodeValues(ofRow index: Int, into writer: inout ByteWriter) -> Int {
        let source = sources[index]
        switch kind {
        case .insert:
            for column in columns.indices {
                writer.varint(UInt64(properties[column]))
                switch columns[column].state(ofRow: source) {
                case BatchColumn.set: BatchColumn.encodeValue(of: columns, column: column, row: source, into: &writer)
                case BatchColumn.null: writer.u8(ValueTag.null.rawValue)
                default: writer.value(defaults[column])
                }
            }
            return columns.count
        case .update:
            var written = 0
            for column in columns.indices {
                let state = columns[column].state(ofRow: source)
                guard state != BatchColumn.unset else { continue }
                writer.varint(UInt64(properties[column]))
                if state == BatchColumn.set {
                    BatchColumn.encodeValue(of: columns, column: column, row: source, into: &writer)
                } else {
                    writer.u8(ValueTag.null.rawValue)
                }
                written += 1
            }
            return written
        }
    }

    /// The `index`th row's value of a column; nil when it leaves the column unset.
    package func value(column: Int, ofRow index: Int) -> Value? {
        columns[column][sources[index]]
    }

    /// The `index`th row's string in a column of strings; nil when it sets no string there.
    package func string(column: Int, ofRow index: Int) -> String? {
        let source = sources[index]
        guard columns[column].layout == .string, columns[column].state(ofRow: source) == BatchColumn.set else { return nil }
        return columns[column].strings[source]
    }

    /// How many values the `index`th row writes.
    package func valueCount(ofRow index: Int) -> Int {
        guard kind == .update else { return columns.count }
        let source = sources[index]
        return columns.indices.reduce(0) { $0 + (writes(column: $1, source: source) ? 1 : 0) }
    }

    /// The columns the `index`th row writes.
    package func writtenColumns(ofRow index: Int) -> [Int] {
        let source = sources[index]
        return columns.indices.filter { writes(column: $0, source: source) }
    }

    /// The columns the `index`th row writes as bits, column `c` as bit `c` (nil for a block of
    /// more than 64 columns).
    package func writtenColumnBits(ofRow index: Int) -> UInt64? {
        guard columns.count <= 64 else { return nil }
        let source = sources[index]
        var bits: UInt64 = 0
        for column in columns.indices where writes(column: column, source: source) { bits |= 1 << UInt64(column) }
        return bits
    }

    /// Whether the row at `source` in the columns writes `column`: an insert writes every
    /// column (its default where none was set), an update those set. Read off the column's
    /// state, so that asking which columns a row writes makes none of its values.
    @inline(__always) private func writes(column: Int, source: Int) -> Bool {
        kind == .insert || columns[column].state(ofRow: source) != BatchColumn.unset
    }

    /// The block as the operations the log records for it.
    package var operations: [LogOperation] {
        rows.indices.map { index in
            var values: [PropertyValue] = []
            forEachValue(ofRow: index) { values.append(PropertyValue(properties[$0], $1)) }
            return kind == .insert ? .insert(entity: entity, row: rows[index], values: values)
                : .update(entity: entity, row: rows[index], values: values)
        }
    }
}
