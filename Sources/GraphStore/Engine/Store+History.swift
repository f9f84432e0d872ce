import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog

/// A committed transaction as the store reads it from its log, without model types (the
/// container turns it into a `DefaultHistoryTransaction`; tools use it as it is).
package struct StoredHistoryTransaction: Sendable, Equatable {
    package var number: UInt64
    package var timestamp: Date
    /// The saving context's `author`; nil when it had none.
    package var author: String?
    package var changes: [StoredHistoryChange]
}

/// One change of a stored transaction, by entity name and row.
package struct StoredHistoryChange: Sendable, Equatable, Hashable {
    package enum Kind: Sendable, Equatable, Hashable { case insert, update, delete }
    package var kind: Kind
    package var identifier: PersistentIdentifier
    /// For an update: the attributes and relationships that changed (relationships on both sides of a link).
    package var updatedAttributes: Set<String> = []
    /// For a delete: the values of attributes declared `.preserveValueOnDeletion`, by name.
    package var tombstone: [String: Value] = [:]
}

extension Store {
    /// The oldest transaction history still holds is the one after this (0: everything is kept).
    package func historyStart() throws -> UInt64 {
        try log.segmentStarts().first?.previousTransaction ?? graph.lastTransaction
    }

    /// Committed transactions after `after`, oldest first, read from the log's kept segments.
    /// Throws `StorageError.historyCompacted` when compaction dropped transactions after `after`.
    package func readTransactions(after: UInt64, limit: Int? = nil,
                                 body: (LogTransaction, SchemaRecord?) throws -> Bool) throws {
        do {
            try readTransactionsUntilStopped(after: after, limit: limit, body: body)
        } catch is HistoryReadStop {}
    }

    private func readTransactionsUntilStopped(after: UInt64, limit: Int?, body: (LogTransaction, SchemaRecord?) throws -> Bool) throws {
        let upTo = graph.lastTransaction
        guard after < upTo else { return }
        let history = schemaHistory
        segmentsLock.lock()
        defer { segmentsLock.unlock() }
        let starts = try log.segmentStarts()
        if let first = starts.first, first.previousTransaction > after {
            throw StorageError.historyCompacted(requested: after, oldestAvailable: first.previousTransaction)
        }
        // The segment holding transaction after + 1: the last one starting at or before `after`.
        let firstIndex = starts.lastIndex { $0.previousTransaction <= after } ?? 0
        var delivered = 0
        for (segment, previous) in starts[firstIndex...] {
            let bytes = try fileIO.readFile(joinPath(directory, SegmentFormat.fileName(segment: segment)))
            var finished = false
            try bytes.withUnsafeBytes { raw in
                // A record being written now stops the scan like a torn tail: it is past `upTo`.
                _ = try SegmentScanner.scan(raw, from: SegmentFormat.headerSize, previousTransaction: previous) { transaction in
                    guard !finished, transaction.number > after else { return }
                    guard transaction.number <= upTo else { finished = true; return }
                    if try !body(transaction, history.record(at: transaction.number)) { return }
                    delivered += 1
                    if let limit, delivered >= limit { finished = true }
                }
            }
            if finished { return }
        }
    }

    /// Committed transactions after `after`, oldest first, with their changes by identifier and
    /// property name, at most `limit` of them and only those `include` keeps.
    package func storedHistory(after: UInt64 = 0, limit: Int? = nil,
                              where include: (StoredHistoryTransaction) throws -> Bool = { _ in true }) throws -> [StoredHistoryTransaction] {
        var result: [StoredHistoryTransaction] = []
        var namer: (record: SchemaRecord, namer: HistoryNamer)?
        try readTransactions(after: after) { transaction, record in
            let record = record ?? SchemaRecord(schema: schema)
            if namer?.record != record { namer = (record, HistoryNamer(record: record, schema: schema)) }
            let described = namer!.namer.describe(transaction)
            guard try include(described) else { return false }
            result.append(described)
            if let limit, result.count >= limit { throw HistoryReadStop() }
            return true
        }
        return result
    }

    /// Drops history up to and including transaction `through` (whole segments of it: history
    /// a segment shares with later transactions stays), after a checkpoint that holds its effect.
    package func deleteHistory(through transaction: UInt64) throws {
        try compact(retention: .through(transaction))
    }
}

/// Ends a history read early (its limit reached).
private struct HistoryReadStop: Error {}

/// Names a recorded schema's numbers in the opening schema's terms (renamed entities and
/// properties by their current names), for history.
package struct HistoryNamer {
    private var entityNames: [EntityNumber: String] = [:]
    private var attributeNames: [PropertyNumber: String] = [:]
    /// Relationship number → (source entity, name, target entity, inverse name).
    private var relationships: [PropertyNumber: (source: String, name: String, target: String, inverse: String?)] = [:]
    /// By entity name, the attributes declared `.preserveValueOnDeletion` (their tombstone).
    private var preservedNames: [String: Set<String>] = [:]

    package init(record: SchemaRecord, schema: Schema) {
        let translation = SchemaTranslation(record: record, schema: schema)
        func entityName(_ recorded: SchemaRecord.EntityRecord) -> String {
            translation.entities[recorded.number].flatMap { n in schema.entities.first { $0.number == n }?.name } ?? recorded.name
        }
        let byName = Dictionary(record.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for entity in record.entities {
            let name = entityName(entity)
            entityNames[entity.number] = name
            let runtime = schema.entity(named: name)
            preservedNames[name] = Set(runtime?.attributes.filter { $0.options.contains(.preserveValueOnDeletion) }.map(\.name) ?? [])
            for a in entity.attributes {
                attributeNames[a.number] = translation.properties[a.number].flatMap { n in runtime?.attributes.first { $0.number == n }?.name } ?? a.name
            }
            for r in entity.relationships {
                let current = translation.properties[r.number].flatMap { n in runtime?.relationships.first { $0.number == n } }
                let target = byName[r.type].map(entityName) ?? r.type
                relationships[r.number] = (name, current?.name ?? r.name, target, current?.inverseName ?? (r.inverseName.isEmpty ? nil : r.inverseName))
            }
        }
    }

    package func describe(_ transaction: LogTransaction) -> StoredHistoryTransaction {
        var inserted: [PersistentIdentifier] = []
        var deleted: [PersistentIdentifier] = []
        var updated: [PersistentIdentifier: Set<String>] = [:]
        var lastValues: [PersistentIdentifier: [String: Value]] = [:]
        var order: [PersistentIdentifier] = []
        func touch(_ id: PersistentIdentifier, _ names: [String]) {
            if updated[id] == nil { order.append(id) }
            updated[id, default: []].formUnion(names)
        }
        for operation in transaction.operations {
            switch operation {
            case let .insert(entity, row, _):
                inserted.append(PersistentIdentifier(entityName: entityNames[entity] ?? "#\(entity)", row: row))
            case let .delete(entity, row):
                deleted.append(PersistentIdentifier(entityName: entityNames[entity] ?? "#\(entity)", row: row))
            case let .update(entity, row, values):
                let id = PersistentIdentifier(entityName: entityNames[entity] ?? "#\(entity)", row: row)
                touch(id, values.map { attributeNames[$0.property] ?? "#\($0.property)" })
                for value in values { lastValues[id, default: [:]][attributeNames[value.property] ?? "#\(value.property)"] = value.value }
            case let .link(number, source, target), let .unlink(number, source, target):
                guard let r = relationships[number] else { continue }
                touch(PersistentIdentifier(entityName: r.source, row: source), [r.name])
                if let inverse = r.inverse { touch(PersistentIdentifier(entityName: r.target, row: target), [inverse]) }
            case .schema:
                continue
            }
        }
        // A deleted row's preserved values are written as an update just before its delete
        // (its tombstone); a row inserted or deleted in the transaction reports no update.
        let settled = Set(inserted).union(deleted)
        var changes = inserted.map { StoredHistoryChange(kind: .insert, identifier: $0) }
        changes += order.filter { !settled.contains($0) }.map { StoredHistoryChange(kind: .update, identifier: $0, updatedAttributes: updated[$0]!) }
        changes += deleted.map { id in
            let preserved = preservedNames[id.entityName] ?? []
            return StoredHistoryChange(kind: .delete, identifier: id, tombstone: (lastValues[id] ?? [:]).filter { preserved.contains($0.key) })
        }
        return StoredHistoryTransaction(number: transaction.number, timestamp: Date(timeIntervalSince1970: Double(transaction.timestampMicros) / 1e6),
                                        author: transaction.author.isEmpty ? nil : transaction.author, changes: changes)
    }
}
