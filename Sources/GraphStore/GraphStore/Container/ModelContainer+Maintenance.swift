@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Maintenance (Docs/guides/recovery.md). With several stores, each call runs on every store in
/// turn and returns the last one's summary.
extension ModelContainer {
    /// Writes a checkpoint now. Commits go on while it is written.
    @discardableResult
    public func checkpoint() throws -> CheckpointSummary {
        try eachStore { try $0.checkpoint() }
    }

    /// Compacts the store now, keeping history as `retention` says.
    @discardableResult
    public func compact(retention: HistoryRetention) throws -> CompactionSummary {
        try eachStore { try $0.compact(retention: retention) }
    }

    /// Compacts the store now, keeping history as the configuration's maintenance policy says.
    @discardableResult
    public func compact() throws -> CompactionSummary {
        try eachStore { try $0.compact() }
    }

    /// The last background checkpoint's or compaction's failure, if any (they never fail a commit).
    public var lastMaintenanceError: (any Error)? {
        storeContainers.lazy.compactMap { $0.store?.lastMaintenanceError }.first
    }

    /// External-storage values that could not be read (a missing, short or altered blob file),
    /// each naming the object, the attribute and the file.
    public var blobReadFailures: [String] {
        storeContainers.flatMap { $0.store?.blobs.readFailures ?? [] }
    }

    /// Removes every model of every store (SwiftData's `deleteAllData()`): one transaction per
    /// store deletes every row, through the commit every save takes (contexts and live queries
    /// see the rows go), then the store is compacted keeping no history. Unsaved changes in
    /// contexts stay theirs; an in-memory container is emptied the same way.
    public func deleteAllData() throws {
        for container in storeContainers {
            try container.commit(from: nil, author: "deleteAllData") {
                container.graph.read { view in
                    container.schema.entities.flatMap { entity in
                        view.table(entity.index).liveRows.map { LogOperation.delete(entity: entity.number, row: $0) }
                    }
                }
            }
            if let store = container.store, !container.configuration.isReadOnly { try store.compact(retention: .none) }
        }
    }

    private func eachStore<R>(_ body: (Store) throws -> R) throws -> R {
        var last: R?
        for container in storeContainers {
            guard let store = container.store else { throw ModelContextError.noHistory }
            last = try body(store)
        }
        guard let last else { throw ModelContextError.noHistory }
        return last
    }
}
