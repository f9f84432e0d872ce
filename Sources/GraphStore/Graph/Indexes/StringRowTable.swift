import CSwiftRuntime
@_spi(GraphStoreInternals) import GraphStoreCore

/// String → row, the unique index of a string attribute: open addressing with linear probing,
/// each entry holding its key, the key's hash and its row side by side.
///
/// A `[String: UInt32]` keeps its keys, its values and its occupancy bitmap in three arrays, so
/// a lookup in a large index misses the cache three times; here one entry (24 bytes) answers,
/// and for keys of up to 15 UTF-8 bytes (idents, codes), which Swift keeps inline, the
/// comparison touches no other memory. Deletion shifts later entries of the run back (no
/// tombstones), so lookups never slow down as rows come and go.
package final class StringRowTable {
    private struct Entry {
        package var key: String
        package var hash: UInt32
        /// `empty` marks a free entry.
        package var row: UInt32
    }

    private static let empty = UInt32.max

    private var entries: UnsafeMutablePointer<Entry>
    private var mask: Int
    // Read by every unique index's count (an import asks it per row) from other files: the
    // index's owner serialises writers, so no run-time exclusivity checks.
    @exclusivity(unchecked) package private(set) var count = 0
    /// Per table, so that no one set of keys collides in every process (see StringKeyHash).
    private let seed = UInt64.random(in: .min ... .max)

    package init(minimumCapacity: Int = 0) {
        let size = LinearProbing.size(for: minimumCapacity)
        entries = Self.allocate(size)
        mask = size - 1
    }

    deinit {
        entries.deinitialize(count: mask + 1)
        entries.deallocate()
    }

    /// The row holding `key`.
    package func row(for key: String) -> UInt32? {
        let hash = hash(key)
        var index = Int(hash) & mask
        while true {
            let entry = entries + index
            if entry.pointee.row == Self.empty { return nil }
            if entry.pointee.hash == hash && entry.pointee.key == key { return entry.pointee.row }
            index = (index + 1) & mask
        }
    }

    /// Starts loading the entry where `key`'s probe begins, for a lookup a little later: a
    /// batch's keys looked up one after another each waited for a cache miss.
    package func prefetch(_ key: String) {
        graphstore_prefetch(entries + (Int(hash(key)) & mask))
    }

    /// Gives `key` to `row` (replacing the row it had).
    package func set(_ row: UInt32, for key: String) {
        set(row, for: key, hash: hash(key))
    }

    /// Gives each key of `batch` its row, as `set` does, having first hashed every key and
    /// started loading the entry where its probe begins: filled one key at a time, a million
    /// keys waited for a cache miss each.
    package func set(_ batch: [(row: UInt32, key: String)]) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: batch.count) { hashes in
            for (i, item) in batch.enumerated() {
                hashes[i] = hash(item.key)
                graphstore_prefetch(entries + (Int(hashes[i]) & mask))
            }
            for (i, item) in batch.enumerated() { set(item.row, for: item.key, hash: hashes[i]) }
        }
    }

    private func set(_ row: UInt32, for key: String, hash: UInt32) {
        precondition(row != Self.empty, "row \(row) is out of range")
        var index = Int(hash) & mask
        while entries[index].row != Self.empty {
            if entries[index].hash == hash && entries[index].key == key {
                entries[index].row = row
                return
            }
            index = (index + 1) & mask
        }
        entries[index] = Entry(key: key, hash: hash, row: row)
        count += 1
        if LinearProbing.isOverfull(count: count, size: mask + 1) { resize(to: LinearProbing.size(for: count)) }
    }

    /// Takes every key out, keeping the capacity.
    package func removeAll() {
        for i in 0...mask where entries[i].row != Self.empty {
            (entries + i).deinitialize(count: 1)
            (entries + i).initialize(to: Entry(key: "", hash: 0, row: Self.empty))
        }
        count = 0
    }

    /// Takes `key` out, if present.
    package func remove(_ key: String) {
        let hash = hash(key)
        var index = Int(hash) & mask
        while true {
            if entries[index].row == Self.empty { return }
            if entries[index].hash == hash && entries[index].key == key { break }
            index = (index + 1) & mask
        }
        let mask = mask
        LinearProbing.removeShifting(at: index, in: entries, mask: mask, empty: Entry(key: "", hash: 0, row: Self.empty),
                                     isEmpty: { $0.row == Self.empty }, home: { Int($0.hash) & mask })
        count -= 1
    }

    package func reserveCapacity(_ minimumCapacity: Int) {
        let size = LinearProbing.size(for: minimumCapacity)
        if size > mask + 1 { resize(to: size) }
    }

    private func resize(to size: Int) {
        let old = entries, oldSize = mask + 1
        entries = Self.allocate(size)
        mask = size - 1
        for i in 0..<oldSize where old[i].row != Self.empty {
            var index = Int(old[i].hash) & mask
            while entries[index].row != Self.empty { index = (index + 1) & mask }
            entries[index] = old[i]
        }
        old.deinitialize(count: oldSize)
        old.deallocate()
    }

    /// Every key and its row, and whether each entry is found from its home without crossing
    /// an empty entry (tests).
    package var contentsIfConsistent: [String: UInt32]? {
        var contents: [String: UInt32] = [:]
        for i in 0...mask where entries[i].row != Self.empty {
            let entry = entries[i]
            guard entry.hash == hash(entry.key), contents[entry.key] == nil else { return nil }
            var index = Int(entry.hash) & mask
            while index != i {
                if entries[index].row == Self.empty { return nil }
                index = (index + 1) & mask
            }
            contents[entry.key] = entry.row
        }
        return contents.count == count ? contents : nil
    }

    private static func allocate(_ size: Int) -> UnsafeMutablePointer<Entry> {
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: size)
        entries.initialize(repeating: Entry(key: "", hash: 0, row: empty), count: size)
        return entries
    }

    @inline(__always)
    private func hash(_ key: String) -> UInt32 {
        UInt32(truncatingIfNeeded: StringKeyHash.hash(key, seed: seed))
    }
}
