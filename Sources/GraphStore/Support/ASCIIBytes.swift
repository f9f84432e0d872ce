extension UnsafeBufferPointer<UInt8> {
    /// Whether every byte is ASCII (below 0x80): such bytes are valid UTF-8 and their own
    /// normal form. One OR over all of them, one test at the end, so the loop has no branch.
    /// What the unique index's string hash and the log's string decoder both ask first.
    var isASCII: Bool {
        var high: UInt8 = 0
        for byte in self { high |= byte }
        return high < 0x80
    }
}
