/// What opening a store found and did, for the caller to log or show (`graphstore info` prints it).
public struct OpenReport: Sendable, Equatable, CustomStringConvertible {
    /// A stretch of bytes that recovery did not keep.
    public struct Drop: Sendable, Equatable, CustomStringConvertible {
        /// The segment the bytes were in.
        public var segment: UInt64
        /// Where in it the first byte not kept was.
        public var offset: UInt64
        /// Bytes from `offset` to the last non-zero byte of the segment (whole later segments count fully).
        public var bytes: UInt64
        /// Why the bytes were not kept (a checksum mismatch, a short record…).
        public var reason: String

        /// `segment S offset O: N bytes dropped (reason)`.
        public var description: String {
            "segment \(segment) offset \(offset): \(bytes) bytes dropped (\(reason))"
        }
    }

    /// Log segments the open read.
    public var segments = 0
    /// Transactions read from the log by this open.
    public var transactionsRead = 0
    /// The newest transaction in the store after the open.
    public var lastTransaction: UInt64 = 0
    /// Commit time of the last transaction, microseconds since 1970.
    public var lastCommitMicros: Int64?
    /// A torn or corrupt tail after the last good commit: cut off by a writer, ignored by a reader.
    public var tornTail: Drop?
    /// What a salvage open dropped after damage in the middle of the log.
    public var salvaged: [Drop] = []
    /// Where a salvage open moved the bytes it dropped (nothing is deleted).
    public var quarantineDirectory: String?
    /// The checkpoint open loaded (its transaction), if any; the log was replayed after it.
    public var checkpoint: UInt64?
    /// Checkpoints open passed over, each with why (damaged, or older than the log's start).
    public var skippedCheckpoints: [String] = []

    /// Whether the open kept every byte: no torn tail, nothing salvaged.
    public var isClean: Bool { tornTail == nil && salvaged.isEmpty }

    /// The report as `graphstore info` prints it, a line per finding.
    public var description: String {
        var lines = ["\(segments) segment(s), \(transactionsRead) transaction(s) read, last transaction \(lastTransaction)"]
        if let tail = tornTail { lines.append("torn tail: \(tail)") }
        for drop in salvaged { lines.append("salvaged: \(drop)") }
        if let dir = quarantineDirectory { lines.append("dropped bytes kept in \(dir)") }
        if let checkpoint { lines.append("loaded the checkpoint at transaction \(checkpoint)") }
        for skipped in skippedCheckpoints { lines.append("skipped \(skipped)") }
        return lines.joined(separator: "\n")
    }
}
