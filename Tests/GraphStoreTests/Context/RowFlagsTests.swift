import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore

/// The change summary's set of inserted rows against a Set, with dense rows, rows past the
/// flags' end and numbers too large for flags.
@Suite struct RowFlagsTests {
    @Test func agreesWithASet() {
        var random = SplitMix64(seed: 11)
        var flags = RowFlags()
        var reference = Set<UInt64>()
        for _ in 0..<5_000 {
            let row: UInt64 = switch random.next() % 4 {
            case 0: random.next()                    // far beyond any dense row
            case 1: (1 << 26) + random.next() % 8    // just past the dense limit
            default: random.next() % 3_000
            }
            flags.insert(row)
            reference.insert(row)
        }
        for row in reference { #expect(flags.contains(row)) }
        for _ in 0..<5_000 {
            let probe = random.next() % 2 == 0 ? random.next() % 4_000 : random.next()
            #expect(flags.contains(probe) == reference.contains(probe))
        }
        #expect(!RowFlags().contains(0) && !RowFlags().contains(.max))
    }
}
