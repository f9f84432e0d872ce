import GraphStoreCore

/// A compound index's rows by key: the values of its members (`Schema.CompoundIndex`), a to-one
/// member as its target's row. Rows with a nil member are left out (nil claims nothing, and
/// lookups by nil scan). Kept up row by row; a bulk change marks it stale, and it is rebuilt at
/// the transaction's end, under the graph's write lock.
///
/// Built for millions of rows with about as many keys: a key of integers and to-ones is held
/// as two words in a `WordPairRowTable`, so that building it at open makes no allocation per
/// row or per key.
package final class CompoundKeyIndex {
    package let description: Schema.CompoundIndex
    // These change only under the graph's write lock, and never while being read: a run-time
    // exclusivity check of each change cost as much as the change (a bulk apply marks the
    // index stale once per row it touches).
    /// Keys of one or two integers (a to-one's row is one): nearly every index's.
    @exclusivity(unchecked) private var words = WordPairRowTable()
    /// Every other key.
    @exclusivity(unchecked) private var rowsByValues: [[Value]: [UInt32]] = [:]
    @exclusivity(unchecked) package private(set) var isStale = false

    package init(_ description: Schema.CompoundIndex) { self.description = description }

    /// A key as the index holds it: `.words` for a key of one or two `.int` values (the second
    /// word 0 for one), its values otherwise. Every key of an index has as many values as the
    /// index has members, so two keys are equal exactly when their values are.
    enum Key {
        case words(UInt64, UInt64)
        case values([Value])

        init(_ values: [Value]) {
            switch values.count {
            case 1: self.init(values[0], nil)
            case 2: self.init(values[0], values[1])
            default: self = .values(values)
            }
        }

        /// The key of a one-member (`second` nil) or two-member index.
        init(_ first: Value, _ second: Value?) {
            switch (first, second) {
            case let (.int(a), nil): self = .words(UInt64(bitPattern: a), 0)
            case let (.int(a), .int(b)?): self = .words(UInt64(bitPattern: a), UInt64(bitPattern: b))
            default: self = .values(second.map { [first, $0] } ?? [first])
            }
        }
    }

    package func rows(for key: [Value]) -> [UInt32] { rows(for: Key(key)) }

    func rows(for key: Key) -> [UInt32] {
        switch key {
        case let .words(first, second): words.rows(first, second)
        case let .values(values): rowsByValues[values] ?? []
        }
    }

    func add(_ row: UInt32, key: Key) {
        switch key {
        case let .words(first, second): words.add(row, first, second)
        case let .values(values): rowsByValues[values, default: []].insertInOrder(row)
        }
    }

    func remove(_ row: UInt32, key: Key) {
        switch key {
        case let .words(first, second): words.remove(row, first, second)
        case let .values(values):
            guard let position = rowsByValues.index(forKey: values), rowsByValues.values[position].removeInOrder(row) else { return }
            if rowsByValues.values[position].isEmpty { rowsByValues.remove(at: position) }
        }
    }

    package func markStale() { isStale = true }

    /// How many rows a rebuild hands the word table at once (their cache misses overlap).
    private static let rebuildBatch = 16

    /// Rebuilds from every live row's key.
    private func rebuild(from table: EntityTable) {
        // Most keys have a row or two: room for half as many keys as rows, in the table that
        // will hold them.
        words = WordPairRowTable(minimumCapacity: keysAreWords(in: table) ? table.liveCount / 2 : 0)
        rowsByValues = [:]
        var batch: [(row: UInt32, first: UInt64, second: UInt64)] = []
        batch.reserveCapacity(Self.rebuildBatch)
        let live = table.live
        for slot in live.indices where live[slot] {
            switch indexKey(ofSlot: slot, in: table) {
            case let .words(first, second)?:
                batch.append((UInt32(slot + 1), first, second))
                if batch.count == Self.rebuildBatch {
                    words.add(new: batch)
                    batch.removeAll(keepingCapacity: true)
                }
            case let key?: add(UInt32(slot + 1), key: key)
            case nil: break
            }
        }
        words.add(new: batch)
        isStale = false
    }

    /// The key of `slot`: its members' values, a to-one member as its target's row; nil when a
    /// member is nil.
    package func key(ofSlot slot: Int, in table: EntityTable) -> [Value]? {
        var key: [Value] = []
        key.reserveCapacity(description.members.count)
        for member in description.members {
            guard let value = memberValue(member, ofSlot: slot, in: table) else { return nil }
            key.append(value)
        }
        return key
    }

    /// `key(ofSlot:in:)` as the index holds it, made without an array when it is words.
    private func indexKey(ofSlot slot: Int, in table: EntityTable) -> Key? {
        let members = description.members
        guard members.count <= 2 else { return key(ofSlot: slot, in: table).map(Key.init) }
        guard let first = memberValue(members[0], ofSlot: slot, in: table) else { return nil }
        guard members.count == 2 else { return Key(first, nil) }
        guard let second = memberValue(members[1], ofSlot: slot, in: table) else { return nil }
        return Key(first, second)
    }

    /// Whether every key is `.words`: one or two members, each a to-one or a signed integer.
    private func keysAreWords(in table: EntityTable) -> Bool {
        description.members.count <= 2 && description.members.allSatisfy {
            if case let .attribute(a) = $0 { table.columns[a].layout == .int } else { true }
        }
    }

    /// One member's value in `slot` (a to-one's as its target's row); nil when it is nil.
    private func memberValue(_ member: Schema.CompoundIndex.Member, ofSlot slot: Int, in table: EntityTable) -> Value? {
        switch member {
        case let .attribute(a):
            let value = table.columns[a].value(at: slot)
            return value == .null ? nil : value
        case let .toOne(r):
            let target = table.toOne[r][slot]
            return target == 0 ? nil : .int(Int64(target))
        }
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
        if let key = indexKey(ofSlot: Int(row) - 1, in: table) { remove(row, key: key) }
    }

    package func add(row: UInt32, to table: EntityTable, bulk: Bool) {
        if bulk || isStale { return markStale() }
        if let key = indexKey(ofSlot: Int(row) - 1, in: table) { add(row, key: key) }
    }

    package func refresh(in table: EntityTable) {
        if isStale { rebuild(from: table) }
    }

    package func restoreJob(for table: EntityTable, image: EntityTable.Image) -> () -> Void {
        { self.rebuild(from: table) }
    }
}
