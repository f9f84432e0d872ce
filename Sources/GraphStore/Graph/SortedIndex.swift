/// Rows of one attribute in value order, for ranges and ordered scans. Small changes move one
/// row in place (binary search, one memmove of 4-byte row numbers); a bulk change marks the
/// index stale and the next reader rebuilds it with one sort.
final class SortedIndex {
    private(set) var rows: [UInt32] = []
    private(set) var isStale = false
    /// Above this many changes in one transaction the index is rebuilt instead of patched.
    static let patchLimit = 512

    func markStale() {
        isStale = true
    }

    /// Rebuilds from the column when stale. Callers hold the graph's write lock or run before publication.
    func rebuildIfStale(column: Column, live: [Bool]) {
        guard isStale else { return }
        rows = live.indices.filter { live[$0] }.map { UInt32($0 + 1) }
        rows.sort { Self.precedes($0, $1, column) }
        isStale = false
    }

    static func precedes(_ a: UInt32, _ b: UInt32, _ column: Column) -> Bool {
        let x = column.value(at: Int(a) - 1), y = column.value(at: Int(b) - 1)
        if Value.ordered(x, y) { return true }
        if Value.ordered(y, x) { return false }
        return a < b
    }

    /// The position where `row` with `value` belongs.
    private func position(of row: UInt32, value: Value, column: Column) -> Int {
        var low = 0, high = rows.count
        while low < high {
            let mid = (low + high) / 2
            let other = rows[mid]
            let v = column.value(at: Int(other) - 1)
            if Value.ordered(v, value) || (!Value.ordered(value, v) && other < row) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Removes `row`, which currently sorts as `oldValue`.
    func remove(_ row: UInt32, oldValue: Value, column: Column) {
        guard !isStale else { return }
        let p = position(of: row, value: oldValue, column: column)
        if p < rows.count && rows[p] == row {
            rows.remove(at: p)
        } else if let i = rows.firstIndex(of: row) {
            rows.remove(at: i)
        }
    }

    /// Inserts `row`, whose column value is already set.
    func insert(_ row: UInt32, column: Column) {
        guard !isStale else { return }
        rows.insert(row, at: position(of: row, value: column.value(at: Int(row) - 1), column: column))
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
