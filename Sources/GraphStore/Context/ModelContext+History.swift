/// SwiftData's history API on GraphStore: what other contexts, actors or processes committed
/// since a token, by identifier and changed property names.
extension ModelContext {
    /// Committed transactions matching `descriptor`, oldest first. Throws
    /// `ModelContextError.noHistory` for an in-memory container and
    /// `StorageError.historyCompacted` when the transactions after the token were compacted away.
    public func fetchHistory(_ descriptor: HistoryDescriptor = HistoryDescriptor()) throws -> [HistoryTransaction] {
        try container.fetchHistory(descriptor)
    }

    /// Transactions committed after `token` (all kept history when nil).
    public func fetchHistory(after token: HistoryToken?) throws -> [HistoryTransaction] {
        try container.fetchHistory(HistoryDescriptor(after: token))
    }
}

extension ModelContainer {
    public func fetchHistory(_ descriptor: HistoryDescriptor = HistoryDescriptor()) throws -> [HistoryTransaction] {
        guard let store else { throw ModelContextError.noHistory }
        return try store.fetchHistory(descriptor)
    }

    /// The token of the newest committed transaction: fetch history after it later to see what changed since.
    public var currentHistoryToken: HistoryToken { HistoryToken(transaction: graph.lastTransaction) }
}
