/// The members of one to-many relationship: a list of target rows per source slot, in link
/// order.
///
/// When the inverse is a to-one, a member belongs to one list at a time, so its place in that
/// list is kept by member row (`positions`): removing it leaves a hole (0, never a row) instead
/// of searching the list and shifting what follows — an airport's flights at a million rows
/// are ten thousand to a list. A list is compacted when its holes pass half its length, so the
/// holes cost at most one more slot per member and removal stays O(1) amortised. Lists of any
/// other relationship (no inverse, or a to-many one, where a member is in many lists) have no
/// holes and remove by search.
///
/// Readers ask `members(of:)`, which leaves the holes out; nothing else sees them.
package struct MemberLists {
    /// By source slot. Holes (0) only when `positions` is kept.
    private var lists: [[UInt32]] = []
    /// Source slot → how many holes its list has, for the lists that have any.
    private var holes: [Int: Int] = [:]
    /// By member slot: the member's index in the list that holds it. Nil when not kept.
    private var positions: [UInt32]?

    /// An empty column of lists; `keepsPositions` when the inverse is a to-one.
    package init(keepsPositions: Bool) {
        positions = keepsPositions ? [] : nil
    }

    package var keepsPositions: Bool { positions != nil }

    /// The members of the list at `slot`, in link order, without holes. O(1) when it has none.
    package func members(of slot: Int) -> [UInt32] {
        holes[slot] == nil ? lists[slot] : lists[slot].filter { $0 != 0 }
    }

    /// The list's length as stored, holes included (what its removals leave behind).
    package func storedLength(of slot: Int) -> Int { lists[slot].count }

    /// Every list, without holes (table images): the lists shared copy-on-write, only those
    /// with holes copied.
    package var allMembers: [[UInt32]] {
        var all = lists
        for slot in holes.keys { all[slot] = members(of: slot) }
        return all
    }

    /// Whether `member` is in the list at `slot` (a search: callers with a to-one inverse read
    /// the member's own pointer instead).
    package func contains(_ member: UInt32, in slot: Int) -> Bool {
        lists[slot].contains(member)
    }

    package mutating func grow(by extra: Int) {
        lists.append(contentsOf: repeatElement([], count: extra))
    }

    package mutating func reserveCapacity(_ capacity: Int) {
        lists.reserveCapacity(capacity)
    }

    /// Appends `member` to the list at `slot`. With positions kept, the caller has taken it
    /// out of any other list first (one position a member).
    package mutating func append(_ member: UInt32, to slot: Int) {
        if positions != nil { Self.place(member, at: lists[slot].count, in: &positions!) }
        lists[slot].append(member)
    }

    /// Takes `member` out of the list at `slot`; nothing when it is not there.
    package mutating func remove(_ member: UInt32, from slot: Int) {
        // Not bound to a local: a second reference would make `compact` copy every position.
        guard positions != nil else {
            if let i = lists[slot].firstIndex(of: member) { lists[slot].remove(at: i) }
            return
        }
        let memberSlot = Int(member) - 1
        guard memberSlot >= 0, memberSlot < positions!.count else { return }
        let i = Int(positions![memberSlot])
        guard i < lists[slot].count, lists[slot][i] == member else { return }
        if i == lists[slot].count - 1 {
            lists[slot].removeLast()
            // Holes left at the end go with it.
            var trailing = 0
            while lists[slot].last == 0 { lists[slot].removeLast(); trailing += 1 }
            if trailing > 0 { takeHoles(trailing, at: slot) }
            return
        }
        lists[slot][i] = 0
        let count = holes[slot, default: 0] + 1
        holes[slot] = count
        if count * 2 > lists[slot].count { compact(slot) }
    }

    private mutating func takeHoles(_ count: Int, at slot: Int) {
        let left = holes[slot, default: 0] - count
        holes[slot] = left > 0 ? left : nil
    }

    /// Closes the holes of the list at `slot` and renumbers its members' positions.
    private mutating func compact(_ slot: Int) {
        lists[slot].removeAll { $0 == 0 }
        holes[slot] = nil
        for (i, member) in lists[slot].enumerated() { Self.place(member, at: i, in: &positions!) }
    }

    // MARK: Images (checkpoints)

    /// Installs lists read from a checkpoint (no holes). Their positions are worked out by
    /// `positions(of:)`, which the table runs beside its other restore work, and handed to
    /// `installPositions`.
    package mutating func restore(_ restored: [[UInt32]]) {
        lists = restored
        holes = [:]
        if positions != nil { positions = [] }
    }

    /// The positions of `lists`' members, computed from the lists alone (a restore job).
    package static func positions(of lists: [[UInt32]]) -> [UInt32] {
        var positions: [UInt32] = []
        for list in lists {
            for (i, member) in list.enumerated() { place(member, at: i, in: &positions) }
        }
        return positions
    }

    /// Records `member`'s index, growing `positions` to reach its slot.
    private static func place(_ member: UInt32, at index: Int, in positions: inout [UInt32]) {
        let memberSlot = Int(member) - 1
        if memberSlot >= positions.count { positions.append(contentsOf: repeatElement(0, count: memberSlot + 1 - positions.count)) }
        positions[memberSlot] = UInt32(index)
    }

    package mutating func installPositions(_ restored: [UInt32]) {
        if positions != nil { positions = restored }
    }
}
