@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Row number → element, for a context's identity map: open addressing with linear probing
/// and a multiplicative hash of the row, each slot holding its row and element together.
///
/// Every object a context hands out is entered here and taken out when it is freed; as a
/// `[UInt64: Entry]` that was two SipHash hashes and probes per object made and freed. Rows are never 0, which marks a free slot (whose element is uninitialised).
/// Deletion shifts later entries of the run back (no tombstones), as in StringRowTable.
///
/// Not copyable, its slots in memory of its own: as an array of optional elements, each store
/// and removal checked the array's uniqueness and copied an optional in and out.
struct RowTable<Element>: ~Copyable {
    private struct Slot {
        var row: UInt64
        var element: Element
    }

    private var slots: UnsafeMutablePointer<Slot>
    private var mask: Int
    private(set) var count = 0

    init() {
        mask = 15
        slots = Self.allocate(16)
    }

    deinit {
        Self.free(slots, size: mask + 1)
    }

    subscript(row: UInt64) -> Element? {
        var index = Self.home(row, mask)
        while true {
            let stored = slots[index].row
            if stored == row { return slots[index].element }
            if stored == 0 { return nil }
            index = (index + 1) & mask
        }
    }

    /// Stores `element` for `row`; returns the element it replaced.
    @discardableResult
    mutating func updateValue(_ element: Element, forKey row: UInt64) -> Element? {
        precondition(row != 0, "row 0 is never stored")
        var index = Self.home(row, mask)
        while slots[index].row != 0 {
            if slots[index].row == row {
                let old = slots[index].element
                slots[index].element = element
                return old
            }
            index = (index + 1) & mask
        }
        (slots + index).initialize(to: Slot(row: row, element: element))
        count += 1
        // At most 70% full.
        if count * 10 > (mask + 1) * 7 { resize(to: (mask + 1) * 2) }
        return nil
    }

    /// Takes `row` out; returns its element.
    @discardableResult
    mutating func removeValue(forKey row: UInt64) -> Element? {
        var index = Self.home(row, mask)
        while true {
            if slots[index].row == 0 { return nil }
            if slots[index].row == row { break }
            index = (index + 1) & mask
        }
        let removed = (slots + index).move().element
        var hole = index
        var next = (hole + 1) & mask
        while slots[next].row != 0 {
            let home = Self.home(slots[next].row, mask)
            if LinearProbing.mustFill(hole: hole, from: next, home: home) {
                (slots + hole).moveInitialize(from: slots + next, count: 1)
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole].row = 0
        count -= 1
        return removed
    }

    private mutating func resize(to size: Int) {
        let old = slots, oldSize = mask + 1
        slots = Self.allocate(size)
        mask = size - 1
        for i in 0..<oldSize where old[i].row != 0 {
            var index = Self.home(old[i].row, mask)
            while slots[index].row != 0 { index = (index + 1) & mask }
            (slots + index).moveInitialize(from: old + i, count: 1)
        }
        old.deallocate()
    }

    /// Slots with every row 0 (free) and every element uninitialised.
    private static func allocate(_ size: Int) -> UnsafeMutablePointer<Slot> {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: size)
        let rows = UnsafeMutableRawPointer(slots)
        for i in 0..<size { rows.storeBytes(of: 0, toByteOffset: i * MemoryLayout<Slot>.stride + MemoryLayout<Slot>.offset(of: \.row)!, as: UInt64.self) }
        return slots
    }

    private static func free(_ slots: UnsafeMutablePointer<Slot>, size: Int) {
        for i in 0..<size where slots[i].row != 0 { (slots + i).deinitialize(count: 1) }
        slots.deallocate()
    }

    @inline(__always)
    private static func home(_ row: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (row &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// Every row and element, and whether each is found from its home without crossing a free
    /// slot (tests).
    var contentsIfConsistent: [UInt64: Element]? {
        var contents: [UInt64: Element] = [:]
        for i in 0...mask where slots[i].row != 0 {
            guard contents[slots[i].row] == nil else { return nil }
            var index = Self.home(slots[i].row, mask)
            while index != i {
                if slots[index].row == 0 { return nil }
                index = (index + 1) & mask
            }
            contents[slots[i].row] = slots[i].element
        }
        return contents.count == count ? contents : nil
    }
}
