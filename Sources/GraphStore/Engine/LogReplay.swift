@_spi(GraphStoreInternals) import GraphStoreLog
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Copies a store's state as of a given transaction into a new store, with the original
/// transaction numbers, times and authors (`graphstore replay`). Where compaction dropped the
/// log's beginning, the new store starts from the newest sound checkpoint at or before that
/// transaction and replays the log after it. Blob files are copied along.
@_spi(GraphStoreInternals) public enum LogReplay {
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case destinationNotEmpty(String)
        case transactionNotInLog(requested: UInt64, last: UInt64)

        package var description: String {
            switch self {
            case let .destinationNotEmpty(path): return "\(path) already exists and is not empty"
            case let .transactionNotInLog(requested, last): return "transaction \(requested) is past the end of the log (last is \(last))"
            }
        }
    }

    /// Returns the number of transactions written. `progress` is called after each one.
    @discardableResult
    @_spi(GraphStoreInternals) public static func replay(
        from source: String,
        to lastWanted: UInt64,
        into destination: String,
        fileIO: any FileIO = PosixFileIO(),
        segmentSize: UInt64 = LogOptions().segmentSize,
        progress: (UInt64) -> Void = { _ in }
    ) throws -> Int {
        if fileIO.isDirectory(destination), try !fileIO.listDirectory(destination).isEmpty {
            throw Failure.destinationNotEmpty(destination)
        }
        let inspection = try StoreInspection.inspect(directory: source, fileIO: fileIO)
        guard lastWanted <= inspection.lastTransaction else {
            throw Failure.transactionNotInLog(requested: lastWanted, last: inspection.lastTransaction)
        }
        try fileIO.createDirectory(destination)
        var base: UInt64 = 0
        if inspection.logStart > 0 {
            guard let checkpoint = inspection.checkpoints.last(where: {
                $0.problem == nil && $0.transaction <= lastWanted && $0.transaction >= inspection.logStart
            }) else {
                throw StorageError.historyCompacted(requested: lastWanted, oldestAvailable: inspection.logStart)
            }
            let name = CheckpointFile.fileName(transaction: checkpoint.transaction)
            try copyFile(joinPath(source, name), to: joinPath(destination, name), fileIO: fileIO)
            base = checkpoint.transaction
        }
        let sourceBlobs = BlobStore(storeDirectory: source, fileIO: fileIO, syncs: false)
        let destinationBlobs = BlobStore(storeDirectory: destination, fileIO: fileIO, syncs: false)
        let blobs = try sourceBlobs.list()
        if !blobs.isEmpty { try fileIO.createDirectory(destinationBlobs.directory) }
        for id in blobs { try copyFile(sourceBlobs.path(of: id), to: destinationBlobs.path(of: id), fileIO: fileIO) }

        // Writes unsynced, then one sync at the end: replay is restartable, so per-commit syncs buy nothing.
        let target = try TransactionLog.open(directory: destination, options: LogOptions(durability: .none, segmentSize: segmentSize, fileIO: fileIO),
                                             loadCheckpoint: { base })
        defer { target.close() }
        var written = 0
        let reader = try TransactionLog.open(directory: source, options: LogOptions(readOnly: true, fileIO: fileIO), body: { transaction in
            guard transaction.number > base, transaction.number <= lastWanted else { return }
            try target.append(transaction.operations, author: transaction.author, timestampMicros: transaction.timestampMicros)
            written += 1
            progress(transaction.number)
        }, loadCheckpoint: { inspection.logStart })
        reader.close()
        // Every segment, not only the last: with `.none` the sealed ones were never synced.
        try target.syncEverySegment()
        if !blobs.isEmpty { try fileIO.syncDirectory(destinationBlobs.directory) }
        try fileIO.syncDirectory(destination)
        return written
    }

    package static func copyFile(_ from: String, to: String, fileIO: any FileIO) throws {
        let bytes = try fileIO.readFile(from)
        let output = try fileIO.open(to, mode: .create)
        defer { output.close() }
        try output.writeAll(bytes, at: 0)
        try output.sync()
    }
}
