import GraphStoreCore
import GraphStoreGraph
import GraphStoreTestSupport
import Testing

/// Rebuilding a sorted index of an integer column sorts keys directly: the order must be the
/// one `SortedIndex.precedes` defines (nulls first, then by value, ties by row), for signed and
/// unsigned columns with negatives, extremes, duplicates and nulls.
@Suite struct SortedIndexOrderTests {
    @Test(arguments: [(false, UInt64(1)), (false, 2), (true, 3), (true, 4)])
    func integerOrderIsPrecedesOrder(unsigned: Bool, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let type = AttributeType(kind: unsigned ? .uint(bits: 64) : .int(bits: 64), isOptional: true)
        let column = Column(type: type, defaultValue: .null)
        let count = 2_000
        column.grow(to: count)
        let extremes: [Int64] = [.min, .max, 0, -1, 1]
        for slot in 0..<count {
            let pick = random.next() % 10
            if pick == 0 { continue }  // null
            let value: Int64 = pick == 1 ? extremes[Int(random.next() % 5)] : Int64(random.next() % 50) - 25
            column.set(unsigned ? .uint(UInt64(bitPattern: value)) : .int(value), at: slot)
        }
        let rows = (1...UInt32(count)).shuffled(using: &random)
        let fast = column.rowsInIntegerOrder(rows)
        #expect(fast == rows.sorted { SortedIndex.precedes($0, $1, column) })
        // Other layouts sort through precedes.
        #expect(Column(type: AttributeType(kind: .string, isOptional: false), defaultValue: .string("")).rowsInIntegerOrder(rows) == nil)
    }
}
