/// A seeded hash of a string that agrees with String's `==` (canonical equivalence), fast for
/// ASCII: what the unique index of a string attribute (StringRowTable) hashes its keys with.
///
/// `String.hashValue` runs SipHash over the string's normalized form, which costs more than the
/// rest of a point lookup's hashing. Unique keys are nearly always ASCII (codes, idents),
/// and ASCII bytes are already their own normal form, so those are hashed a word at a time.
///
/// Agreeing with `==` needs care at the one place ASCII and other strings meet: three
/// characters are canonically equivalent to ASCII ones (U+037E GREEK QUESTION MARK is ";",
/// U+1FEF GREEK VARIA is "`", U+212A KELVIN SIGN is "K"), so "5 \u{212A}" == "5 K". A string with
/// other non-ASCII characters equals no ASCII string (every other decomposition keeps a
/// non-ASCII scalar), and is hashed by `hashValue`, as every string equal to it is. A string
/// whose only non-ASCII characters are those three is hashed as the ASCII string it equals.
/// (Unicode's stability policy keeps these decompositions as they are.)
@_spi(GraphStoreInternals) public enum StringKeyHash {
    @inlinable @_spi(GraphStoreInternals) public static func hash(_ key: String, seed: UInt64) -> UInt64 {
        if let (low, high, count) = key.smallASCIIWords {
            // The same as hashing its bytes below: the unused bytes are zero.
            var state = initialState(count: count, seed: seed)
            if count > 0 { state = mix(state ^ low) }
            if count > 8 { state = mix(state ^ high) }
            return mix(state)
        }
        let fast = key.utf8.withContiguousStorageIfAvailable { bytes in bytes.isASCII ? hash(bytes, seed: seed) : nil }
        if let fast, let fast { return fast }
        guard let equivalent = asciiEquivalent(of: key) else { return UInt64(truncatingIfNeeded: key.hashValue) ^ seed }
        return equivalent.withUnsafeBufferPointer { hash($0, seed: seed) }
    }

    /// The ASCII string `key` is canonically equivalent to, as bytes, if there is one.
    @usableFromInline static func asciiEquivalent(of key: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        for scalar in key.unicodeScalars {
            switch scalar.value {
            case 0..<0x80: bytes.append(UInt8(scalar.value))
            case 0x037E: bytes.append(UInt8(ascii: ";"))
            case 0x1FEF: bytes.append(UInt8(ascii: "`"))
            case 0x212A: bytes.append(UInt8(ascii: "K"))
            default: return nil
            }
        }
        return bytes
    }

    @usableFromInline static func hash(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        var state = initialState(count: bytes.count, seed: seed)
        var index = 0
        while index + 8 <= bytes.count {
            state = mix(state ^ word(bytes, from: index, count: 8))
            index += 8
        }
        if index < bytes.count { state = mix(state ^ word(bytes, from: index, count: bytes.count - index)) }
        return mix(state)
    }

    @inlinable @inline(__always)
    static func initialState(count: Int, seed: UInt64) -> UInt64 {
        seed ^ (UInt64(count) &* 0x9E37_79B9_7F4A_7C15)
    }

    @inlinable @inline(__always)
    static func word(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> UInt64 {
        var word: UInt64 = 0
        for offset in 0..<count { word |= UInt64(bytes[start + offset]) << UInt64(offset * 8) }
        return word
    }

    /// Multiplies out to 128 bits and folds (every input bit reaches every output bit).
    @inlinable @inline(__always)
    @_spi(GraphStoreInternals) public static func mix(_ value: UInt64) -> UInt64 {
        let product = (value ^ 0xA076_1D64_78BD_642F).multipliedFullWidth(by: 0xE703_7ED1_A0B4_28DB)
        return product.high ^ product.low
    }
}
