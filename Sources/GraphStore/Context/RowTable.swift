/// Row number → element, for a context's identity map: open addressing with linear probing
/// and a multiplicative hash of the row, each slot holding its row and element together.
///
/// Every object a context hands out is entered here and taken out when it is freed; as a
/// `[UInt64: Entry]` that was two SipHash hashes and probes per object (a sixth of making and
/// freeing one). Rows are never 0, which marks a free slot. Deletion shifts later entries of
/// the run back (no tombstones), as in StringRowTable.
struct RowTable<Element> {
    private struct Slot {
        var row: UInt64
        var element: Element?
    }

    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0

    init() {
        slots = Array(repeating: Slot(row: 0, element: nil), count: 16)
        mask = 15
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
        slots[index] = Slot(row: row, element: element)
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
        let removed = slots[index].element
        var hole = index
        var next = (hole + 1) & mask
        while slots[next].row != 0 {
            let home = Self.home(slots[next].row, mask)
            if LinearProbing.mustFill(hole: hole, from: next, home: home) {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot(row: 0, element: nil)
        count -= 1
        return removed
    }

    private mutating func resize(to size: Int) {
        let old = slots
        slots = Array(repeating: Slot(row: 0, element: nil), count: size)
        mask = size - 1
        for slot in old where slot.row != 0 {
            var index = Self.home(slot.row, mask)
            while slots[index].row != 0 { index = (index + 1) & mask }
            slots[index] = slot
        }
    }

    @inline(__always)
    private static func home(_ row: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (row &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// Every row and element, and whether each is found from its home without crossing a free
    /// slot (tests).
    var contentsIfConsistent: [UInt64: Element]? {
        var contents: [UInt64: Element] = [:]
        for (i, slot) in slots.enumerated() where slot.row != 0 {
            guard let element = slot.element, contents[slot.row] == nil else { return nil }
            var index = Self.home(slot.row, mask)
            while index != i {
                if slots[index].row == 0 { return nil }
                index = (index + 1) & mask
            }
            contents[slot.row] = element
        }
        return contents.count == count ? contents : nil
    }
}
