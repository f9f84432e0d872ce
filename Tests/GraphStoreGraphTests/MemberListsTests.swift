import Testing
@testable import GraphStoreGraph
import GraphStoreTestSupport

/// The lists of a to-many against plain arrays searched and shifted: members appended, moved
/// between lists and removed from anywhere, in link order, with and without kept positions.
@Suite struct MemberListsTests {
    @Test(arguments: [true, false])
    func matchesArraysSearchedAndShifted(keepsPositions: Bool) {
        var random = SplitMix64(seed: keepsPositions ? 1 : 2)
        let owners = 5, members = 300
        var lists = MemberLists(keepsPositions: keepsPositions)
        lists.grow(by: owners)
        var expected = Array(repeating: [UInt32](), count: owners)
        var owner = [Int?](repeating: nil, count: members + 1)
        for step in 0..<6_000 {
            let member = UInt32(1 + random.next() % UInt64(members))
            if let from = owner[Int(member)] {
                // Out of its list, and every other time into another one (a move).
                lists.remove(member, from: from)
                expected[from].remove(at: expected[from].firstIndex(of: member)!)
                owner[Int(member)] = nil
                if random.next() % 2 == 0 { continue }
            }
            let to = Int(random.next() % UInt64(owners))
            lists.append(member, to: to)
            expected[to].append(member)
            owner[Int(member)] = to
            if step % 50 == 0 {
                for slot in 0..<owners { #expect(lists.members(of: slot) == expected[slot], "step \(step), list \(slot)") }
                #expect(lists.allMembers == expected)
            }
        }
        for slot in 0..<owners { #expect(lists.members(of: slot) == expected[slot]) }
    }

    /// A removal that finds no such member in the list changes nothing.
    @Test(arguments: [true, false])
    func removingWhatIsNotThereChangesNothing(keepsPositions: Bool) {
        var lists = MemberLists(keepsPositions: keepsPositions)
        lists.grow(by: 2)
        for member: UInt32 in 1...4 { lists.append(member, to: 0) }
        lists.append(9, to: 1)
        lists.remove(9, from: 0)
        lists.remove(2, from: 1)
        lists.remove(1_000, from: 0)
        lists.remove(0, from: 0)
        #expect(lists.members(of: 0) == [1, 2, 3, 4])
        #expect(lists.members(of: 1) == [9])
    }

    /// Removals leave at most as many holes as members (plus one), however many there were:
    /// a list emptied from the front, then from the middle, stays about as long as its members.
    @Test func holesStayFewerThanMembers() {
        var lists = MemberLists(keepsPositions: true)
        lists.grow(by: 1)
        for member: UInt32 in 1...10_000 { lists.append(member, to: 0) }
        for member: UInt32 in 1...9_000 {
            lists.remove(member, from: 0)
            let left = 10_000 - Int(member)
            #expect(lists.storedLength(of: 0) <= 2 * left + 1, "after \(member) removed")
        }
        for member: UInt32 in stride(from: 9_001, through: 10_000, by: 2) { lists.remove(member, from: 0) }
        #expect(lists.members(of: 0) == Array(stride(from: 9_002, through: 10_000, by: 2)))
        #expect(lists.storedLength(of: 0) <= 2 * 500 + 1)
        // Emptying it from the end leaves nothing stored.
        for member: UInt32 in stride(from: 10_000, through: 9_002, by: -2) { lists.remove(member, from: 0) }
        #expect(lists.storedLength(of: 0) == 0)
    }

    /// Lists restored from a checkpoint, with their positions rebuilt, remove as the lists
    /// they were taken from.
    @Test func restoredListsRemoveByTheirRebuiltPositions() {
        var lists = MemberLists(keepsPositions: true)
        lists.grow(by: 3)
        for member: UInt32 in 1...30 { lists.append(member, to: Int(member % 3)) }
        for member: UInt32 in [3, 4, 5, 6, 30] { lists.remove(member, from: Int(member % 3)) }
        let image = lists.allMembers
        #expect(!image.joined().contains(0))
        var restored = MemberLists(keepsPositions: true)
        restored.restore(image)
        restored.installPositions(MemberLists.positions(of: image))
        for member: UInt32 in [9, 10, 29, 1] { restored.remove(member, from: Int(member % 3)) }
        #expect(restored.members(of: 0) == [12, 15, 18, 21, 24, 27])
        #expect(restored.members(of: 1) == [7, 13, 16, 19, 22, 25, 28])
        #expect(restored.members(of: 2) == [2, 8, 11, 14, 17, 20, 23, 26])
    }
}
