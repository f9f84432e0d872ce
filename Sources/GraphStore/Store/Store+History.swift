import Foundation

/// A point in a store's history: the transaction up to which changes were seen. Save it (it is
/// Codable) and pass it back to fetch what was committed after it.
public struct HistoryToken: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    public let transaction: UInt64
    public init(transaction: UInt64) { self.transaction = transaction }
    public static func < (a: Self, b: Self) -> Bool { a.transaction < b.transaction }
    public var description: String { "HistoryToken(\(transaction))" }
}

/// One change in a committed transaction (SwiftData's HistoryInsert/Update/Delete).
public enum HistoryChange: Hashable, Sendable {
    case insert(PersistentIdentifier)
    /// Attribute and relationship names that changed (relationships on both sides of a link).
    case update(PersistentIdentifier, updatedAttributes: Set<String>)
    case delete(PersistentIdentifier)

    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case let .insert(id), let .update(id, _), let .delete(id): return id
        }
    }
}

/// A committed transaction as history reports it.
public struct HistoryTransaction: Hashable, Sendable, Identifiable {
    public var token: HistoryToken
    public var transactionNumber: UInt64 { token.transaction }
    public var timestamp: Date
    /// The saving context's `author` (or name); nil when it had none.
    public var author: String?
    public var changes: [HistoryChange]
    public var id: UInt64 { token.transaction }
}

/// What to fetch from history.
public struct HistoryDescriptor: Sendable {
    /// Transactions after this token (all kept history when nil).
    public var after: HistoryToken?
    public var fetchLimit: Int?
    /// Only transactions by this author.
    public var author: String?

    public init(after: HistoryToken? = nil, fetchLimit: Int? = nil, author: String? = nil) {
        self.after = after
        self.fetchLimit = fetchLimit
        self.author = author
    }
}

extension Store {
    /// The token of the newest committed transaction.
    public var currentHistoryToken: HistoryToken { HistoryToken(transaction: graph.lastTransaction) }

    /// The oldest transaction history still holds is the one after this (0: everything is kept).
    public func historyStart() throws -> UInt64 {
        try log.segmentStarts().first?.previousTransaction ?? graph.lastTransaction
    }

    /// Committed transactions after `after`, oldest first, read from the log's kept segments.
    /// Throws `StorageError.historyCompacted` when compaction dropped transactions after `after`.
    public func readTransactions(after: UInt64, limit: Int? = nil,
                                 body: (LogTransaction, SchemaRecord?) throws -> Bool) throws {
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

    /// Committed transactions with their changes by identifier and property name (the analogue
    /// of SwiftData's `fetchHistory`).
    public func fetchHistory(_ descriptor: HistoryDescriptor = HistoryDescriptor()) throws -> [HistoryTransaction] {
        var result: [HistoryTransaction] = []
        var namer: (record: SchemaRecord, namer: HistoryNamer)?
        try readTransactions(after: descriptor.after?.transaction ?? 0, limit: descriptor.fetchLimit) { transaction, record in
            if let author = descriptor.author, transaction.author != author { return false }
            let record = record ?? SchemaRecord(schema: schema)
            if namer?.record != record { namer = (record, HistoryNamer(record: record, schema: schema)) }
            result.append(namer!.namer.describe(transaction))
            return true
        }
        return result
    }
}

/// Names a recorded schema's numbers in the opening schema's terms (renamed entities and
/// properties by their current names), for history.
struct HistoryNamer {
    private var entityNames: [EntityNumber: String] = [:]
    private var attributeNames: [PropertyNumber: String] = [:]
    /// Relationship number → (source entity, name, target entity, inverse name).
    private var relationships: [PropertyNumber: (source: String, name: String, target: String, inverse: String?)] = [:]

    init(record: SchemaRecord, schema: Schema) {
        let translation = SchemaTranslation(record: record, schema: schema)
        func entityName(_ recorded: SchemaRecord.EntityRecord) -> String {
            translation.entities[recorded.number].flatMap { n in schema.entities.first { $0.number == n }?.name } ?? recorded.name
        }
        let byName = Dictionary(record.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for entity in record.entities {
            let name = entityName(entity)
            entityNames[entity.number] = name
            let runtime = schema.entity(named: name)
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

    func describe(_ transaction: LogTransaction) -> HistoryTransaction {
        var inserted: [PersistentIdentifier] = []
        var deleted: [PersistentIdentifier] = []
        var updated: [PersistentIdentifier: Set<String>] = [:]
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
                touch(PersistentIdentifier(entityName: entityNames[entity] ?? "#\(entity)", row: row),
                      values.map { attributeNames[$0.property] ?? "#\($0.property)" })
            case let .link(number, source, target), let .unlink(number, source, target):
                guard let r = relationships[number] else { continue }
                touch(PersistentIdentifier(entityName: r.source, row: source), [r.name])
                if let inverse = r.inverse { touch(PersistentIdentifier(entityName: r.target, row: target), [inverse]) }
            case .schema:
                continue
            }
        }
        let settled = Set(inserted).union(deleted)
        var changes = inserted.map(HistoryChange.insert)
        changes += order.filter { !settled.contains($0) }.map { HistoryChange.update($0, updatedAttributes: updated[$0]!) }
        changes += deleted.map(HistoryChange.delete)
        return HistoryTransaction(token: HistoryToken(transaction: transaction.number),
                                  timestamp: Date(timeIntervalSince1970: Double(transaction.timestampMicros) / 1e6),
                                  author: transaction.author.isEmpty ? nil : transaction.author, changes: changes)
    }
}
