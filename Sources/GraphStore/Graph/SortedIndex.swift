/// Rows of one attribute in value order, for ranges and ordered scans. Changes collect as
/// pending inserts and removals while a transaction is applied and are merged in once at its end
/// (one pass over the rows, plus sorting the few new ones), so a transaction of k changes to a
/// table of n rows costs O(n + k log k) rather than k shifts of the whole array. During recovery
/// the merge waits for the end of the whole log.
final class SortedIndex {
    private(set) var rows: [UInt32] = []
    private var pendingInserts: [UInt32] = []
    private var pendingRemovals: Set<UInt32> = []
    /// When every row changed (or nothing is known), the next merge sorts from scratch.
    private var needsRebuild = false
    /// A transaction with more operations than this rebuilds indexes with one sort instead of merging.
    static let patchLimit = 512

    /// True while changes wait to be merged; readers only ever see a merged index.
    var isStale: Bool { needsRebuild || !pendingInserts.isEmpty || !pendingRemovals.isEmpty }

    func markStale() { needsRebuild = true }

    /// Takes an order read from a checkpoint (already merged).
    func restore(_ order: [UInt32]) {
        rows = order
        pendingInserts = []
        pendingRemovals = []
        needsRebuild = false
    }

    /// `row` leaves its place (its value is about to change, or it is deleted).
    func remove(_ row: UInt32) {
        guard !needsRebuild else { return }
        if let i = pendingInserts.firstIndex(of: row) { pendingInserts.remove(at: i) }
        pendingRemovals.insert(row)
    }

    /// `row` (whose column value is set) takes its place.
    func insert(_ row: UInt32) {
        guard !needsRebuild else { return }
        // Past a few hundred changes one sort beats merging (and keeps `remove` cheap).
        if pendingInserts.count >= Self.patchLimit {
            markStale()
            return
        }
        pendingInserts.append(row)
    }

    static func precedes(_ a: UInt32, _ b: UInt32, _ column: Column) -> Bool {
        let x = column.value(at: Int(a) - 1), y = column.value(at: Int(b) - 1)
        if Value.ordered(x, y) { return true }
        if Value.ordered(y, x) { return false }
        return a < b
    }

    /// Merges pending changes (or rebuilds). Called under the graph's write lock.
    func consolidate(column: Column, live: [Bool]) {
        if needsRebuild {
            let liveRows = live.indices.filter { live[$0] }.map { UInt32($0 + 1) }
            rows = column.rowsInIntegerOrder(liveRows) ?? liveRows.sorted { Self.precedes($0, $1, column) }
        } else if isStale {
            var kept = pendingRemovals.isEmpty ? rows : rows.filter { !pendingRemovals.contains($0) }
            let added = pendingInserts.filter { Int($0) <= live.count && live[Int($0) - 1] }.sorted { Self.precedes($0, $1, column) }
            if !added.isEmpty {
                var merged: [UInt32] = []
                merged.reserveCapacity(kept.count + added.count)
                var i = 0, j = 0
                while i < kept.count && j < added.count {
                    if Self.precedes(added[j], kept[i], column) {
                        merged.append(added[j]); j += 1
                    } else {
                        merged.append(kept[i]); i += 1
                    }
                }
                merged.append(contentsOf: kept[i...])
                merged.append(contentsOf: added[j...])
                kept = merged
            }
            rows = kept
        }
        pendingInserts = []
        pendingRemovals = []
        needsRebuild = false
    }

    /// Rows whose value lies in the range, in order (bounds are nil for open ends).
    func rows(from lower: Value?, includingLower: Bool, to upper: Value?, includingUpper: Bool, column: Column) -> ArraySlice<UInt32> {
        func firstIndex(where predicate: (Value) -> Bool) -> Int {
            var low = 0, high = rows.count
            while low < high {
                let mid = (low + high) / 2
                if predicate(column.value(at: Int(rows[mid]) - 1)) { high = mid } else { low = mid + 1 }
            }
            return low
        }
        // Nulls sort first and never match a range.
        var start = firstIndex { $0 != .null }
        if let lower {
            start = max(start, firstIndex { includingLower ? !Value.ordered($0, lower) : Value.ordered(lower, $0) })
        }
        var end = rows.count
        if let upper {
            end = firstIndex { includingUpper ? Value.ordered(upper, $0) : !Value.ordered($0, upper) }
        }
        return start < end ? rows[start..<end] : []
    }
}
