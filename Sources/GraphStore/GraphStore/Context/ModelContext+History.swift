import Foundation
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreCore

/// SwiftData's history API (iOS 18) on GraphStore: every committed transaction of the store, with
/// what it inserted, updated and deleted (Docs/guides/history.md).
extension ModelContext {
    /// The transactions `descriptor` selects: those its predicate keeps, ordered by its sort
    /// descriptors (oldest first when there are none), at most its limit. Throws
    /// `ModelContextError.noHistory` for an in-memory container and
    /// `StorageError.historyCompacted` when history the predicate needs was compacted away.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        try container.fetchHistory(descriptor)
    }

    /// Deletes the transactions `descriptor` selects, which must be the oldest ones (history is
    /// a log: it is dropped from its start, `$0.token < saved` or `$0.timestamp < date`);
    /// anything else throws `ModelContextError.historyNotAPrefix`. A transaction shares its
    /// segment with later ones may stay until they go too.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        try container.deleteHistory(descriptor)
    }

    /// Transactions committed after `token` (all kept history when nil), oldest first.
    public func fetchHistory(after token: DefaultHistoryToken?) throws -> [DefaultHistoryTransaction] {
        try container.fetchHistory(after: token)
    }
}

extension ModelContainer {
    /// The store's transactions the descriptor matches (as far back as the history retention
    /// keeps), each with its inserts, updates and deletes.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        guard T.self == DefaultHistoryTransaction.self else { throw ModelContextError.noHistory }
        var all: [DefaultHistoryTransaction] = []
        for container in storeContainers {
            guard let store = container.store else { throw ModelContextError.noHistory }
            // Everything history still keeps (compaction and deleteHistory drop its start).
            all += try store.storedHistory(after: try store.historyStart()).map(container.transaction(from:))
        }
        var matching = try all.compactMap { $0 as? T }.filter { try descriptor.predicate?.evaluate($0) ?? true }
        if descriptor.sortBy.isEmpty {
            // Oldest first: by store, then transaction (one store: the log's order).
            matching.sort { ($0 as! DefaultHistoryTransaction).token < ($1 as! DefaultHistoryTransaction).token }
            if partitions != nil { matching.sort { $0.timestamp < $1.timestamp } }
        } else {
            matching.sort(using: descriptor.sortBy)
        }
        if descriptor.fetchLimit > 0 { matching = Array(matching.prefix(Int(clamping: descriptor.fetchLimit))) }
        return matching
    }

    /// Transactions after `token`, oldest first (read from there on: cheaper than a predicate).
    public func fetchHistory(after token: DefaultHistoryToken?, fetchLimit: Int? = nil, author: String? = nil) throws -> [DefaultHistoryTransaction] {
        var result: [DefaultHistoryTransaction] = []
        for container in storeContainers {
            guard let store = container.store else { throw ModelContextError.noHistory }
            let after = try token.map { $0.storeIdentifier == container.storeIdentifier ? $0.transaction : 0 } ?? store.historyStart()
            result += try store.storedHistory(after: after, limit: fetchLimit) { author == nil || $0.author == author }
                .map(container.transaction(from:))
        }
        return result
    }

    /// Deletes the history the descriptor matches: those transactions are no longer kept for
    /// `fetchHistory`, and compaction may then remove their segments. The store's contents do not
    /// change.
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        for container in storeContainers {
            guard let store = container.store else { throw ModelContextError.noHistory }
            // The oldest transactions the predicate selects, up to the first it keeps; none after.
            var through: UInt64 = 0, keptOne = false
            for stored in try store.storedHistory(after: try store.historyStart()) {
                let transaction = container.transaction(from: stored)
                guard let typed = transaction as? T else { throw ModelContextError.noHistory }
                let selected = try descriptor.predicate?.evaluate(typed) ?? true
                if selected && keptOne { throw ModelContextError.historyNotAPrefix(transaction: stored.number) }
                if selected { through = stored.number } else { keptOne = true }
            }
            if through > 0 { try store.deleteHistory(through: through) }
        }
    }

    /// The token of the newest committed transaction (with several stores, the first store's):
    /// fetch history after it later to see what changed since.
    public var currentHistoryToken: DefaultHistoryToken {
        let container = storeContainers[0]
        return DefaultHistoryToken(transaction: container.graph.lastTransaction, storeIdentifier: container.storeIdentifier)
    }

    /// What history calls this container's store: its directory ("memory" in memory).
    var storeIdentifier: String { store?.directory ?? "memory" }

    /// A stored transaction with its changes typed by model (`DefaultHistoryInsert<Trip>`…).
    func transaction(from stored: StoredHistoryTransaction) -> DefaultHistoryTransaction {
        let changes = stored.changes.enumerated().map { index, change -> HistoryChange in
            let identifier = HistoryChangeIdentifier(transaction: stored.number, index: index)
            guard let type = schema.entity(named: change.identifier.entityName)?.type else {
                return HistoryChange.untyped(change, identifier)
            }
            return HistoryChange.typed(change, identifier, as: type)
        }
        return DefaultHistoryTransaction(token: DefaultHistoryToken(transaction: stored.number, storeIdentifier: storeIdentifier),
                                         author: stored.author, timestamp: stored.timestamp,
                                         changes: changes, storeIdentifier: storeIdentifier)
    }
}

extension HistoryChange {
    /// A stored change as one of `Model`'s.
    static func typed<Model: PersistentModel>(_ change: StoredHistoryChange, _ identifier: HistoryChangeIdentifier,
                                              as model: Model.Type) -> HistoryChange {
        switch change.kind {
        case .insert:
            return .insert(DefaultHistoryInsert<Model>(changedPersistentIdentifier: change.identifier, changeIdentifier: identifier))
        case .update:
            return .update(DefaultHistoryUpdate<Model>(changedPersistentIdentifier: change.identifier, changeIdentifier: identifier,
                                                       updatedAttributeNames: change.updatedAttributes))
        case .delete:
            return .delete(DefaultHistoryDelete<Model>(changedPersistentIdentifier: change.identifier, changeIdentifier: identifier,
                                                       tombstone: HistoryTombstone(values: change.tombstone)))
        }
    }

    /// A change of an entity the models no longer have (read by its recorded name).
    static func untyped(_ change: StoredHistoryChange, _ identifier: HistoryChangeIdentifier) -> HistoryChange {
        typed(change, identifier, as: UnmodelledEntity.self)
    }
}

/// Stands for an entity a store recorded and the models no longer declare, in history's typed
/// changes (`DefaultHistoryInsert<UnmodelledEntity>`); never made.
public final class UnmodelledEntity: ModelBacking, PersistentModel {
    /// Never called: an unmodelled entity has no objects.
    public required override init() { super.init() }
    /// The object itself (never made).
    public var persistentBacking: ModelBacking { self }
    /// The object's identity (never made).
    public var id: ObjectIdentifier { ObjectIdentifier(self) }
    /// Throws: an unmodelled entity declares no properties.
    public static func entityDeclaration() throws -> EntityDeclaration { throw SchemaError.noPersistentProperties(entity: "\(Self.self)") }
    /// Nothing observes an unmodelled entity.
    public func persistentPropertyDidChange(named name: String) {}
    /// Identity.
    public static func == (a: UnmodelledEntity, b: UnmodelledEntity) -> Bool { a === b }
    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
