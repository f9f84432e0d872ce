/// What a checkpoint wrote (`ModelContainer.checkpoint()`, `graphstore checkpoint`).
public struct CheckpointSummary: Sendable, Equatable {
    /// The transaction the checkpoint is as of.
    public var transaction: UInt64
    public var path: String
    public var bytes: UInt64

    package init(transaction: UInt64, path: String, bytes: UInt64) {
        self.transaction = transaction
        self.path = path
        self.bytes = bytes
    }
}

/// What a compaction removed (`ModelContainer.compact()`, `graphstore compact`).
public struct CompactionSummary: Sendable, Equatable {
    public var checkpoint: CheckpointSummary
    public var segmentsRemoved: [UInt64]
    public var checkpointsRemoved: Int
    public var blobsRemoved: Int
    /// Log and checkpoint bytes before and after.
    public var bytesBefore: UInt64
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

extension Store {
    package typealias CheckpointSummary = GraphStoreEngine.CheckpointSummary
    package typealias CompactionSummary = GraphStoreEngine.CompactionSummary
}
