import GraphStoreCore
import GraphStoreGraph
import GraphStoreTestSupport
import Testing

/// A transaction's changes patched into a sorted index give exactly the order a rebuild gives:
/// value changes (some twice in one transaction), inserts, deletes, rows inserted and deleted in
/// the same transaction, duplicates and nulls.
@Suite struct SortedIndexPatchTests {
    /// Adds a live row holding `value`; its row number.
    @discardableResult
    static func appendRow(_ value: Value, to column: Column, live: inout ChunkedArray<Bool>) -> UInt32 {
        live.append(true)
        column.grow(to: live.count)
        column.set(value, at: live.count - 1)
        return UInt32(live.count)
    }

    /// The live rows in the order a rebuild puts them.
    static func rebuiltOrder(of column: Column, live: ChunkedArray<Bool>) -> [UInt32] {
        live.indices.filter { live[$0] }.map { UInt32($0 + 1) }.sorted { SortedIndex.precedes($0, $1, column) }
    }

    /// One change of the kinds a transaction makes, at random: a row inserted (a fourth of
    /// the time, and whenever none is live), deleted (a fourth), or given a new value.
    static func randomChange(_ index: SortedIndex, _ column: Column, live: inout ChunkedArray<Bool>, random: inout SplitMix64,
                             newValue: (inout SplitMix64) -> Value) {
        let liveRows = live.indices.filter { live[$0] }
        let kind = random.next() % 4
        guard kind != 0 && !liveRows.isEmpty else {
            index.insert(appendRow(newValue(&random), to: column, live: &live))
            return
        }
        let slot = liveRows[Int(random.next() % UInt64(liveRows.count))]
        index.remove(UInt32(slot + 1), oldValue: column.value(at: slot))
        if kind == 1 {
            live[slot] = false
        } else {
            column.set(newValue(&random), at: slot)
            index.insert(UInt32(slot + 1))
        }
    }

    @Test(arguments: [UInt64(11), 12, 13, 14, 15])
    func patchedOrderIsRebuiltOrder(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let column = Column(type: AttributeType(kind: .string, isOptional: true), defaultValue: .null)
        var live = ChunkedArray<Bool>()
        let index = SortedIndex(attribute: 0)
        func randomValue(_ random: inout SplitMix64) -> Value { random.next() % 8 == 0 ? .null : .string("v\(random.next() % 40)") }
        for _ in 0..<500 { Self.appendRow(randomValue(&random), to: column, live: &live) }
        index.markStale()
        index.consolidate(column: column, live: live)

        for transaction in 0..<60 {
            let changes = Int(random.next() % 12) + 1
            for _ in 0..<changes {
                Self.randomChange(index, column, live: &live, random: &random) { randomValue(&$0) }
            }
            index.consolidate(column: column, live: live)
            #expect(index.orderedRows == Self.rebuiltOrder(of: column, live: live), "transaction \(transaction)")
        }
    }

    /// Over many chunks: inserts piled on a few values split a chunk, removals of the lowest
    /// values empty the first ones, and each chunk's fence (its last row's value, which a
    /// search reads in place of the row's) must follow every change that moves a chunk's end.
    @Test(arguments: [UInt64(21), 22, 23])
    func patchesAcrossChunksKeepFences(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let column = Column(type: AttributeType(kind: .int(bits: 64), isOptional: false), defaultValue: .int(0))
        var live = ChunkedArray<Bool>()
        let index = SortedIndex(attribute: 0)
        for _ in 0..<3_000 { Self.appendRow(.int(Int64(random.next() % 1_000)), to: column, live: &live) }
        index.markStale()
        index.consolidate(column: column, live: live)
        #expect(index.fencesMatch(column: column))

        for transaction in 0..<80 {
            // The lowest rows go first: the first chunks empty in turn.
            var lowest = Array(index.orderedRows.prefix(60).reversed())
            var liveRows = live.indices.filter { live[$0] }
            for _ in 0..<(Int(random.next() % 300) + 1) {
                switch random.next() % 5 {
                case 0, 1:
                    index.insert(Self.appendRow(.int(490 + Int64(random.next() % 20)), to: column, live: &live))
                    liveRows.append(live.count - 1)
                case 2:
                    guard let row = lowest.popLast(), live[Int(row) - 1] else { continue }
                    let slot = Int(row) - 1
                    index.remove(row, oldValue: column.value(at: slot))
                    live[slot] = false
                    liveRows.removeAll { $0 == slot }
                default:
                    guard !liveRows.isEmpty else { continue }
                    let slot = liveRows[Int(random.next() % UInt64(liveRows.count))]
                    index.remove(UInt32(slot + 1), oldValue: column.value(at: slot))
                    column.set(.int(Int64(random.next() % 1_000)), at: slot)
                    index.insert(UInt32(slot + 1))
                }
            }
            index.consolidate(column: column, live: live)
            #expect(index.orderedRows == Self.rebuiltOrder(of: column, live: live), "transaction \(transaction)")
            let fencesMatch = index.fencesMatch(column: column)
            #expect(fencesMatch, "transaction \(transaction)")
        }
    }

    /// An integer column's order keeps each row's order key beside it and searches a chunk by
    /// the keys: signed and unsigned columns, nulls and the smallest value (both key 0, told
    /// apart by their values), the extremes, many ties; built by a rebuild or grown from empty.
    @Test(arguments: [(signed: true, startsEmpty: false), (signed: true, startsEmpty: true),
                      (signed: false, startsEmpty: false), (signed: false, startsEmpty: true)])
    func keyedOrdersMatchTheRebuiltOrder(signed: Bool, startsEmpty: Bool) {
        var random = SplitMix64(seed: signed ? 31 : 32)
        let kind: StorageKind = signed ? .int(bits: 64) : .uint(bits: 64)
        let column = Column(type: AttributeType(kind: kind, isOptional: true), defaultValue: .null)
        #expect(column.hasOrderKeys)
        var live = ChunkedArray<Bool>()
        let index = SortedIndex(attribute: 0)
        func randomValue(_ random: inout SplitMix64) -> Value {
            let pick = random.next()
            switch pick % 10 {
            case 0: return .null
            case 1: return signed ? .int(.min) : .uint(0)
            case 2: return signed ? .int(.max) : .uint(.max)
            case 3: return signed ? .int(-Int64(random.next() % 50)) : .uint(random.next() % 50)
            default: return signed ? .int(Int64(random.next() % 50) - 25) : .uint(random.next() % 50)
            }
        }
        if startsEmpty {
            index.consolidate(column: column, live: live)
        } else {
            for _ in 0..<2_500 { Self.appendRow(randomValue(&random), to: column, live: &live) }
            index.markStale()
            index.consolidate(column: column, live: live)
        }
        for transaction in 0..<60 {
            for _ in 0..<(Int(random.next() % (startsEmpty && transaction < 20 ? 200 : 12)) + 1) {
                Self.randomChange(index, column, live: &live, random: &random) { randomValue(&$0) }
            }
            index.consolidate(column: column, live: live)
            #expect(index.orderedRows == Self.rebuiltOrder(of: column, live: live), "transaction \(transaction)")
            let keysAndFencesMatch = index.fencesMatch(column: column)
            #expect(keysAndFencesMatch, "transaction \(transaction)")
        }
    }

    /// Order keys follow the order `Value.ordered` gives: nulls first, then signed or
    /// unsigned values; equal keys only for equal values, or for 0.
    @Test func orderKeysFollowTheValueOrder() {
        let signed = Column(type: AttributeType(kind: .int(bits: 64), isOptional: true), defaultValue: .null)
        let values: [Value] = [.null, .int(.min), .int(-1), .int(0), .int(1), .int(.max)]
        signed.grow(to: values.count)
        for (slot, value) in values.enumerated() { signed.set(value, at: slot) }
        let keys = values.indices.map { signed.orderKey(at: $0) }
        let expected: [UInt64] = [0, 0, (1 << 63) - 1, 1 << 63, (1 << 63) + 1, .max]
        #expect(keys == expected)
        #expect(values.map { signed.orderKey(of: $0) } == keys.map(Optional.some))
        #expect(signed.orderKey(of: .string("1")) == nil && signed.orderKey(of: .uint(1)) == nil)
        let unsigned = Column(type: AttributeType(kind: .uint(bits: 64), isOptional: false), defaultValue: .uint(0))
        unsigned.grow(to: 2)
        unsigned.set(.uint(.max), at: 1)
        #expect(unsigned.orderKey(at: 0) == 0 && unsigned.orderKey(at: 1) == .max && unsigned.orderKey(of: .uint(7)) == 7)
        #expect(!Column(type: AttributeType(kind: .string, isOptional: false), defaultValue: .string("")).hasOrderKeys)
    }
}
