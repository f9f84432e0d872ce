import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
import GraphStoreTestSupport
import Testing

/// The unique index's string hash: equal strings (by String's `==`, canonical equivalence) hash
/// alike however they are spelled or stored, and distinct keys spread.
@Suite struct StringKeyHashTests {

    @Test func equalStringsHashAlike() {
        for (a, b) in EquivalentSpellings.pairs {
            #expect(a == b)
            #expect(StringKeyHash.hash(a, seed: 7) == StringKeyHash.hash(b, seed: 7), "\(a.debugDescription) / \(b.debugDescription)")
        }
        // A string that is not in contiguous UTF-8 (bridged from an NSString) hashes like its copy.
        let bridged = NSString(string: "FLIGHT-\u{212A}-12345678901234567890") as String
        #expect(StringKeyHash.hash(bridged, seed: 3) == StringKeyHash.hash("FLIGHT-K-12345678901234567890", seed: 3))
    }

    /// A short ASCII string is hashed from the String's own words; the same characters held in
    /// storage (a string shortened from a long one) or bridged hash alike, at every length.
    @Test func smallStringsHashLikeTheSameBytesInStorage() {
        var rng = SystemRandomNumberGenerator()
        for length in 0...15 {
            for _ in 0..<50 {
                let small = String((0..<length).map { _ in Character(Unicode.Scalar(UInt8.random(in: 32...126, using: &rng))) })
                var stored = String(repeating: "y", count: 40) + small
                stored.removeFirst(40)
                #expect(small.smallASCIIWords?.count == length)
                #expect(stored.smallASCIIWords == nil, "\(stored.debugDescription) is still in storage")
                let bridged = NSString(string: small) as String
                #expect(StringKeyHash.hash(small, seed: 5) == StringKeyHash.hash(stored, seed: 5))
                #expect(StringKeyHash.hash(small, seed: 5) == StringKeyHash.hash(bridged, seed: 5))
            }
        }
        // Small but not ASCII: not read from the words (and equal spellings still agree).
        #expect("caf\u{E9}".smallASCIIWords == nil)
        #expect(StringKeyHash.hash("5 K", seed: 9) == StringKeyHash.hash("5 \u{212A}", seed: 9))
    }

    @Test func keysSpreadAndTheSeedMatters() {
        // Every length up to three words, so that every tail length is hashed.
        let keys = (0..<20_000).map { i in String(repeating: "x", count: i % 25) + "\(i)" }
        let hashes = keys.map { StringKeyHash.hash($0, seed: 11) }
        #expect(Set(hashes).count == keys.count)
        // The low bits, which pick a table slot, are not crowded either: 20,000 keys in 32,768
        // slots leave about 17,000 slots used when spread at random.
        #expect(Set(hashes.map { $0 & 32_767 }).count > 15_000)
        #expect(keys.prefix(100).allSatisfy { StringKeyHash.hash($0, seed: 11) != StringKeyHash.hash($0, seed: 12) })
    }
}
