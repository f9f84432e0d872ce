import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore

/// The change summary's set of rows against a Set: dense rows, rows far apart, rows below the
/// first, rows the bitmap grows over after they were noted, and the bitmap's size.
@Suite struct RowFlagsTests {
    @Test func agreesWithASet() {
        var random = SplitMix64(seed: 11)
        var flags = RowFlags()
        var reference = Set<UInt64>()
        var next: UInt64 = 1_000
        for _ in 0..<20_000 {
            let row: UInt64 = switch random.next() % 8 {
            case 0: random.next()                       // anywhere
            case 1: random.next() % 2_000_000           // anywhere in a large table
            case 2: random.next() % 1_000               // below the first row
            case 3: (1 << 26) + random.next() % 8
            default: next                               // an import's next row
            }
            if row == next { next += 1 + random.next() % 2 }
            flags.insert(row)
            reference.insert(row)
        }
        for row in reference { #expect(flags.contains(row)) }
        for _ in 0..<20_000 {
            let probe = random.next() % 2 == 0 ? random.next() % (next + 100) : random.next()
            #expect(flags.contains(probe) == reference.contains(probe))
        }
        #expect(!RowFlags().contains(0) && !RowFlags().contains(.max))
    }

    @Test func aFewRowsFarApartCostAFewRows() {
        var flags = RowFlags()
        let rows: [UInt64] = [5, 999_999, 1_000_000, 2_000_000, 3, .max, 70_000_000]
        for row in rows { flags.insert(row) }
        for row in rows { #expect(flags.contains(row)) }
        for row: UInt64 in [4, 6, 999_998, 1_000_001, 1_999_999, 0, .max - 1] { #expect(!flags.contains(row)) }
        // A bitmap the length of the distance would be 31,250 words.
        #expect(flags.bitmapWords <= 64)
    }

    @Test func anImportsRowsAreOneBitmapAsLongAsTheRows() {
        var flags = RowFlags()
        for row: UInt64 in 1_000_000..<1_200_000 { flags.insert(row) }
        #expect((1_000_000..<1_200_000).allSatisfy { flags.contains($0) })
        #expect(!flags.contains(999_999) && !flags.contains(1_200_000))
        #expect(flags.bitmapWords >= 200_000 / 64 && flags.bitmapWords <= 2 * 200_000 / 64 + 64)
    }

    @Test func aRowNotedBeforeTheBitmapGrewOverItIsStillFound() {
        var flags = RowFlags()
        flags.insert(0)
        flags.insert(50_000)     // too far for the bitmap of one row
        for row: UInt64 in 1..<60_000 where row != 50_000 { flags.insert(row) }
        #expect(flags.bitmapWords * 64 > 50_000)
        #expect((0..<60_000).allSatisfy { flags.contains($0) })
        #expect(!flags.contains(60_000))
    }
}
