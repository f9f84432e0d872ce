import GraphStoreCore
import GraphStoreTestSupport
import Testing

/// The radix sort under sorted-index rebuilds: the same order as a stable sort by key, for keys
/// of every width (so that passes are both taken and skipped), with many ties.
@Suite struct RadixSortTests {
    @Test(arguments: [0, 3, 11, 12, 22, 33, 63, 64])
    func ordersLikeAStableSortByKey(keyBits: Int) {
        var random = SplitMix64(seed: UInt64(keyBits) &+ 17)
        for count in [0, 1, 2, 7, 3_000] {
            let keys = (0..<count).map { _ in keyBits == 64 ? random.next() : random.next() & ((1 << UInt64(keyBits)) - 1) }
            let rows = (0..<count).map { _ in UInt32(truncatingIfNeeded: random.next()) }
            let expected = zip(keys, rows).enumerated()
                .sorted { $0.element.0 != $1.element.0 ? $0.element.0 < $1.element.0 : $0.offset < $1.offset }
                .map(\.element.1)
            #expect(radixSorted(rows: rows, keys: keys) == expected, "\(count) keys of \(keyBits) bits")
        }
    }

    @Test func keysAtTheExtremes() {
        let keys: [UInt64] = [.max, 0, 1 << 63, .max, (1 << 63) - 1, 0, 2_048, 2_047]
        let rows = Array(UInt32(0)..<UInt32(keys.count))
        #expect(radixSorted(rows: rows, keys: keys) == [1, 5, 7, 6, 4, 2, 0, 3])
    }
}
