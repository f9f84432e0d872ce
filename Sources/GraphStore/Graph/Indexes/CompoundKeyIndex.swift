import GraphStoreCore

/// A compound index's rows by key: the values of its members (`Schema.CompoundIndex`), a to-one
/// member as its target's row. Rows with a nil member are left out (nil claims nothing, and
/// lookups by nil scan). Kept up row by row; a bulk change marks it stale, and it is rebuilt at
/// the transaction's end, under the graph's write lock.
package final class CompoundKeyIndex {
    package let description: Schema.CompoundIndex
    private var rowsByKey: [[Value]: [UInt32]] = [:]
    package private(set) var isStale = false

    package init(_ description: Schema.CompoundIndex) { self.description = description }

    package func rows(for key: [Value]) -> [UInt32] { rowsByKey[key] ?? [] }

    package func add(_ row: UInt32, key: [Value]) {
        if !rowsByKey[key, default: []].contains(row) { rowsByKey[key, default: []].append(row) }
    }

    package func remove(_ row: UInt32, key: [Value]) {
        guard var rows = rowsByKey[key], let i = rows.firstIndex(of: row) else { return }
        rows.remove(at: i)
        rowsByKey[key] = rows.isEmpty ? nil : rows
    }

    package func markStale() { isStale = true }

    /// Rebuilds from every live row's key.
    package func rebuild(slots: Int, live: [Bool], key: (Int) -> [Value]?) {
        rowsByKey = [:]
        for slot in 0..<slots where live[slot] {
            if let key = key(slot) { rowsByKey[key, default: []].append(UInt32(slot + 1)) }
        }
        isStale = false
    }
}
