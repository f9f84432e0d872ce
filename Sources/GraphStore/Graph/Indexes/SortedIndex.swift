import GraphStoreCore

/// Rows of one attribute in value order, for ranges and ordered scans. Changes collect as
/// pending inserts and removals while a transaction is applied and are patched in once at its
/// end: each change's place found by binary search (O(k log n)), then moved within one chunk of
/// the order (`SortedRows`), so a small save's cost does not grow with the table. During
/// recovery the merge waits for the end of the whole log.
package final class SortedIndex {
    // These change only under the graph's write lock, and are read (by any number of threads)
    // only under its read lock: no access overlaps a change, so none is checked for
    // exclusivity at run time (about a dozen checks a small save's index upkeep).
    @exclusivity(unchecked) private var order = SortedRows()
    /// Every row in order (a copy: for checkpoints and rebuilding the hash index).
    package var orderedRows: [UInt32] { order.array }
    /// How many rows the order holds.
    package var count: Int { order.count }
    /// The rows at `range`'s positions, in order (a sorted fetch's first or last few).
    package func rows(at range: Range<Int>) -> [UInt32] { order.rows(at: range) }
    /// The row at `position` in the order.
    package func row(at position: Int) -> UInt32 { order[position] }
    @exclusivity(unchecked) private var pendingInserts: [UInt32] = []
    /// Rows leaving their place, with the value that placed them (their column may already
    /// hold a new one).
    @exclusivity(unchecked) private var pendingRemovals: [UInt32: Value] = [:]
    /// When every row changed (or nothing is known), the next merge sorts from scratch.
    @exclusivity(unchecked) private var needsRebuild = false
    /// A transaction with more operations than this rebuilds indexes with one sort instead of merging.
    package static let patchLimit = 512

    /// The attribute's position.
    package let attribute: Int

    package init(attribute: Int) { self.attribute = attribute }

    /// True while changes wait to be merged; readers only ever see a merged index.
    package var isStale: Bool { needsRebuild || !pendingInserts.isEmpty || !pendingRemovals.isEmpty }

    package func markStale() { needsRebuild = true }

    /// Takes an order read from a checkpoint (already merged), of rows holding `column`'s values.
    package func restore(_ order: [UInt32], column: Column) {
        self.order = Self.order(of: order, column: column)
        pendingInserts = []
        pendingRemovals = [:]
        needsRebuild = false
    }

    /// `row` leaves its place (its value, `oldValue`, is about to change, or it is deleted).
    package func remove(_ row: UInt32, oldValue: Value) {
        guard !needsRebuild else { return }
        if let i = pendingInserts.firstIndex(of: row) { pendingInserts.remove(at: i) }
        // The first removal's value is the one the order places the row by.
        if pendingRemovals[row] == nil { pendingRemovals[row] = oldValue }
    }

    /// `row` (whose column value is set) takes its place.
    package func insert(_ row: UInt32) {
        guard !needsRebuild else { return }
        // Past a few hundred changes one sort beats merging (and keeps `remove` cheap).
        if pendingInserts.count >= Self.patchLimit {
            markStale()
            return
        }
        pendingInserts.append(row)
    }

    package static func precedes(_ a: UInt32, _ b: UInt32, _ column: Column) -> Bool {
        let x = column.value(at: Int(a) - 1), y = column.value(at: Int(b) - 1)
        if Value.ordered(x, y) { return true }
        if Value.ordered(y, x) { return false }
        return a < b
    }

    /// Merges pending changes (or rebuilds). Called under the graph's write lock.
    package func consolidate(column: Column, live: ChunkedArray<Bool>) {
        if needsRebuild {
            rebuild(column: column, live: live)
        } else if isStale {
            let added = pendingInserts.filter { Int($0) <= live.count && live[Int($0) - 1] }
            // Many removals (a large delete) cost less as one rebuild than a search each.
            if pendingRemovals.count * 16 > order.count || !patch(adding: added, column: column) {
                rebuild(column: column, live: live)
            }
        }
        // A small save's pending lists are kept for the next (allocated and freed on every save
        // otherwise); a large transaction's are let go.
        let keep = pendingInserts.capacity <= Self.patchLimit && pendingRemovals.capacity <= Self.patchLimit
        pendingInserts.removeAll(keepingCapacity: keep)
        pendingRemovals.removeAll(keepingCapacity: keep)
        needsRebuild = false
    }

    /// Every live row, sorted from scratch.
    private func rebuild(column: Column, live: ChunkedArray<Bool>) {
        let liveRows = live.indices.filter { live[$0] }.map { UInt32($0 + 1) }
        order = Self.order(of: column.rowsInIntegerOrder(liveRows) ?? liveRows.sorted { Self.precedes($0, $1, column) }, column: column)
    }

    /// `rows`, already in order, as the index keeps them: with their order keys when the
    /// column has them.
    private static func order(of rows: [UInt32], column: Column) -> SortedRows {
        SortedRows(rows, value: { column.value(at: Int($0) - 1) },
                   key: column.hasOrderKeys ? { column.orderKey(at: Int($0) - 1) } : nil)
    }

    /// Takes the pending removals out of the order, then places `added`; false when a
    /// removal's row is not where its value places it (then the caller rebuilds).
    private func patch(adding added: [UInt32], column: Column) -> Bool {
        // A row's value as the order has it: what it had when it was removed, if it was.
        func placed(_ row: UInt32) -> Value {
            pendingRemovals.isEmpty ? column.value(at: Int(row) - 1) : pendingRemovals[row] ?? column.value(at: Int(row) - 1)
        }
        func firstPosition(notBefore value: Value, _ row: UInt32) -> Int {
            func isBefore(_ other: UInt32, _ otherValue: Value) -> Bool {
                Value.ordered(otherValue, value) || (!Value.ordered(value, otherValue) && other < row)
            }
            if order.isKeyed, let key = column.orderKey(of: value) {
                return order.firstPosition(notBefore: row, key: key, isBefore: isBefore, value: placed)
            }
            return order.firstPosition(where: isBefore, value: placed)
        }
        // An index that starts empty keeps keys from its first row, as a rebuilt one does.
        if order.isEmpty && !order.isKeyed && column.hasOrderKeys { order = SortedRows(keyed: true) }
        var removals: [Int] = []
        removals.reserveCapacity(pendingRemovals.count)
        for (row, value) in pendingRemovals {
            let position = firstPosition(notBefore: value, row)
            if position < order.count && order[position] == row {
                removals.append(position)
            } else if order.contains(row) {
                return false
            }
            // Otherwise the row was inserted and removed within this transaction: never placed.
        }
        // From the last, so that the positions found stay right.
        for position in removals.sorted(by: >) { order.remove(at: position, value: placed) }
        // What is left holds its column's values: each added row goes where its value goes.
        pendingRemovals.removeAll(keepingCapacity: true)
        for row in added {
            order.insert(row, at: firstPosition(notBefore: column.value(at: Int(row) - 1), row),
                         key: order.isKeyed ? column.orderKey(at: Int(row) - 1) : 0, value: placed)
        }
        return true
    }

    /// Whether the order's chunk fences hold their rows' values in `column` (for tests: true
    /// whenever the index is merged).
    package func fencesMatch(column: Column) -> Bool {
        order.fencesMatch(value: { column.value(at: Int($0) - 1) }, key: column.hasOrderKeys ? { column.orderKey(at: Int($0) - 1) } : nil)
    }

    /// Rows whose value lies in the range, in order (bounds are nil for open ends).
    package func rows(from lower: Value?, includingLower: Bool, to upper: Value?, includingUpper: Bool, column: Column) -> ArraySlice<UInt32> {
        func firstIndex(where predicate: (Value) -> Bool) -> Int {
            order.firstPosition(where: { _, value in !predicate(value) }, value: { column.value(at: Int($0) - 1) })
        }
        // Nulls sort first and never match a range.
        var start = firstIndex { $0 != .null }
        if let lower {
            start = max(start, firstIndex { includingLower ? !Value.ordered($0, lower) : Value.ordered(lower, $0) })
        }
        var end = order.count
        if let upper {
            end = firstIndex { includingUpper ? Value.ordered(upper, $0) : !Value.ordered($0, upper) }
        }
        return start < end ? ArraySlice(order.rows(at: start..<end)) : []
    }
}

extension SortedIndex: TableIndex {
    package var keyAttributes: [Int] { [attribute] }
    package var keyRelationships: [Int] { [] }
    package var isKeptRowByRowInBulk: Bool { false }

    package func remove(row: UInt32, from table: EntityTable, bulk: Bool) {
        if bulk { return markStale() }
        remove(row, oldValue: table.columns[attribute].value(at: Int(row) - 1))
    }

    package func add(row: UInt32, to table: EntityTable, bulk: Bool) {
        if bulk { return markStale() }
        insert(row)
    }

    package func refresh(in table: EntityTable) {
        if isStale { consolidate(column: table.columns[attribute], live: table.live) }
    }

    /// The checkpoint's order when it has one for every live row; otherwise sorted anew.
    package func restoreJob(for table: EntityTable, image: EntityTable.Image) -> () -> Void {
        let column = table.columns[attribute], live = table.live, liveCount = table.liveCount
        let order = image.sorted[attribute]
        return {
            if let order, order.count == liveCount {
                self.restore(order, column: column)
            } else {
                self.markStale()
                self.consolidate(column: column, live: live)
            }
        }
    }
}
