import GraphStoreTestSupport
import Testing
@testable import GraphStore

/// The pending-unique table's positions against a reference multiset: random inserts and
/// removals over few hashes, some differing only above their low 32 bits (so runs collide,
/// wrap around the end, and offer candidates of other keys), and growth.
@Suite struct HashedPositionsTests {
    /// Every position `first(hash:where:)` offers under `hash`, in the order offered.
    func offered(_ table: HashedPositions, _ hash: Int) -> [Int] {
        var positions: [Int] = []
        _ = table.first(hash: hash) { positions.append($0); return false }
        return positions
    }

    @Test(arguments: [1, 2, 3, 4])
    func agreesWithAMultiset(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = HashedPositions()
        // (the hash's low 32 bits, which is all the table keeps, position) → how many entries.
        var reference: [Int: [Int: Int]] = [:]
        let hashes = (0..<24).map { Int(truncatingIfNeeded: UInt64($0 % 12) | (UInt64($0 / 12) << 40)) }
        for step in 0..<20_000 {
            let hash = hashes[Int(random.next() % UInt64(hashes.count))]
            let position = Int(random.next() % 30)
            let low = hash & 0xFFFF_FFFF
            if random.next() % 3 == 2 {
                table.remove(hash: hash, position: position)
                if let n = reference[low]?[position] { reference[low]![position] = n > 1 ? n - 1 : nil }
            } else {
                table.insert(hash: hash, position: position)
                reference[low, default: [:]][position, default: 0] += 1
            }
            if step % 97 == 0 {
                // Both hashes with the same low 32 bits are offered together.
                for hash in hashes {
                    let positions = offered(table, hash)
                    let expected = reference[hash & 0xFFFF_FFFF] ?? [:]
                    #expect(Dictionary(positions.map { ($0, 1) }, uniquingKeysWith: +) == expected, "step \(step), hash \(hash)")
                }
            }
        }
        #expect(table.count == reference.values.reduce(0) { $0 + $1.values.reduce(0, +) })
    }

    @Test func growsAndFindsEveryPosition() {
        var table = HashedPositions()
        for position in 0..<50_000 { table.insert(hash: position &* 0x9E37_79B9, position: position) }
        #expect(table.count == 50_000)
        for position in stride(from: 0, to: 50_000, by: 7) {
            #expect(table.first(hash: position &* 0x9E37_79B9) { $0 == position } == position)
        }
        for position in stride(from: 0, to: 50_000, by: 2) { table.remove(hash: position &* 0x9E37_79B9, position: position) }
        #expect(table.count == 25_000)
        #expect(table.first(hash: 4 &* 0x9E37_79B9) { $0 == 4 } == nil)
        #expect(table.first(hash: 5 &* 0x9E37_79B9) { $0 == 5 } == 5)
        #expect(table.first(hash: 5 &* 0x9E37_79B9) { _ in false } == nil)
    }
}
