import Foundation
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog
@_spi(GraphStoreInternals) import GraphStoreCore

extension Store {
    /// Rewrites the live data as a checkpoint and drops what it makes dead: sealed segments the
    /// checkpoint covers and the retention does not keep, older checkpoints the log no longer
    /// reaches, and blob files nothing names.
    ///
    /// Crash-safe at every step: the checkpoint is complete and read back before anything is
    /// removed, and segments go oldest first, so a kill at any moment leaves a store whose log
    /// continues from a checkpoint it still has.
    @discardableResult
    @_spi(GraphStoreInternals) public func compact(retention: HistoryRetention, progress: (String) -> Void = { _ in }) throws -> CompactionSummary {
        maintenanceLock.lock()
        defer { maintenanceLock.unlock() }
        return try compactWithLock(retention: retention, progress: progress)
    }

    /// Compacts with the retention of the store's maintenance policy.
    @discardableResult
    package func compact(progress: (String) -> Void = { _ in }) throws -> CompactionSummary {
        try compact(retention: options.maintenance.retention, progress: progress)
    }

    package func compactWithLock(retention: HistoryRetention, progress: (String) -> Void = { _ in }) throws -> CompactionSummary {
        let before = try storeBytes()
        progress("writing checkpoint")
        let checkpoint = try writeCheckpoint()
        // Read it back whole before it is the only copy of anything.
        progress("verifying checkpoint")
        let verified = try CheckpointCodec.decode(try CheckpointFile.read(path: checkpoint.path, fileIO: fileIO), schema: schema)
        try CheckpointCodec.validateTargets(verified, schema: schema)

        progress("sealing the active segment")
        let active = try log.sealActiveSegment()
        let starts = try log.segmentStarts()
        var removable: [UInt64] = []
        let now = Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
        for (i, segment) in starts.enumerated() where segment.segment != active {
            // A segment is covered when the next one starts at or before the checkpoint.
            guard i + 1 < starts.count, starts[i + 1].previousTransaction <= checkpoint.transaction else { break }
            var keep: Bool
            switch retention {
            case .all: keep = true
            case .none: keep = false
            case let .through(transaction): keep = starts[i + 1].previousTransaction > transaction
            case let .window(seconds):
                let newest = try lastCommitTime(segment: segment.segment, previousTransaction: segment.previousTransaction)
                keep = newest.map { now - $0 < Int64(seconds * 1_000_000) } ?? false
            }
            if keep { break }  // only a prefix goes: the log must stay contiguous
            removable.append(segment.segment)
        }
        progress("removing \(removable.count) segment(s)")
        segmentsLock.lock()
        do {
            defer { segmentsLock.unlock() }
            for segment in removable {
                try fileIO.removeFile(joinPath(directory, SegmentFormat.fileName(segment: segment)))
            }
            if !removable.isEmpty { try fileIO.syncDirectory(directory) }
        }
        // Checkpoints older than the log's new start can never be used again.
        let logStart = try log.segmentStarts().first?.previousTransaction ?? checkpoint.transaction
        let checkpointsBefore = try CheckpointFile.list(directory: directory, fileIO: fileIO).count
        try removeCheckpoints(keepingNewest: 2, notOlderThan: logStart)
        let checkpointsRemoved = checkpointsBefore - (try CheckpointFile.list(directory: directory, fileIO: fileIO).count)
        progress("sweeping blobs")
        let blobsRemoved = try sweepBlobs(alreadyRead: verified)
        return CompactionSummary(checkpoint: checkpoint, segmentsRemoved: removable, checkpointsRemoved: checkpointsRemoved,
                                 blobsRemoved: blobsRemoved, bytesBefore: before, bytesAfter: try storeBytes())
    }

    /// Bytes of the store's log records, checkpoints and blob files.
    package func storeBytes() throws -> UInt64 {
        var total = try log.recordBytes()
        for transaction in try CheckpointFile.list(directory: directory, fileIO: fileIO) {
            total += try fileIO.fileSize(joinPath(directory, CheckpointFile.fileName(transaction: transaction)))
        }
        for id in try blobs.list() { total += try fileIO.fileSize(blobs.path(of: id)) }
        return total
    }

    /// The commit time of a segment's last transaction.
    private func lastCommitTime(segment: UInt64, previousTransaction: UInt64) throws -> Int64? {
        let bytes = try fileIO.readFile(joinPath(directory, SegmentFormat.fileName(segment: segment)))
        return bytes.withUnsafeBytes { raw in
            SegmentScanner.scan(raw, from: SegmentFormat.headerSize, previousTransaction: previousTransaction) { _ in }
                .lastTimestampMicros
        }
    }

    /// Removes blob files that neither the graph, nor a kept checkpoint, nor a kept segment names.
    /// Blobs are written inside a commit (under `commitLock`), so listing the files and capturing
    /// the graph under that lock means every listed file a commit names is in the captured graph;
    /// files written after the list are not considered.
    ///
    /// `alreadyRead` is a checkpoint image the caller has decoded (compaction's verified one),
    /// so it is not read again.
    package func sweepBlobs(alreadyRead: CheckpointCodec.Image? = nil) throws -> Int {
        let (present, tables) = try commitLock.withLock { (try blobs.list(), graph.captureImage().tables) }
        guard !present.isEmpty else { return 0 }
        var named = blobIDs(in: tables)
        // Kept history and checkpoints may name blobs the graph no longer does.
        segmentsLock.lock()
        defer { segmentsLock.unlock() }
        for (segment, previous) in try log.segmentStarts() {
            let bytes = try fileIO.readFile(joinPath(directory, SegmentFormat.fileName(segment: segment)))
            bytes.withUnsafeBytes { raw in
                _ = SegmentScanner.scan(raw, from: SegmentFormat.headerSize, previousTransaction: previous) { transaction in
                    for case let .insert(_, _, values) in transaction.operations { for pv in values { for r in pv.value.blobReferences { named.insert(r.id) } } }
                    for case let .update(_, _, values) in transaction.operations { for pv in values { for r in pv.value.blobReferences { named.insert(r.id) } } }
                }
            }
        }
        for transaction in try CheckpointFile.list(directory: directory, fileIO: fileIO) {
            let image = try alreadyRead.flatMap { $0.transaction == transaction ? $0 : nil }
                ?? CheckpointCodec.decode(try CheckpointFile.read(path: joinPath(directory, CheckpointFile.fileName(transaction: transaction)),
                                                                  fileIO: fileIO), schema: schema)
            named.formUnion(blobIDs(in: image.tables))
        }
        var removed = 0
        for id in present where !named.contains(id) {
            try blobs.remove(id)
            removed += 1
        }
        if removed > 0 { try blobs.syncDirectory() }
        return removed
    }
    /// The blob files these tables (in this store's schema) name.
    package func blobIDs(in tables: [EntityTable.Image]) -> Set<UUID> {
        var named = Set<UUID>()
        forEachBlobReference(in: tables) { _, _, _, reference in named.insert(reference.id) }
        return named
    }
}
