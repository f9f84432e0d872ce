import GraphStoreCore

/// A unique attribute's index: value → the one row holding it. A class, so updates happen in place.
/// Strings (the usual unique keys) have a table of their own (StringRowTable): an entry holds
/// the key inline beside its row, so a lookup in a large index touches one cache line where a
/// `[Value: UInt32]` touches three.
package final class UniqueIndex {
    private let strings = StringRowTable()
    // Read by every count and lookup (an import asks each row's claims), written under the
    // graph's write lock or by the one thread encoding a batch: no run-time exclusivity checks.
    @exclusivity(unchecked) private var others: [Value: UInt32] = [:]
    /// Whether the attribute is a string (where bulk loads reserve room).
    private let keysAreStrings: Bool
    /// The attribute's position.
    package let attribute: Int
    /// Set by `markStale`: rebuilt from the column at the transaction's end.
    private var needsRebuild = false
    /// Rows a fill hands the string table at once: enough cache misses in flight to overlap.
    private static let fillBatch = 16

    package init(attribute: Int, keysAreStrings: Bool) {
        self.attribute = attribute
        self.keysAreStrings = keysAreStrings
    }

    package subscript(value: Value) -> UInt32? {
        get {
            if case let .string(string) = value { return strings.row(for: string) }
            return others[value]
        }
        set {
            if case let .string(string) = value {
                if let newValue { strings.set(newValue, for: string) } else { strings.remove(string) }
            } else {
                others[value] = newValue
            }
        }
    }

    /// Starts loading where a lookup of the string `key` goes (see `StringRowTable.prefetch`).
    package func prefetch(_ key: String) {
        if keysAreStrings { strings.prefetch(key) }
    }

    package var count: Int { strings.count + others.count }

    package func reserveCapacity(_ count: Int) {
        if keysAreStrings { strings.reserveCapacity(count) } else { others.reserveCapacity(count) }
    }
}

extension UniqueIndex: TableIndex {
    package var keyAttributes: [Int] { [attribute] }
    package var keyRelationships: [Int] { [] }
    package var isKeptRowByRowInBulk: Bool { true }

    package func remove(row: UInt32, from table: EntityTable, bulk: Bool) {
        guard !needsRebuild else { return }
        let value = table.columns[attribute].value(at: Int(row) - 1)
        if self[value] == row { self[value] = nil }
    }

    /// Kept row by row even in bulk: a large transaction's later rows are checked against it.
    package func add(row: UInt32, to table: EntityTable, bulk: Bool) {
        guard !needsRebuild else { return }
        let value = table.columns[attribute].value(at: Int(row) - 1)
        if value != .null { self[value] = row }
    }

    package func markStale() { needsRebuild = true }

    package func refresh(in table: EntityTable) {
        guard needsRebuild else { return }
        needsRebuild = false
        strings.removeAll()
        others = [:]
        fill(from: table.columns[attribute], live: table.live, liveCount: table.liveCount)
    }

    package func restoreJob(for table: EntityTable, image: EntityTable.Image) -> () -> Void {
        let column = table.columns[attribute], live = table.live, liveCount = table.liveCount
        return { self.fill(from: column, live: live, liveCount: liveCount) }
    }

    /// Every live row's value: strings in batches whose entries start loading together
    /// (StringRowTable.set), other values one by one.
    private func fill(from column: Column, live: ChunkedArray<Bool>, liveCount: Int) {
        reserveCapacity(liveCount)
        var batch: [(row: UInt32, key: String)] = []
        batch.reserveCapacity(Self.fillBatch)
        for slot in live.indices where live[slot] {
            let value = column.value(at: slot)
            guard case let .string(key) = value else {
                if value != .null { self[value] = UInt32(slot + 1) }
                continue
            }
            batch.append((UInt32(slot + 1), key))
            if batch.count == Self.fillBatch {
                strings.set(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        strings.set(batch)
    }
}
