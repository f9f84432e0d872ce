@_spi(GraphStoreInternals) import GraphStoreCore

/// Positions in a list the caller keeps, found by a hash of each one's key; the caller confirms
/// a candidate by comparing its key. An entry is 8 bytes (the hash's low 32 bits and the
/// position), where a dictionary from the key itself holds the key and the element again: a
/// million unsaved unique values took a 100 MB table that way, and 16 MB this way.
///
/// Open addressing with linear probing, at most 70% full; deletion shifts later entries back
/// (LinearProbing), so there are no tombstones. One key may have several entries.
struct HashedPositions {
    /// 0: free; else the hash's low 32 bits above the position plus one.
    private var entries: [UInt64]
    private var mask: Int
    private(set) var count = 0

    init() {
        mask = 15
        entries = Array(repeating: 0, count: 16)
    }

    /// The hash a key's entries are found by.
    static func hash(_ key: some Hashable) -> Int {
        var hasher = Hasher()
        hasher.combine(key)
        return hasher.finalize()
    }

    /// Room for `count` entries without regrowing.
    mutating func reserveCapacity(_ count: Int) {
        let size = LinearProbing.size(for: count, atLeast: mask + 1)
        if size > mask + 1 { resize(to: size) }
    }

    /// Adds `position` (0 ..< 2³² - 1) under `hash`.
    mutating func insert(hash: Int, position: Int) {
        precondition(position >= 0 && position < Int(UInt32.max), "position out of range")
        let entry = UInt64(UInt32(truncatingIfNeeded: hash)) << 32 | UInt64(position + 1)
        var index = Self.home(entry, mask)
        while entries[index] != 0 { index = (index + 1) & mask }
        entries[index] = entry
        count += 1
        if LinearProbing.isOverfull(count: count, size: mask + 1) { resize(to: (mask + 1) * 2) }
    }

    /// The first position under `hash` that `matches` accepts (positions of other keys with the
    /// same low 32 bits are offered too, so `matches` compares the key).
    func first(hash: Int, where matches: (Int) -> Bool) -> Int? {
        let fingerprint = UInt64(UInt32(truncatingIfNeeded: hash))
        var index = Self.home(fingerprint << 32, mask)
        while true {
            let entry = entries[index]
            if entry == 0 { return nil }
            if entry >> 32 == fingerprint, matches(Int(entry & 0xFFFF_FFFF) - 1) { return Int(entry & 0xFFFF_FFFF) - 1 }
            index = (index + 1) & mask
        }
    }

    /// Removes one entry of `position` under `hash`, if there is one.
    mutating func remove(hash: Int, position: Int) {
        let entry = UInt64(UInt32(truncatingIfNeeded: hash)) << 32 | UInt64(position + 1)
        var index = Self.home(entry, mask)
        while entries[index] != entry {
            if entries[index] == 0 { return }
            index = (index + 1) & mask
        }
        let mask = mask
        entries.withUnsafeMutableBufferPointer { entries in
            LinearProbing.removeShifting(at: index, in: entries.baseAddress!, mask: mask, empty: 0,
                                         isEmpty: { $0 == 0 }, home: { Self.home($0, mask) })
        }
        count -= 1
    }

    private mutating func resize(to size: Int) {
        let old = entries
        entries = Array(repeating: 0, count: size)
        mask = size - 1
        for entry in old where entry != 0 {
            var index = Self.home(entry, mask)
            while entries[index] != 0 { index = (index + 1) & mask }
            entries[index] = entry
        }
    }

    /// An entry's first slot: from its hash bits (the hash is well mixed already).
    @inline(__always)
    private static func home(_ entry: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: entry >> 32) & mask
    }
}
