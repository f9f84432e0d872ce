import GraphStoreGraph
import GraphStoreTestSupport
import Testing

/// A compound index's two-word table against a dictionary of row lists (each in ascending
/// order), through random adds and removals, in tables small enough that runs collide and wrap
/// around the end.
@Suite struct WordPairRowTableTests {
    @Test(arguments: [1, 2, 3, 4, 5])
    func agreesWithADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let table = WordPairRowTable()
        var reference: [[UInt64]: [UInt32]] = [:]
        // Few keys and few rows, so adds meet keys of one row and of many, and removals empty
        // lists back to one row and keys out of the table; words at both ends of their range.
        let keys: [(UInt64, UInt64)] = (0..<50).map { i in
            let i = UInt64(i)
            return (i % 7, i % 3 == 0 ? UInt64.max - i : i * 1_000_003)
        }
        for step in 0..<20_000 {
            let (first, second) = keys[Int(random.next() % UInt64(keys.count))]
            let row = UInt32(random.next() % 6) + 1
            if random.next() % 2 == 0 {
                table.add(row, first, second)
                if !reference[[first, second], default: []].contains(row) {
                    reference[[first, second], default: []].append(row)
                    reference[[first, second]]!.sort()
                }
            } else {
                table.remove(row, first, second)
                reference[[first, second]]?.removeAll { $0 == row }
                if reference[[first, second]]?.isEmpty == true { reference[[first, second]] = nil }
            }
            if step % 97 == 0 { #expect(table.contentsIfConsistent == reference) }
            #expect(table.rows(first, second) == reference[[first, second]] ?? [])
        }
        #expect(table.count == reference.count)
        #expect(table.contentsIfConsistent == reference)
    }

    @Test func growsAndKeepsEveryKey() {
        let table = WordPairRowTable()
        for i in 0..<100_000 { table.add(UInt32(i + 1), UInt64(i % 300), UInt64(i / 300)) }
        #expect(table.count == 100_000)
        table.add(7, 5, 0)  // a second row for the key (5, 0)
        #expect(table.rows(5, 0) == [6, 7])
        for i in stride(from: 0, to: 100_000, by: 2) { table.remove(UInt32(i + 1), UInt64(i % 300), UInt64(i / 300)) }
        #expect(table.count == 50_000)
        #expect(table.contentsIfConsistent?.count == 50_000)
        #expect(table.rows(5, 0) == [6, 7] && table.rows(4, 0) == [] && table.rows(1, 0) == [2])
        #expect(table.rows(300, 0) == [])
    }

    /// A key of many rows (a million flights to a few hundred airports): rows added in any
    /// order, again, and taken out, the list stays the key's rows in ascending order.
    @Test func aKeyOfManyRowsKeepsThemInOrder() {
        var random = SplitMix64(seed: 9)
        let table = WordPairRowTable()
        var reference = Set<UInt32>()
        for _ in 0..<30_000 {
            let row = UInt32(random.next() % 20_000) + 1
            if random.next() % 3 == 0 {
                table.remove(row, 42, 7)
                reference.remove(row)
            } else {
                table.add(row, 42, 7)
                reference.insert(row)
            }
        }
        // New rows, each the highest yet, as a save's inserts are.
        for row in UInt32(20_001)...25_000 {
            table.add(row, 42, 7)
            reference.insert(row)
        }
        #expect(table.rows(42, 7) == reference.sorted())
        #expect(table.contentsIfConsistent == [[42, 7]: reference.sorted()])
        for row in reference { table.remove(row, 42, 7) }
        #expect(table.rows(42, 7) == [] && table.count == 0)
    }
}
