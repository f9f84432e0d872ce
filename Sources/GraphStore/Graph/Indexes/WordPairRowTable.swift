import CSwiftRuntime
@_spi(GraphStoreInternals) import GraphStoreCore

/// A key of two words → its rows: the table of a compound index whose key is one or two
/// integers or to-ones (`CompoundKeyIndex`). Open addressing with linear probing, as
/// `StringRowTable`: one 24-byte entry holds the key and, for a key of one row (an airport and
/// an airline name a flight or two), the row itself; a key of several rows holds the place of
/// their list. Rebuilt at open for a million rows, it makes no allocation per key or row, and
/// a key's hash is two multiplications. Deletion shifts later entries of the run back (no
/// tombstones, `LinearProbing`).
package final class WordPairRowTable {
    private struct Entry {
        var first: UInt64
        var second: UInt64
        /// The key's one row; `empty` for a free entry, `listed` when the rows are in
        /// `lists[list]`.
        var row: UInt32
        var list: UInt32
    }

    private static let empty: UInt32 = 0
    private static let listed = UInt32.max
    private static let free = Entry(first: 0, second: 0, row: empty, list: 0)

    // Written only by the index's owner, which serialises its writers (the graph's write lock,
    // or the one job rebuilding it at open): no run-time exclusivity checks, which were a fifth
    // of a rebuild.
    @exclusivity(unchecked) private var entries: [Entry]
    private var mask: Int
    /// Keys of several rows, and the places in `lists` no key uses.
    @exclusivity(unchecked) private var lists: [[UInt32]] = []
    @exclusivity(unchecked) private var unusedLists: [UInt32] = []
    /// How many keys the table holds.
    @exclusivity(unchecked) package private(set) var count = 0
    /// Per table, so that no one set of keys collides in every process.
    private let seed = UInt64.random(in: .min ... .max)

    package init(minimumCapacity: Int = 0) {
        let size = LinearProbing.size(for: minimumCapacity)
        entries = Array(repeating: Self.free, count: size)
        mask = size - 1
    }

    /// The rows holding the key (first, second), in ascending order.
    package func rows(_ first: UInt64, _ second: UInt64) -> [UInt32] {
        guard let index = find(first, second) else { return [] }
        let entry = entries[index]
        return entry.row == Self.listed ? lists[Int(entry.list)] : [entry.row]
    }

    /// Adds `row` to the key's rows (nothing when it is there).
    package func add(_ row: UInt32, _ first: UInt64, _ second: UInt64) {
        precondition(row != Self.empty && row != Self.listed, "row \(row) is out of range")
        var index = home(first, second)
        while entries[index].row != Self.empty {
            if entries[index].first == first && entries[index].second == second {
                addRow(row, at: index)
                return
            }
            index = (index + 1) & mask
        }
        entries[index] = Entry(first: first, second: second, row: row, list: 0)
        count += 1
        if LinearProbing.isOverfull(count: count, size: mask + 1) { resize(to: LinearProbing.size(for: count)) }
    }

    private func addRow(_ row: UInt32, at index: Int) {
        let entry = entries[index]
        if entry.row == Self.listed {
            lists[Int(entry.list)].insertInOrder(row)
            return
        }
        guard entry.row != row else { return }
        let pair = [min(entry.row, row), max(entry.row, row)]
        let list: UInt32
        if let unused = unusedLists.popLast() {
            list = unused
            lists[Int(list)] = pair
        } else {
            list = UInt32(lists.count)
            lists.append(pair)
        }
        entries[index].row = Self.listed
        entries[index].list = list
    }

    /// Adds each of `rows`, none of which the table holds, to its key's rows (a rebuild's, in
    /// ascending order, so each is appended to its key's list), starting to load the entries of
    /// a batch's keys before adding any: a rebuild's adds land all over the table, and one
    /// after another each waited for a cache miss.
    package func add(new rows: [(row: UInt32, first: UInt64, second: UInt64)]) {
        entries.withUnsafeBufferPointer { entries in
            for item in rows { graphstore_prefetch(entries.baseAddress! + home(item.first, item.second)) }
        }
        for item in rows { add(item.row, item.first, item.second) }
    }

    /// Takes `row` out of the key's rows (and the key out with its last row).
    package func remove(_ row: UInt32, _ first: UInt64, _ second: UInt64) {
        guard let index = find(first, second) else { return }
        let entry = entries[index]
        guard entry.row == Self.listed else {
            if entry.row == row { removeEntry(at: index) }
            return
        }
        let list = Int(entry.list)
        guard lists[list].removeInOrder(row), lists[list].count == 1 else { return }
        // Back to one row, kept in the entry.
        entries[index].row = lists[list][0]
        lists[list] = []
        unusedLists.append(UInt32(list))
    }

    private func removeEntry(at index: Int) {
        let mask = mask, seed = seed
        entries.withUnsafeMutableBufferPointer { entries in
            LinearProbing.removeShifting(at: index, in: entries.baseAddress!, mask: mask, empty: Self.free,
                                         isEmpty: { $0.row == Self.empty },
                                         home: { Self.home($0.first, $0.second, seed: seed, mask: mask) })
        }
        count -= 1
    }

    private func find(_ first: UInt64, _ second: UInt64) -> Int? {
        var index = home(first, second)
        while entries[index].row != Self.empty {
            if entries[index].first == first && entries[index].second == second { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    private func resize(to size: Int) {
        let old = entries
        entries = Array(repeating: Self.free, count: size)
        mask = size - 1
        for entry in old where entry.row != Self.empty {
            var index = home(entry.first, entry.second)
            while entries[index].row != Self.empty { index = (index + 1) & mask }
            entries[index] = entry
        }
    }

    /// Every key and its rows, and whether each entry is found from its home without crossing
    /// an empty entry and every list is a key's (tests).
    package var contentsIfConsistent: [[UInt64]: [UInt32]]? {
        var contents: [[UInt64]: [UInt32]] = [:]
        var listsInUse = 0
        for i in 0...mask where entries[i].row != Self.empty {
            let entry = entries[i]
            guard contents[[entry.first, entry.second]] == nil else { return nil }
            var index = home(entry.first, entry.second)
            while index != i {
                if entries[index].row == Self.empty { return nil }
                index = (index + 1) & mask
            }
            if entry.row == Self.listed {
                guard lists[Int(entry.list)].count > 1 else { return nil }
                listsInUse += 1
            }
            contents[[entry.first, entry.second]] = entry.row == Self.listed ? lists[Int(entry.list)] : [entry.row]
        }
        guard contents.count == count, listsInUse + unusedLists.count == lists.count else { return nil }
        return contents
    }

    @inline(__always)
    private func home(_ first: UInt64, _ second: UInt64) -> Int {
        Self.home(first, second, seed: seed, mask: mask)
    }

    @inline(__always)
    private static func home(_ first: UInt64, _ second: UInt64, seed: UInt64, mask: Int) -> Int {
        Int(truncatingIfNeeded: StringKeyHash.mix(StringKeyHash.mix(seed ^ first) ^ second)) & mask
    }
}
