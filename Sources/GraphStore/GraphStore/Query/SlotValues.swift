import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// A predicate's constants as one fetch binds them to its shape's slots: as given (IN reads its
/// sequences, a plan its Bool flags) and in the form the graph stores (`.null` for one that has
/// none, and `storedComplete` false: the predicate then runs on objects).
struct SlotValues {
    private(set) var given: [Any] = []
    private(set) var stored: [Value] = []
    private(set) var storedComplete = true

    init() {}

    /// Room for `count` constants, so that collecting them grows nothing.
    init(reservingCapacity count: Int) {
        given.reserveCapacity(count)
        stored.reserveCapacity(count)
    }

    /// Constants collected some other way (a shape's walk), converted here.
    init(given: [Any]) {
        self.given = given
        (stored, storedComplete) = QueryPlanner.storedValues(given)
    }

    /// Stored forms read straight from a prepared fetch's parameters, every slot having one
    /// (nothing reads them as given).
    init(stored: [Value]) {
        self.stored = stored
    }

    /// The next slot's value. The usual types are converted by their type, compared first (in
    /// the unspecialised walk that signs a predicate, a cast per constant is a dynamic cast).
    mutating func append<T>(_ constant: T) {
        given.append(constant)
        let value: Value?
        if T.self == String.self {
            value = unsafeBitCast(constant, to: String.self).storedValue
        } else if T.self == String?.self {
            value = unsafeBitCast(constant, to: String?.self).storedValue
        } else if T.self == Int.self {
            value = unsafeBitCast(constant, to: Int.self).storedValue
        } else if T.self == Date.self {
            value = unsafeBitCast(constant, to: Date.self).storedValue
        } else {
            value = QueryPlanner.storedValue(constant)
        }
        stored.append(value ?? .null)
        if value == nil { storedComplete = false }
    }
}
