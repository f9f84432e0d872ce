import Foundation

/// What to fetch: SwiftData's FetchDescriptor, with the same names and defaults.
public struct FetchDescriptor<T: PersistentModel> {
    /// The predicate's expression, kept beside it: a fetch reads it without copying the
    /// predicate out, a copy that looks up the generic metadata of `Predicate<T>` each time.
    @usableFromInline private(set) var expression: (any StandardPredicateExpression<Bool>)?
    /// Their order; ties keep the order rows were inserted in.
    public var sortBy: [SortDescriptor<T>]
    /// At most this many objects (after the offset).
    public var fetchLimit: Int?
    /// How many objects, in order, to skip first.
    public var fetchOffset: Int?
    /// Whether unsaved inserts, changes and deletes of the context count (default true, as in SwiftData).
    public var includePendingChanges: Bool
    /// Accepted for compatibility. Every attribute of a row is in memory already, so there is
    /// nothing to leave out; see Docs/guides/fetching.md.
    public var propertiesToFetch: [PartialKeyPath<T>]
    /// Accepted for compatibility. Relationships are in memory already, so prefetching is free.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>]
    /// Which objects to fetch (nil: all of the type). Declared last: `Predicate` is resilient, so
    /// the fields before it keep fixed offsets that unspecialised fetch code reads directly.
    public var predicate: Predicate<T>? {
        didSet { expression = predicate?.expression }
    }

    /// A fetch of the objects matching `predicate` (all, when nil), in the order `sortBy` gives.
    @inlinable
    public init(predicate: consuming Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        // Moved, never copied: each copy of a `Predicate` looks up its generic metadata.
        switch consume predicate {
        case .some(let predicate):
            self.expression = predicate.expression
            self.predicate = predicate
        case .none:
            self.expression = nil
            self.predicate = nil
        }
        self.sortBy = sortBy
        self.includePendingChanges = true
        self.propertiesToFetch = []
        self.relationshipKeyPathsForPrefetching = []
    }
}

// Predicates, sort descriptors and key paths are immutable values, so a descriptor can cross
// actors (SwiftData's FetchDescriptor is Sendable too).
extension FetchDescriptor: @unchecked Sendable {}
