import Foundation
import GraphStoreCore
import GraphStoreEngine

// SwiftData's history types (iOS 18), on GraphStore's log: every committed transaction of a
// store, with what it inserted, updated and deleted (Docs/guides/history.md).

/// A point in a store's history, comparable: save it (it is Codable) and fetch what was
/// committed after it.
public protocol HistoryToken: Codable, Comparable, Hashable, Identifiable, Sendable {
    associatedtype TokenType: Codable, Hashable, Sendable
    var tokenValue: TokenType? { get }
}

/// A committed transaction as history reports it.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    associatedtype TokenType: HistoryToken
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    var author: String? { get }
    var changes: [HistoryChange] { get }
    var storeIdentifier: String { get }
    var timestamp: Date { get }
    var token: TokenType { get }
    var transactionIdentifier: TransactionIdentifier { get }
}

/// A transaction of a GraphStore store: its number in that store's log is its token.
public struct DefaultHistoryToken: HistoryToken, CustomStringConvertible {
    /// The transaction's number in its store's log.
    public let transaction: UInt64
    /// The store it is a point of (see `DefaultHistoryTransaction.storeIdentifier`).
    public let storeIdentifier: String

    public init(transaction: UInt64, storeIdentifier: String) {
        self.transaction = transaction
        self.storeIdentifier = storeIdentifier
    }

    /// Later transactions of a store are greater (tokens of different stores order by store).
    public static func < (a: Self, b: Self) -> Bool {
        (a.storeIdentifier, a.transaction) < (b.storeIdentifier, b.transaction)
    }

    public var description: String { "DefaultHistoryToken(\(transaction) in \(storeIdentifier))" }

    /// SwiftData's form: the transaction number by store identifier.
    public var tokenValue: [String: Int64]? { [storeIdentifier: Int64(truncatingIfNeeded: transaction)] }
    public var id: Int { Int(truncatingIfNeeded: transaction) }
}

/// Where a change sits in history: its transaction, then its place in it.
public struct HistoryChangeIdentifier: Comparable, Hashable, Sendable, Codable {
    public let transaction: UInt64
    public let index: Int

    public static func < (a: Self, b: Self) -> Bool { (a.transaction, a.index) < (b.transaction, b.index) }
}

/// One committed transaction of a store.
public struct DefaultHistoryTransaction: HistoryTransaction, CustomStringConvertible {
    public let token: DefaultHistoryToken
    /// The transaction's number in its store's log.
    public var transactionIdentifier: Int64 { Int64(truncatingIfNeeded: token.transaction) }
    /// The saving context's `author`; nil when it had none.
    public let author: String?
    public let timestamp: Date
    /// Inserts first, then updates, then deletes, each in the order the transaction made them.
    public var changes: [HistoryChange]
    /// The store's directory (SwiftData's is the store's identifier).
    public let storeIdentifier: String
    /// SwiftData's process and bundle of the saving app; GraphStore does not record them ("").
    public let bundleIdentifier: String = ""
    public let processIdentifier: String = ""

    public var id: Int64 { transactionIdentifier }

    public static func == (a: Self, b: Self) -> Bool { a.token == b.token }
    public func hash(into hasher: inout Hasher) { hasher.combine(token) }

    public var description: String {
        "transaction \(transactionIdentifier) by \(author ?? "-") at \(timestamp): \(changes.count) change(s)"
    }
}

/// One change of a transaction: an insert, an update or a delete of one model.
public enum HistoryChange: Sendable, CustomStringConvertible {
    case insert(any HistoryInsert)
    case update(any HistoryUpdate)
    case delete(any HistoryDelete)

    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case let .insert(change): return change.changedPersistentIdentifier
        case let .update(change): return change.changedPersistentIdentifier
        case let .delete(change): return change.changedPersistentIdentifier
        }
    }

    public var description: String {
        switch self {
        case let .insert(change): return "insert \(change.changedPersistentIdentifier)"
        case let .update(change):
            return "update \(change.changedPersistentIdentifier) (\(change.updatedAttributeNames.sorted().joined(separator: ", ")))"
        case let .delete(change): return "delete \(change.changedPersistentIdentifier)"
        }
    }
}

public protocol HistoryInsert<Model>: Sendable {
    associatedtype Model: PersistentModel
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: ChangeIdentifier { get }
    var transactionIdentifier: TransactionIdentifier { get }
}

public protocol HistoryUpdate<Model>: Sendable {
    associatedtype Model: PersistentModel
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    typealias PropertyUpdate = PartialKeyPath<Model> & Sendable
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: ChangeIdentifier { get }
    var transactionIdentifier: TransactionIdentifier { get }
    /// The key paths of the properties that changed (see `DefaultHistoryUpdate`).
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
    /// The names of the properties that changed: every one, always (a GraphStore extra).
    var updatedAttributeNames: Set<String> { get }
}

public protocol HistoryDelete<Model>: Sendable {
    associatedtype Model: PersistentModel
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    var changedPersistentIdentifier: PersistentIdentifier { get }
    var changeIdentifier: ChangeIdentifier { get }
    var transactionIdentifier: TransactionIdentifier { get }
    /// The values of the deleted model's attributes declared `.preserveValueOnDeletion`.
    var tombstone: HistoryTombstone<Model> { get }
}

public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: HistoryChangeIdentifier
    public var transactionIdentifier: Int64 { Int64(truncatingIfNeeded: changeIdentifier.transaction) }
}

/// An update: which properties of the model changed. Relationships count on both sides of a link.
///
/// `updatedAttributes` holds the key paths of the changed properties whose key paths the app has
/// given GraphStore (in a predicate, a sort, a unique lookup or `wasUpdated(_:)`): a model
/// declared without macros has no table of its key paths, so GraphStore learns each as the app
/// hands it over. `updatedAttributeNames` always holds every changed property, and
/// `wasUpdated(\.name)` always answers.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, Hashable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: HistoryChangeIdentifier
    public var transactionIdentifier: Int64 { Int64(truncatingIfNeeded: changeIdentifier.transaction) }
    public let updatedAttributeNames: Set<String>

    /// Whether the property `keyPath` reads changed.
    public func wasUpdated(_ keyPath: PartialKeyPath<Model>) -> Bool {
        Model.persistentPropertyName(for: keyPath).map(updatedAttributeNames.contains) ?? false
    }

    public var updatedAttributes: [any PartialKeyPath<Model> & Sendable] {
        updatedAttributeNames.sorted().compactMap { name in
            guard let keyPath = Model.keyPath(forPersistentProperty: name) as? PartialKeyPath<Model> else { return nil }
            // Key paths to a model's properties capture nothing: each is Sendable (the type system
            // cannot see it of a key path made at run time).
            return unsafeBitCast(keyPath, to: (any PartialKeyPath<Model> & Sendable).self)
        }
    }
}

public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    public let changedPersistentIdentifier: PersistentIdentifier
    public let changeIdentifier: HistoryChangeIdentifier
    public var transactionIdentifier: Int64 { Int64(truncatingIfNeeded: changeIdentifier.transaction) }
    public let tombstone: HistoryTombstone<Model>
}

/// What a deleted model left behind: the values of its attributes declared
/// `.preserveValueOnDeletion`, by key path (`tombstone[\.name]`) or by name.
public struct HistoryTombstone<Model: PersistentModel>: Sendable, Hashable, Sequence {
    /// Attribute name → the value it held when the model was deleted (its stored form).
    public let values: [String: Value]

    /// The preserved value of the property `keyPath` reads, or nil when it is not preserved.
    public subscript(_ keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        guard let name = Model.persistentPropertyName(for: keyPath), let value = values[name] else { return nil }
        // As the property's own type when it is a storable one (String, Int, Date…), else as stored.
        if let storable = type(of: keyPath).valueType as? any Storable.Type, let decoded = try? storable.init(storedValue: value) {
            return decoded
        }
        return value
    }

    public subscript(name: String) -> Value? { values[name] }

    public func makeIterator() -> Dictionary<String, Value>.Iterator { values.makeIterator() }
}

/// What `fetchHistory` and `deleteHistory` select: transactions matching `predicate` (on the
/// token, author, timestamp, …), ordered by `sortBy` (oldest first when empty), at most
/// `fetchLimit` of them (0, the default, is no limit).
public struct HistoryDescriptor<TransactionType: HistoryTransaction>: @unchecked Sendable {
    public var predicate: Predicate<TransactionType>?
    public var sortBy: [SortDescriptor<TransactionType>]
    public var fetchLimit: UInt64 = 0

    public init(predicate: Predicate<TransactionType>? = nil) {
        self.predicate = predicate
        sortBy = []
    }

    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>]) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

extension Store {
    /// The token of the newest committed transaction.
    public var currentHistoryToken: DefaultHistoryToken { DefaultHistoryToken(transaction: graph.lastTransaction, storeIdentifier: directory) }
}
