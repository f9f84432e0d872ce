import Foundation
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog
@_spi(GraphStoreInternals) import GraphStoreCore

extension Store {
    /// Writes a checkpoint of the committed graph as of the newest transaction.
    ///
    /// Writers are held up only while the image is captured (copy-on-write references to every
    /// column, under the graph's read lock); encoding and writing run while commits go on.
    /// The log is synced first, so it always reaches the checkpoint's transaction. Keeps the two
    /// newest checkpoints (the older one is the fallback should the newer be damaged).
    @discardableResult
    @_spi(GraphStoreInternals) public func checkpoint(progress: (Int, Int) -> Void = { _, _ in }) throws -> CheckpointSummary {
        maintenanceLock.lock()
        defer { maintenanceLock.unlock() }
        return try writeCheckpoint(progress: progress)
    }

    /// Called with `maintenanceLock` held.
    package func writeCheckpoint(progress: (Int, Int) -> Void = { _, _ in }) throws -> CheckpointSummary {
        if options.log.readOnly { throw StorageError.readOnly }
        // Under the commit lock, after the sync: every commit in the captured graph is written
        // and synced (with `.grouped`, a commit is applied before its record is written). The
        // log then goes on in a new segment that starts after the captured transaction, so that
        // an open from this checkpoint reads no record it covers (a segment of a million rows'
        // import is tens of megabytes) and compaction can drop the segments before it.
        let (transaction, tables) = try commitLock.withLock {
            try log.sync()
            try log.sealActiveSegment()
            return graph.captureImage()
        }
        let history = state.withLock { state in
            state.bytesSinceCheckpoint = 0
            return state.schemaHistory.filter { $0.transaction <= transaction }
        }
        let path = joinPath(directory, CheckpointFile.fileName(transaction: transaction))
        if !fileIO.fileExists(path) {
            let time = Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
            let parts = CheckpointCodec.parts(of: schema)
            let count = parts.count
            _ = try CheckpointFile.write(directory: directory, fileIO: fileIO, transaction: transaction, timestampMicros: time,
                                         recordCount: count) { index in
                progress(index, count)
                return CheckpointCodec.encode(parts[index], transaction: transaction, history: history, tables: tables, schema: schema)
            }
            progress(count, count)
        }
        try removeCheckpoints(keepingNewest: 2, notOlderThan: 0)
        return CheckpointSummary(transaction: transaction, path: path, bytes: try fileIO.fileSize(path))
    }

    /// Removes all but the `keep` newest checkpoints, and any older than `oldest`.
    package func removeCheckpoints(keepingNewest keep: Int, notOlderThan oldest: UInt64) throws {
        let all = try CheckpointFile.list(directory: directory, fileIO: fileIO)
        let kept = Set(all.suffix(keep).filter { $0 >= oldest })
        var removed = false
        for transaction in all where !kept.contains(transaction) {
            try fileIO.removeFile(joinPath(directory, CheckpointFile.fileName(transaction: transaction)))
            removed = true
        }
        if removed { try fileIO.syncDirectory(directory) }
    }

    /// Runs the automatic policy on a background thread: a checkpoint, then compaction when the
    /// dead space reaches the configured ratio. Failures are kept in `lastMaintenanceError`.
    package func scheduleMaintenance() {
        DispatchQueue.global(qos: .utility).async { [self] in
            maintenanceLock.lock()
            defer {
                maintenanceLock.unlock()
                state.withLock { $0.maintenanceScheduled = false }
            }
            guard !state.withLock({ $0.closed }) else { return }
            do {
                let summary = try writeCheckpoint()
                if let ratio = options.maintenance.compactAtDeadSpaceRatio, options.maintenance.retention != .all {
                    let logBytes = try log.recordBytes()
                    let dead = logBytes > summary.bytes ? Double(logBytes - summary.bytes) / Double(logBytes) : 0
                    if dead >= ratio { _ = try compactWithLock(retention: options.maintenance.retention) }
                }
            } catch {
                state.withLock { $0.lastMaintenanceError = error }
            }
        }
    }
}
