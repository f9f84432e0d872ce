import GraphStoreCore
import GraphStoreGraph
import GraphStoreTestSupport
import Testing

/// A transaction's changes patched into a sorted index give exactly the order a rebuild gives:
/// value changes (some twice in one transaction), inserts, deletes, rows inserted and deleted in
/// the same transaction, duplicates and nulls.
@Suite struct SortedIndexPatchTests {
    @Test(arguments: [UInt64(11), 12, 13, 14, 15])
    func patchedOrderIsRebuiltOrder(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let column = Column(type: AttributeType(kind: .string, isOptional: true), defaultValue: .null)
        var live: [Bool] = []
        let index = SortedIndex(attribute: 0)
        func randomValue() -> Value { random.next() % 8 == 0 ? .null : .string("v\(random.next() % 40)") }
        func appendRow() -> UInt32 {
            live.append(true)
            column.grow(to: live.count)
            column.set(randomValue(), at: live.count - 1)
            return UInt32(live.count)
        }
        for _ in 0..<500 { _ = appendRow() }
        index.markStale()
        index.consolidate(column: column, live: live)

        for transaction in 0..<60 {
            let changes = Int(random.next() % 12) + 1
            for _ in 0..<changes {
                let liveRows = live.indices.filter { live[$0] }
                switch random.next() % 4 {
                case 0:
                    index.insert(appendRow())
                case 1 where !liveRows.isEmpty:
                    let slot = liveRows[Int(random.next() % UInt64(liveRows.count))]
                    index.remove(UInt32(slot + 1), oldValue: column.value(at: slot))
                    live[slot] = false
                default:
                    guard !liveRows.isEmpty else { continue }
                    let slot = liveRows[Int(random.next() % UInt64(liveRows.count))]
                    index.remove(UInt32(slot + 1), oldValue: column.value(at: slot))
                    column.set(randomValue(), at: slot)
                    index.insert(UInt32(slot + 1))
                }
            }
            index.consolidate(column: column, live: live)
            let expected = live.indices.filter { live[$0] }.map { UInt32($0 + 1) }.sorted { SortedIndex.precedes($0, $1, column) }
            #expect(index.orderedRows == expected, "transaction \(transaction)")
        }
    }
}
