import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore

/// The identity map's row table against a dictionary: random stores, replacements and removals,
/// rows far apart (a page each) and close together, pages given back when emptied.
@Suite struct RowTableTests {
    @Test(arguments: [1, 2, 3, 4])
    func agreesWithADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = RowTable()
        var reference: [UInt64: UInt] = [:]
        for step in 0..<20_000 {
            // Rows in a few pages, and now and then one far beyond them (the directory grows).
            let row = random.next() % 50 == 0 ? 1 + random.next() % 1_000_000 : 1 + random.next() % 300
            if random.next() % 3 == 2 {
                #expect(table.remove(row) == reference.removeValue(forKey: row) ?? 0)
            } else {
                let word = UInt(1 + random.next() % 1_000)
                #expect(table.set(word, for: row) == reference.updateValue(word, forKey: row) ?? 0)
            }
            #expect(table[row] == reference[row] ?? 0)
            if step % 101 == 0 { #expect(contents(of: table) == reference) }
        }
        #expect(table.count == reference.count)
        #expect(contents(of: table) == reference)
        for row in reference.keys { table.remove(row) }
        #expect(table.count == 0 && table.pageCount == 0)
    }

    @Test func keepsEveryRowInOrderAndGivesBackEmptiedPages() {
        var table = RowTable()
        for row in 1...50_000 as ClosedRange<UInt64> { table.set(UInt(row * 2), for: row) }
        #expect(table.count == 50_000)
        #expect(table[1] == 2 && table[50_000] == 100_000 && table[50_001] == 0 && table[0] == 0)
        let pages = table.pageCount
        // Every other row: each page keeps half its rows.
        for row in stride(from: 1, through: 50_000, by: 2) as StrideThrough<UInt64> { table.remove(row) }
        #expect(table.count == 25_000 && table.pageCount == pages)
        #expect(table[3] == 0 && table[4] == 8)
        var rows: [UInt64] = []
        table.forEach { row, word in
            #expect(word == UInt(row * 2))
            rows.append(row)
        }
        #expect(rows == Array(stride(from: 2, through: 50_000, by: 2)))
        // Rows 0 to 63 are the first page.
        for row in rows where row >= 64 { table.remove(row) }
        #expect(table.count == 31 && table.pageCount == 1)
    }

    private func contents(of table: borrowing RowTable) -> [UInt64: UInt] {
        var contents: [UInt64: UInt] = [:]
        table.forEach { contents[$0] = $1 }
        return contents
    }
}
