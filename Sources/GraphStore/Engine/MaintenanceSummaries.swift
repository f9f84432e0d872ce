/// What a checkpoint wrote (`ModelContainer.checkpoint()`, `graphstore checkpoint`).
public struct CheckpointSummary: Sendable, Equatable {
    /// The transaction the checkpoint is as of.
    public var transaction: UInt64
    /// The checkpoint file written.
    public var path: String
    /// Its size in bytes.
    public var bytes: UInt64

    package init(transaction: UInt64, path: String, bytes: UInt64) {
        self.transaction = transaction
        self.path = path
        self.bytes = bytes
    }
}

/// What a compaction removed (`ModelContainer.compact()`, `graphstore compact`).
public struct CompactionSummary: Sendable, Equatable {
    /// The checkpoint the compaction wrote first.
    public var checkpoint: CheckpointSummary
    /// The numbers of the log segments deleted.
    public var segmentsRemoved: [UInt64]
    /// How many older checkpoints were deleted.
    public var checkpointsRemoved: Int
    /// How many blob files no committed value names were deleted.
    public var blobsRemoved: Int
    /// Log and checkpoint bytes before and after.
    public var bytesBefore: UInt64
    /// Log and checkpoint bytes after.
    public var bytesAfter: UInt64

    package init(checkpoint: CheckpointSummary, segmentsRemoved: [UInt64], checkpointsRemoved: Int, blobsRemoved: Int, bytesBefore: UInt64, bytesAfter: UInt64) {
        self.checkpoint = checkpoint
        self.segmentsRemoved = segmentsRemoved
        self.checkpointsRemoved = checkpointsRemoved
        self.blobsRemoved = blobsRemoved
        self.bytesBefore = bytesBefore
        self.bytesAfter = bytesAfter
    }
}

