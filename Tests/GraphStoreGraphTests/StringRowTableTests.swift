import GraphStoreGraph
import GraphStoreTestSupport
import Testing

/// The unique index's string table against a dictionary, through random inserts, replacements
/// and removals, in tables small enough that runs collide and wrap around the end.
@Suite struct StringRowTableTests {
    @Test(arguments: [1, 2, 3, 4, 5])
    func agreesWithADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let table = StringRowTable()
        var reference: [String: UInt32] = [:]
        // Few distinct keys, so removals and replacements hit present keys often; short ones
        // (inline) and long ones (heap) alike.
        let keys = (0..<60).map { $0 % 3 == 0 ? "a-long-key-that-is-not-inline-\($0)" : "K\($0)" }
        for step in 0..<20_000 {
            let key = keys[Int(random.next() % UInt64(keys.count))]
            switch random.next() % 3 {
            case 0, 1:
                let row = UInt32(random.next() % 1_000_000)
                table.set(row, for: key)
                reference[key] = row
            default:
                table.remove(key)
                reference[key] = nil
            }
            if step % 97 == 0 {
                #expect(table.contentsIfConsistent == reference)
            }
            #expect(table.row(for: key) == reference[key])
        }
        for key in keys { #expect(table.row(for: key) == reference[key]) }
        #expect(table.count == reference.count)
        #expect(table.contentsIfConsistent == reference)
    }

    @Test func growsAndKeepsEveryKey() {
        let table = StringRowTable()
        for i in 0..<100_000 { table.set(UInt32(i), for: "F\(i)") }
        #expect(table.count == 100_000)
        for i in stride(from: 0, to: 100_000, by: 7) { #expect(table.row(for: "F\(i)") == UInt32(i)) }
        #expect(table.row(for: "F100000") == nil)
        for i in stride(from: 0, to: 100_000, by: 2) { table.remove("F\(i)") }
        #expect(table.count == 50_000)
        #expect(table.contentsIfConsistent?.count == 50_000)
        #expect(table.row(for: "F2") == nil && table.row(for: "F3") == 3)
        table.reserveCapacity(1_000_000)
        #expect(table.row(for: "F99999") == 99_999)
    }

    /// Emptied, a table holds nothing and takes keys again.
    /// Batches (an index's fill) give each key its row as `set` one at a time does: keys
    /// repeated within a batch and across batches end with the last row given, and the table
    /// grows part way through a batch.
    @Test func batchesAgreeWithSettingOneAtATime() {
        var random = SplitMix64(seed: 11)
        let (batched, single) = (StringRowTable(), StringRowTable())
        for _ in 0..<2_000 {
            let batch = (0..<Int(random.next() % 40)).map { _ -> (row: UInt32, key: String) in
                let n = random.next() % 30_000
                return (UInt32(random.next() % 1_000_000), n % 5 == 0 ? "a-long-key-that-is-not-inline-\(n)" : "F\(n)")
            }
            batched.set(batch)
            for item in batch { single.set(item.row, for: item.key) }
        }
        #expect(batched.count == single.count)
        #expect(batched.contentsIfConsistent != nil)
        #expect(batched.contentsIfConsistent == single.contentsIfConsistent)
    }

    @Test func removeAllEmptiesTheTable() {
        let table = StringRowTable()
        for i in 1...100 { table.set(UInt32(i), for: "K\(i)") }
        table.removeAll()
        #expect(table.count == 0 && table.row(for: "K7") == nil)
        table.set(3, for: "K7")
        #expect(table.count == 1 && table.row(for: "K7") == 3 && table.row(for: "K8") == nil)
    }

    /// The unique index routes strings to the table and other values to its dictionary.
    @Test func uniqueIndexKeepsStringsAndOtherValuesApart() {
        let index = UniqueIndex(attribute: 0, keysAreStrings: true)
        index[.string("1")] = 10
        index[.int(1)] = 20
        #expect(index[.string("1")] == 10 && index[.int(1)] == 20 && index.count == 2)
        index[.string("1")] = nil
        #expect(index[.string("1")] == nil && index[.int(1)] == 20 && index.count == 1)
    }

    @Test func theUniqueIndexFindsAKeyByAnyEqualSpelling() {
        let table = StringRowTable()
        for (row, (a, _)) in EquivalentSpellings.pairs.enumerated() { table.set(UInt32(row), for: a) }
        for (row, (_, b)) in EquivalentSpellings.pairs.enumerated() { #expect(table.row(for: b) == UInt32(row)) }
    }
}
