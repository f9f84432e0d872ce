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
    private func rebuild(from table: EntityTable) {
        rowsByKey = [:]
        for slot in table.live.indices where table.live[slot] {
            if let key = key(ofSlot: slot, in: table) { rowsByKey[key, default: []].append(UInt32(slot + 1)) }
        }
        isStale = false
    }

    /// The key of `slot`: its members' values, a to-one member as its target's row; nil when a
    /// member is nil.
    package func key(ofSlot slot: Int, in table: EntityTable) -> [Value]? {
        var key: [Value] = []
        key.reserveCapacity(description.members.count)
        for member in description.members {
            switch member {
            case let .attribute(a):
                let value = table.columns[a].value(at: slot)
                if value == .null { return nil }
                key.append(value)
            case let .toOne(r):
                let target = table.toOne[r][slot]
                if target == 0 { return nil }
                key.append(.int(Int64(target)))
            }
        }
        return key
    }
}

extension CompoundKeyIndex: TableIndex {
    package var keyAttributes: [Int] {
        description.members.compactMap { if case let .attribute(a) = $0 { a } else { nil } }
    }

    package var keyRelationships: [Int] {
        description.members.compactMap { if case let .toOne(r) = $0 { r } else { nil } }
    }

    package var isKeptRowByRowInBulk: Bool { false }

    package func remove(row: UInt32, from table: EntityTable, bulk: Bool) {
        if bulk || isStale { return markStale() }
        if let key = key(ofSlot: Int(row) - 1, in: table) { remove(row, key: key) }
    }

    package func add(row: UInt32, to table: EntityTable, bulk: Bool) {
        if bulk || isStale { return markStale() }
        if let key = key(ofSlot: Int(row) - 1, in: table) { add(row, key: key) }
    }

    package func refresh(in table: EntityTable) {
        if isStale { rebuild(from: table) }
    }

    package func restoreJob(for table: EntityTable, image: EntityTable.Image) -> () -> Void {
        { self.rebuild(from: table) }
    }
}
