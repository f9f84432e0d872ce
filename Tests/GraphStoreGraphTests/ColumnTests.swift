import GraphStoreCore
import GraphStoreGraph
import GraphStoreTestSupport
import Testing

/// A column's count of nulls, which lets reads skip the null flags while there are none: kept
/// right through growth, writes of nulls, values and values of the wrong kind, and restores.
@Suite struct ColumnTests {
    @Test(arguments: [1, 2, 3])
    func nullCountFollowsEveryWrite(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let column = Column(type: AttributeType(kind: .int(bits: 64), isOptional: true), defaultValue: Value.int(0))
        var expected: [Value] = []
        for _ in 0..<3_000 {
            switch random.next() % 10 {
            case 0:
                let extra = Int(random.next() % 20)
                column.grow(to: column.count + extra)
                expected += Array(repeating: .null, count: extra)
            case 1 where !expected.isEmpty:
                // Not an integer: a typed column keeps it as null.
                let slot = Int(random.next() % UInt64(expected.count))
                column.set(.string("x"), at: slot)
                expected[slot] = .null
            case 2 where !expected.isEmpty:
                let slot = Int(random.next() % UInt64(expected.count))
                column.set(.null, at: slot)
                expected[slot] = .null
            case 3:
                let image = column.image()
                column.restore(image)
            default:
                guard !expected.isEmpty else { continue }
                let slot = Int(random.next() % UInt64(expected.count)), value = Value.int(Int64(random.next() % 1_000))
                column.set(value, at: slot)
                expected[slot] = value
            }
            #expect(column.nullCount == expected.filter { $0 == .null }.count)
        }
        #expect((0..<expected.count).map { column.value(at: $0) } == expected)
        // Every slot set: reads take the path that skips the flags, and still answer right.
        for slot in 0..<expected.count { column.set(.int(Int64(slot)), at: slot) }
        #expect(column.nullCount == 0)
        #expect((0..<expected.count).allSatisfy { column.value(at: $0) == .int(Int64($0)) })
    }
}
