/// The rules shared by the open-addressing tables with linear probing (StringRowTable,
/// WordPairRowTable, HashedPositions): how full a table may get, and how an entry is deleted
/// without tombstones (later entries of its run shift back).
@_spi(GraphStoreInternals) public enum LinearProbing {
    /// Whether `count` entries fill a table of `size` past 70%: beyond it, probe runs grow long.
    @inlinable
    @_spi(GraphStoreInternals) public static func isOverfull(count: Int, size: Int) -> Bool {
        count * 10 > size * 7
    }

    /// The smallest power of two from `minimum` (a power of two) that `count` entries fill at
    /// most 70%.
    @inlinable
    @_spi(GraphStoreInternals) public static func size(for count: Int, atLeast minimum: Int = 16) -> Int {
        var size = minimum
        while isOverfull(count: count, size: size) { size *= 2 }
        return size
    }

    /// Deletes the entry at `index` of a table of `mask + 1` entries: each later entry of the run
    /// whose probe from its home passes the hole moves into it (leaving a new hole), and the
    /// last hole becomes `empty`, so no run is ever broken by an empty entry.
    @inlinable
    @_spi(GraphStoreInternals) public static func removeShifting<Entry>(
        at index: Int, in entries: UnsafeMutablePointer<Entry>, mask: Int, empty: Entry,
        isEmpty: (Entry) -> Bool, home: (Entry) -> Int
    ) {
        var hole = index
        var next = (hole + 1) & mask
        while !isEmpty(entries[next]) {
            if mustFill(hole: hole, from: next, home: home(entries[next])) {
                entries[hole] = entries[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        entries[hole] = empty
    }

    /// Whether the entry at `next`, whose home is `home`, must move into the empty slot `hole`
    /// (the probe run being scanned from `hole`): it must when its home lies cyclically outside
    /// (hole, next], because a probe from its home would then stop at the hole before finding it.
    @inlinable
    static func mustFill(hole: Int, from next: Int, home: Int) -> Bool {
        hole <= next ? (home <= hole || home > next) : (home <= hole && home > next)
    }
}
