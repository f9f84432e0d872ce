extension ModelContainer {
    /// Writes a checkpoint now (Docs/guides/recovery.md). Commits go on while it is written.
    @discardableResult
    public func checkpoint() throws -> Store.CheckpointSummary {
        guard let store else { throw ModelContextError.noHistory }
        return try store.checkpoint()
    }

    /// Compacts the store now, keeping history as `retention` says.
    @discardableResult
    public func compact(retention: HistoryRetention) throws -> Store.CompactionSummary {
        guard let store else { throw ModelContextError.noHistory }
        return try store.compact(retention: retention)
    }

    /// Compacts the store now, keeping history as the configuration's maintenance policy says.
    @discardableResult
    public func compact() throws -> Store.CompactionSummary {
        guard let store else { throw ModelContextError.noHistory }
        return try store.compact()
    }
}
