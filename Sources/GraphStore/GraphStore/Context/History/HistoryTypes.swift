import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph

// SwiftData's history types (iOS 18), on GraphStore's log: every committed transaction of a
// store, with what it inserted, updated and deleted (Docs/guides/history.md).

/// A point in a store's history, comparable: save it (it is Codable) and fetch what was
/// committed after it.
public protocol HistoryToken: Codable, Comparable, Hashable, Identifiable, Sendable {
    /// The type of the token's value.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// The value the token stands for (for `DefaultHistoryToken`, the transaction and store).
    var tokenValue: TokenType? { get }
}

/// A committed transaction as history reports it.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of the token that marks the point after this transaction.
    associatedtype TokenType: HistoryToken
    /// The type that numbers transactions.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The author the saving context had (`ModelContext.author`), if any.
    var author: String? { get }
    /// The inserts, updates and deletes the transaction made, in order.
    var changes: [HistoryChange] { get }
    /// The store the transaction belongs to.
    var storeIdentifier: String { get }
    /// When the transaction was committed.
    var timestamp: Date { get }
    /// This transaction's token: fetching after it gives the transactions committed later.
    var token: TokenType { get }
    /// The transaction's number in its store's log.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// A transaction of a GraphStore store: its number in that store's log is its token.
public struct DefaultHistoryToken: HistoryToken, CustomStringConvertible {
    /// The transaction's number in its store's log.
    public let transaction: UInt64
    /// The store it is a point of (see `DefaultHistoryTransaction.storeIdentifier`).
    public let storeIdentifier: String

    /// The token of `transaction` in the store named `storeIdentifier`: fetching after it gives the transactions committed later.
    public init(transaction: UInt64, storeIdentifier: String) {
        self.transaction = transaction
        self.storeIdentifier = storeIdentifier
    }

    /// Later transactions of a store are greater (tokens of different stores order by store).
    public static func < (a: Self, b: Self) -> Bool {
        (a.storeIdentifier, a.transaction) < (b.storeIdentifier, b.transaction)
    }

    /// The transaction and store, for logs.
    public var description: String { "DefaultHistoryToken(\(transaction) in \(storeIdentifier))" }

    /// SwiftData's form: the transaction number by store identifier.
    public var tokenValue: [String: Int64]? { [storeIdentifier: Int64(truncatingIfNeeded: transaction)] }
    /// The transaction number, as an `Int`.
    public var id: Int { Int(truncatingIfNeeded: transaction) }
}

/// Where a change sits in history: its transaction, then its place in it.
public struct HistoryChangeIdentifier: Comparable, Hashable, Sendable, Codable {
    /// The transaction the change belongs to.
    public let transaction: UInt64
    /// The change's place among its transaction's changes.
    public let index: Int

    /// Changes order by transaction, then by their place in it.
    public static func < (a: Self, b: Self) -> Bool { (a.transaction, a.index) < (b.transaction, b.index) }
}

/// One committed transaction of a store.
public struct DefaultHistoryTransaction: HistoryTransaction, CustomStringConvertible {
    /// This transaction's token: fetching after it gives the transactions committed later.
    public let token: DefaultHistoryToken
    /// The transaction's number in its store's log.
    public var transactionIdentifier: Int64 { Int64(truncatingIfNeeded: token.transaction) }
    /// The saving context's `author`; nil when it had none.
    public let author: String?
    /// When the transaction was committed.
    public let timestamp: Date
    /// Inserts first, then updates, then deletes, each in the order the transaction made them.
    public var changes: [HistoryChange]
    /// The store's directory (SwiftData's is the store's identifier).
    public let storeIdentifier: String
    /// SwiftData's process and bundle of the saving app; GraphStore does not record them ("").
    public let bundleIdentifier: String = ""
    /// Always empty: the log does not record which process saved.
    public let processIdentifier: String = ""

    /// The transaction number.
    public var id: Int64 { transactionIdentifier }

    /// Two transactions are equal when they are the same transaction of the same store.
    public static func == (a: Self, b: Self) -> Bool { a.token == b.token }
    /// Hashes the transaction's token.
    public func hash(into hasher: inout Hasher) { hasher.combine(token) }

    /// The transaction's number, author and changes, for logs.
    public var description: String {
        "transaction \(transactionIdentifier) by \(author ?? "-") at \(timestamp): \(changes.count) change(s)"
    }
}

/// One change of a transaction: an insert, an update or a delete of one model.
public enum HistoryChange: Sendable, CustomStringConvertible {
    /// An object was inserted.
    case insert(any HistoryInsert)
    /// An object's attributes or relationships changed.
    case update(any HistoryUpdate)
    /// An object was deleted; its tombstone holds the values kept for it.
    case delete(any HistoryDelete)

    /// The identifier of the object the change is about.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case let .insert(change): return change.changedPersistentIdentifier
        case let .update(change): return change.changedPersistentIdentifier
        case let .delete(change): return change.changedPersistentIdentifier
        }
    }

    /// The kind of change and the object's identifier, for logs.
    public var description: String {
        switch self {
        case let .insert(change): return "insert \(change.changedPersistentIdentifier)"
        case let .update(change):
            return "update \(change.changedPersistentIdentifier) (\(change.updatedAttributeNames.sorted().joined(separator: ", ")))"
        case let .delete(change): return "delete \(change.changedPersistentIdentifier)"
        }
    }
}

/// An insert in history, as SwiftData's `HistoryInsert`.
public protocol HistoryInsert<Model>: Sendable {
    /// The model type of the inserted object.
    associatedtype Model: PersistentModel
    /// The type that identifies a change.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type that numbers transactions.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The identifier of the inserted object.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// Identifies this change among all of history's.
    var changeIdentifier: ChangeIdentifier { get }
    /// The transaction the insert belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// An update in history, as SwiftData's `HistoryUpdate`.
public protocol HistoryUpdate<Model>: Sendable {
    /// The model type of the updated object.
    associatedtype Model: PersistentModel
    /// The type that identifies a change.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type that numbers transactions.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// A property of the model, as `updatedAttributes` lists them.
    typealias PropertyUpdate = PartialKeyPath<Model> & Sendable
    /// The identifier of the updated object.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// Identifies this change among all of history's.
    var changeIdentifier: ChangeIdentifier { get }
    /// The transaction the update belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The key paths of the properties that changed (see `DefaultHistoryUpdate`).
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
    /// The names of the properties that changed: every one, always (a GraphStore extra).
    var updatedAttributeNames: Set<String> { get }
}

/// A delete in history, as SwiftData's `HistoryDelete`.
public protocol HistoryDelete<Model>: Sendable {
    /// The model type of the deleted object.
    associatedtype Model: PersistentModel
    /// The type that identifies a change.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type that numbers transactions.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The identifier the deleted object had.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// Identifies this change among all of history's.
    var changeIdentifier: ChangeIdentifier { get }
    /// The transaction the delete belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The values of the deleted model's attributes declared `.preserveValueOnDeletion`.
    var tombstone: HistoryTombstone<Model> { get }
}

/// An insert as history reads it from the log.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    /// The identifier of the inserted object.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction and the change's place in it.
    public let changeIdentifier: HistoryChangeIdentifier
    /// The transaction's number.
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
    /// The identifier of the updated object.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction and the change's place in it.
    public let changeIdentifier: HistoryChangeIdentifier
    /// The transaction's number.
    public var transactionIdentifier: Int64 { Int64(truncatingIfNeeded: changeIdentifier.transaction) }
    /// The names of the attributes and relationships the update changed.
    public let updatedAttributeNames: Set<String>

    /// Whether the property `keyPath` reads changed.
    public func wasUpdated(_ keyPath: PartialKeyPath<Model>) -> Bool {
        Model.persistentPropertyName(for: keyPath).map(updatedAttributeNames.contains) ?? false
    }

    /// The changed properties as the model's key paths (those the model still has).
    public var updatedAttributes: [any PartialKeyPath<Model> & Sendable] {
        updatedAttributeNames.sorted().compactMap { name in
            guard let keyPath = Model.keyPath(forPersistentProperty: name) as? PartialKeyPath<Model> else { return nil }
            // Key paths to a model's properties capture nothing: each is Sendable (the type system
            // cannot see it of a key path made at run time).
            return unsafeBitCast(keyPath, to: (any PartialKeyPath<Model> & Sendable).self)
        }
    }
}

/// A delete as history reads it from the log.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    /// The identifier the deleted object had.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The transaction and the change's place in it.
    public let changeIdentifier: HistoryChangeIdentifier
    /// The transaction's number.
    public var transactionIdentifier: Int64 { Int64(truncatingIfNeeded: changeIdentifier.transaction) }
    /// The values kept for the deleted object (its attributes marked `.preserveValueOnDeletion`).
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

    /// The value kept for the attribute named `name`, if it was kept.
    public subscript(name: String) -> Value? { values[name] }

    /// The kept values, by attribute name.
    public func makeIterator() -> Dictionary<String, Value>.Iterator { values.makeIterator() }
}

/// What `fetchHistory` and `deleteHistory` select: transactions matching `predicate` (on the
/// token, author, timestamp, …), ordered by `sortBy` (oldest first when empty), at most
/// `fetchLimit` of them (0, the default, is no limit).
public struct HistoryDescriptor<TransactionType: HistoryTransaction>: @unchecked Sendable {
    /// Which transactions to fetch (nil: all the log keeps).
    public var predicate: Predicate<TransactionType>?
    /// Their order (by default, as committed).
    public var sortBy: [SortDescriptor<TransactionType>]
    /// At most this many transactions (0: no limit).
    public var fetchLimit: UInt64 = 0

    /// Transactions matching `predicate`, in the order they were committed.
    public init(predicate: Predicate<TransactionType>? = nil) {
        self.predicate = predicate
        sortBy = []
    }

    /// Transactions matching `predicate`, in the order `sortBy` gives.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>]) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}

extension Store {
    /// The token of the newest committed transaction.
    public var currentHistoryToken: DefaultHistoryToken { DefaultHistoryToken(transaction: graph.lastTransaction, storeIdentifier: directory) }
}
