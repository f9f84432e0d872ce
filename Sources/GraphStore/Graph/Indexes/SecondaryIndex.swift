import Foundation
import GraphStoreCore

/// An indexed attribute's hash index: value → the rows holding it.
///
/// A large transaction (an import, an upsert of every row) does not move rows between values
/// one at a time — a hash lookup and often a list allocated or freed per changed row, most of
/// an upsert's index upkeep — it marks the index stale. The first lookup after that rebuilds it
/// from the attribute's sorted index (merged at the end of every transaction): rebuilding at
/// the end of each large transaction would be paid whether or not anything then looked a value
/// up. Lookups run under the graph's read lock, several at once,
/// so a rebuild and the reads after it hold the index's own lock; changes run under the write
/// lock, with no lookup running.
package final class SecondaryIndex {
    private var rows: [Value: [UInt32]] = [:]
    private var isStale = false
    private let lock = NSLock()
    /// The attribute's position, column and sorted index (the table owns all three).
    package let attribute: Int
    private unowned let column: Column
    private unowned let sorted: SortedIndex

    package init(attribute: Int, column: Column, sorted: SortedIndex) {
        self.attribute = attribute
        self.column = column
        self.sorted = sorted
    }

    /// Under the write lock.
    package func markStale() { isStale = true }

    /// Under the write lock.
    package func add(_ row: UInt32, value: Value) {
        guard !isStale else { return }
        rows[value, default: []].append(row)
    }

    /// Under the write lock.
    package func remove(_ row: UInt32, value: Value) {
        guard !isStale else { return }
        // One hash lookup, then the rows are changed in place.
        if let position = rows.index(forKey: value), let i = rows.values[position].firstIndex(of: row) {
            rows.values[position].remove(at: i)
            if rows.values[position].isEmpty { rows.remove(at: position) }
        }
    }

    /// The rows holding each value, value by value (under the read lock, or the write lock).
    package func rows(for values: [Value]) -> [UInt32] {
        lock.withLock {
            if isStale { rebuild() }
            return values.flatMap { rows[$0] ?? [] }
        }
    }

    /// How many rows the index lists (for tests).
    package var rowCount: Int {
        lock.withLock {
            if isStale { rebuild() }
            return rows.values.reduce(0) { $0 + $1.count }
        }
    }

    /// Every live row under its value, from the attribute's sorted index (merged, so listing
    /// every live row in value order): each value's rows are adjacent there, so each list is
    /// made once at its full size and the table is sized once.
    private func rebuild() {
        let order = sorted.orderedRows
        var rebuilt = [Value: [UInt32]](minimumCapacity: rows.count)
        var start = 0
        while start < order.count {
            let value = column.value(at: Int(order[start]) - 1)
            var end = start + 1
            while end < order.count, column.value(at: Int(order[end]) - 1) == value { end += 1 }
            // `default`: a value unequal to itself (NaN) may come back after others.
            rebuilt[value, default: []].append(contentsOf: order[start..<end])
            start = end
        }
        rows = rebuilt
        isStale = false
    }
}

extension SecondaryIndex: TableIndex {
    package var keyAttributes: [Int] { [attribute] }
    package var keyRelationships: [Int] { [] }
    package var isKeptRowByRowInBulk: Bool { false }

    package func remove(row: UInt32, from table: EntityTable, bulk: Bool) {
        if bulk { return markStale() }
        remove(row, value: column.value(at: Int(row) - 1))
    }

    package func add(row: UInt32, to table: EntityTable, bulk: Bool) {
        if bulk { return markStale() }
        add(row, value: column.value(at: Int(row) - 1))
    }

    /// Rebuilt by the first lookup that needs it, from the sorted index merged by then.
    package func refresh(in table: EntityTable) {}

    package func restoreJob(for table: EntityTable, image: EntityTable.Image) -> () -> Void {
        { self.markStale() }
    }
}
