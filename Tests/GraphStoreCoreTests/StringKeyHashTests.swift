import Foundation
import Testing
@testable import GraphStore
import GraphStoreTestSupport

/// The unique index's string hash: equal strings (by String's `==`, canonical equivalence) hash
/// alike however they are spelled or stored, and distinct keys spread.
@Suite struct StringKeyHashTests {
    /// Pairs that `==` calls equal, with different bytes: ASCII against the three characters
    /// that decompose to ASCII, and non-ASCII spellings of one another.
    static let equivalentSpellings: [(String, String)] = [
        ("5 K", "5 \u{212A}"),                        // KELVIN SIGN
        ("a;b", "a\u{037E}b"),                        // GREEK QUESTION MARK
        ("`x`", "\u{1FEF}x\u{1FEF}"),                 // GREEK VARIA
        ("KKKKKKKKKKKKKKKKK", "KKKKKKKK\u{212A}KKKKKKKK"),  // past the inline length, a word boundary inside
        ("caf\u{E9}", "cafe\u{301}"),                 // precomposed and decomposed
        ("\u{C5}ngstr\u{F6}m", "\u{212B}ngstro\u{308}m"),  // ANGSTROM SIGN, combining diaeresis
        ("\u{212A}\u{301}", "\u{1E30}"),              // Kelvin with an acute: not ASCII at all
    ]

    @Test func equalStringsHashAlike() {
        for (a, b) in Self.equivalentSpellings {
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

    @Test func theUniqueIndexFindsAKeyByAnyEqualSpelling() {
        let table = StringRowTable()
        for (row, (a, _)) in Self.equivalentSpellings.enumerated() { table.set(UInt32(row), for: a) }
        for (row, (_, b)) in Self.equivalentSpellings.enumerated() { #expect(table.row(for: b) == UInt32(row)) }
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
