extension UnsafeBufferPointer<UInt8> {
    /// Whether every byte is ASCII (below 0x80): such bytes are valid UTF-8 and their own
    /// normal form. One OR over all of them, one test at the end, so the loop has no branch.
    /// What the unique index's string hash and the log's string decoder both ask first.
    @inlinable @_spi(GraphStoreInternals) public var isASCII: Bool {
        var high: UInt8 = 0
        for byte in self { high |= byte }
        return high < 0x80
    }
}

extension String {
    /// A string of up to 15 ASCII bytes is held in the String's own two words (no storage to
    /// reach): the bytes in order from the first word's low byte, unused bytes zero, and the
    /// second word's top byte 0xE0 | count. The layout is part of Swift's ABI on 64-bit
    /// little-endian platforms; elsewhere every string is nil here and takes the path through
    /// its bytes. Copying a small string's bytes out was most of hashing a unique key, and of
    /// writing an ident into the log.
    @inlinable @inline(__always)
    @_spi(GraphStoreInternals) public var smallASCIIWords: (low: UInt64, high: UInt64, count: Int)? {
        #if _endian(little) && _pointerBitWidth(_64)
        let (low, high) = unsafeBitCast(self, to: (UInt64, UInt64).self)
        guard high >> 60 == 0xE else { return nil }
        return (low, high & 0x00FF_FFFF_FFFF_FFFF, Int(truncatingIfNeeded: (high >> 56) & 0xF))
        #else
        return nil
        #endif
    }
}
