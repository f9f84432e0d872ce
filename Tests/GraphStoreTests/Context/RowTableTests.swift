import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore

/// The identity map's row table against a dictionary: random stores, replacements and removals
/// over few rows (so runs collide and wrap around the end), and growth.
@Suite struct RowTableTests {
    @Test(arguments: [1, 2, 3, 4])
    func agreesWithADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = RowTable<Int>()
        var reference: [UInt64: Int] = [:]
        for step in 0..<20_000 {
            let row = 1 + random.next() % 40
            if random.next() % 3 == 2 {
                #expect(table.removeValue(forKey: row) == reference.removeValue(forKey: row))
            } else {
                let value = Int(random.next() % 1_000)
                #expect(table.updateValue(value, forKey: row) == reference.updateValue(value, forKey: row))
            }
            #expect(table[row] == reference[row])
            if step % 101 == 0 { #expect(table.contentsIfConsistent == reference) }
        }
        #expect(table.count == reference.count)
        #expect(table.contentsIfConsistent == reference)
    }

    @Test func growsAndKeepsEveryRow() {
        var table = RowTable<UInt64>()
        for row in 1...50_000 as ClosedRange<UInt64> { table.updateValue(row * 2, forKey: row) }
        #expect(table.count == 50_000)
        #expect(table[1] == 2 && table[50_000] == 100_000 && table[50_001] == nil)
        for row in stride(from: 1, through: 50_000, by: 2) as StrideThrough<UInt64> { table.removeValue(forKey: row) }
        #expect(table.count == 25_000)
        #expect(table.contentsIfConsistent?.count == 25_000)
        #expect(table[3] == nil && table[4] == 8)
    }
}
