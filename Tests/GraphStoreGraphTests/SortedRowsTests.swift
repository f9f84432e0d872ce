import Testing
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) @testable import GraphStoreGraph
import GraphStoreTestSupport

/// The chunked order answers every position, range and change as one array does, across
/// chunk splits and chunks emptied, and each chunk's fence stays its last row and that row's
/// value.
@Suite struct SortedRowsTests {
    /// Here a row's value is its number.
    static func value(_ row: UInt32) -> Value { .int(Int64(row)) }

    @Test(arguments: [UInt64(1), 2, 3])
    func matchesAnArray(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var model = (0..<UInt32(3_000)).map { $0 }
        var rows = SortedRows(model, value: Self.value)
        for step in 0..<6_000 {
            // Runs of inserts at one place split chunks; runs of removals empty them.
            let inserting = (step / 500) % 2 == 0 ? rng.next() % 4 != 0 : rng.next() % 4 == 0
            if inserting || model.isEmpty {
                let position = step % 7 == 0 ? model.count / 3 : Int(rng.next() % UInt64(model.count + 1))
                let row = UInt32(10_000 + step)
                model.insert(row, at: position)
                rows.insert(row, at: position, value: Self.value)
            } else {
                let position = step % 5 == 0 ? 0 : Int(rng.next() % UInt64(model.count))
                model.remove(at: position)
                rows.remove(at: position, value: Self.value)
            }
            #expect(rows.count == model.count)
            let fencesMatch = rows.fencesMatch(value: Self.value)
            #expect(fencesMatch, "step \(step)")
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
        var rows = SortedRows([5], value: Self.value)
        rows.remove(at: 0, value: Self.value)
        let emptied = rows.isEmpty && rows.array.isEmpty && rows.fencesMatch(value: Self.value)
        #expect(emptied)
        rows.insert(7, at: 0, value: Self.value)
        rows.insert(6, at: 0, value: Self.value)
        rows.insert(8, at: 2, value: Self.value)
        let refilled = rows.array == [6, 7, 8] && rows.fencesMatch(value: Self.value)
        #expect(refilled)
        #expect(SortedRows().rows(at: 0..<0).isEmpty)
    }

    /// The search by a sort's predicate lands where a scan of the array does, across chunks grown,
    /// split and emptied, and at both ends.
    @Test func firstPositionMatchesAScan() {
        var rng = SplitMix64(seed: 7)
        var model: [UInt32] = []
        var rows = SortedRows()
        func firstPosition(before threshold: UInt32) -> Int {
            rows.firstPosition(where: { _, value in Value.ordered(value, Self.value(threshold)) }, value: Self.value)
        }
        #expect(firstPosition(before: 5) == 0)
        for _ in 0..<5_000 {
            let value = UInt32(rng.next() % 100_000)
            let position = model.firstIndex { $0 >= value } ?? model.count
            model.insert(value, at: position)
            rows.insert(value, at: position, value: Self.value)
        }
        for _ in 0..<2_000 {
            let position = model.firstIndex { $0 >= 80_000 } ?? model.count
            model.remove(at: position == model.count ? model.count - 1 : position)
            rows.remove(at: position == rows.count ? rows.count - 1 : position, value: Self.value)
        }
        let matches = rows.array == model && rows.fencesMatch(value: Self.value)
        #expect(matches)
        for threshold in [0, 1, 50_000, 79_999, 80_000, 99_999, 100_000] + (0..<300).map({ _ in UInt32(rng.next() % 100_001) }) {
            #expect(firstPosition(before: threshold) == (model.firstIndex { $0 >= threshold } ?? model.count))
        }
    }
}
