import Testing
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) @testable import GraphStoreGraph
import GraphStoreTestSupport

/// The chunked order answers every position, range and change as one array does, across
/// chunk splits and chunks emptied.
@Suite struct SortedRowsTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func matchesAnArray(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var model = (0..<UInt32(3_000)).map { $0 }
        var rows = SortedRows(model)
        for step in 0..<6_000 {
            // Runs of inserts at one place split chunks; runs of removals empty them.
            let inserting = (step / 500) % 2 == 0 ? rng.next() % 4 != 0 : rng.next() % 4 == 0
            if inserting || model.isEmpty {
                let position = step % 7 == 0 ? model.count / 3 : Int(rng.next() % UInt64(model.count + 1))
                let row = UInt32(10_000 + step)
                model.insert(row, at: position)
                rows.insert(row, at: position)
            } else {
                let position = step % 5 == 0 ? 0 : Int(rng.next() % UInt64(model.count))
                model.remove(at: position)
                rows.remove(at: position)
            }
            #expect(rows.count == model.count)
            if step % 250 == 0 {
                #expect(rows.array == model)
                for _ in 0..<20 where !model.isEmpty {
                    let position = Int(rng.next() % UInt64(model.count))
                    #expect(rows[position] == model[position])
                    let end = min(model.count, position + Int(rng.next() % 2_000))
                    #expect(rows.rows(at: position..<end) == Array(model[position..<end]))
                }
            }
        }
        #expect(rows.array == model)
        #expect(rows.contains(model[model.count / 2]) && !rows.contains(999_999))
    }

    @Test func emptiesAndRefills() {
        var rows = SortedRows([5])
        rows.remove(at: 0)
        #expect(rows.isEmpty && rows.array.isEmpty)
        rows.insert(7, at: 0)
        rows.insert(6, at: 0)
        rows.insert(8, at: 2)
        #expect(rows.array == [6, 7, 8])
        #expect(SortedRows().rows(at: 0..<0).isEmpty)
    }

    /// The search by a sort's predicate lands where a scan of the array does, across chunks grown,
    /// split and emptied, and at both ends.
    @Test func firstPositionMatchesAScan() {
        var rng = SplitMix64(seed: 7)
        var model: [UInt32] = []
        var rows = SortedRows()
        #expect(rows.firstPosition { $0 < 5 } == 0)
        for _ in 0..<5_000 {
            let value = UInt32(rng.next() % 100_000)
            let position = model.firstIndex { $0 >= value } ?? model.count
            model.insert(value, at: position)
            rows.insert(value, at: position)
        }
        for _ in 0..<2_000 {
            let position = model.firstIndex { $0 >= 80_000 } ?? model.count
            model.remove(at: position == model.count ? model.count - 1 : position)
            rows.remove(at: position == rows.count ? rows.count - 1 : position)
        }
        #expect(rows.array == model)
        for threshold in [0, 1, 50_000, 79_999, 80_000, 99_999, 100_000] + (0..<300).map({ _ in UInt32(rng.next() % 100_001) }) {
            #expect(rows.firstPosition { $0 < threshold } == (model.firstIndex { $0 >= threshold } ?? model.count))
        }
    }
}
