@_spi(GraphStoreInternals) import GraphStoreCore
import Foundation

/// What a fetch needs to know of its predicate's expression type: whether it is a lookup by key
/// (`$0.key == constant`, see `KeyEqualsConstantPredicate`), and whether its whole tree converts
/// statically (`PredicateNodeConvertible`) and how it is signed then (`PredicateSigner`). Each
/// cast checks a conditional conformance through the whole nested type, costlier than the rest
/// of a lookup by key, so it is found out once per type; and it is asked of the type, never of
/// the value, whose cast to an existential would copy the whole tree. A class: every fetch
/// takes it out of its context's table, and a reference is one retain where the fields were one
/// each.
final class PredicateExpressionType {
    let keyLookup: (any KeyEqualsConstantPredicate.Type)?
    /// Set when the lookup's constant is `Storable` (then `keyLookup` is set too).
    let storableKeyLookup: (any KeyEqualsStorableConstantPredicate.Type)?
    let convertible: (any PredicateNodeConvertible.Type)?
    /// Set when `convertible` is.
    let signer: PredicateSigner?
    /// Where a lookup by key keeps its key path and constant, when `storableKeyLookup` is set
    /// and the constant is of a type the signer reads in place.
    let keyLookupLayout: PredicateSigner.KeyLookupLayout?

    /// Shared by every context, so that a context made for one task does not cast again.
    private static let known = Locked<[ObjectIdentifier: PredicateExpressionType]>([:])

    private init(keyLookup: (any KeyEqualsConstantPredicate.Type)?, storableKeyLookup: (any KeyEqualsStorableConstantPredicate.Type)?,
                 convertible: (any PredicateNodeConvertible.Type)?, signer: PredicateSigner?, keyLookupLayout: PredicateSigner.KeyLookupLayout?) {
        self.keyLookup = keyLookup
        self.storableKeyLookup = storableKeyLookup
        self.convertible = convertible
        self.signer = signer
        self.keyLookupLayout = keyLookupLayout
    }

    static func of<E>(_ type: E.Type) -> PredicateExpressionType {
        let id = ObjectIdentifier(type)
        if let found = known.withLock({ $0[id] }) { return found }
        let convertible = type as? any PredicateNodeConvertible.Type
        let signer = convertible.flatMap(PredicateSigner.of)
        let storableKeyLookup = type as? any KeyEqualsStorableConstantPredicate.Type
        let found = PredicateExpressionType(keyLookup: type as? any KeyEqualsConstantPredicate.Type,
                                            storableKeyLookup: storableKeyLookup,
                                            convertible: signer == nil ? nil : convertible, signer: signer,
                                            keyLookupLayout: storableKeyLookup == nil ? nil : signer?.keyLookupLayout)
        known.withLock { $0[id] = found }
        return found
    }
}

/// A context's own table of the same, asked on every fetch without the shared table's lock.
struct PredicateExpressionTypes {
    /// The first types asked, scanned: an app's fetches use a few shapes over and over, and
    /// comparing a few identities costs less than hashing one.
    private var first: [(id: ObjectIdentifier, type: PredicateExpressionType)] = []
    private var known: [ObjectIdentifier: PredicateExpressionType] = [:]
    private static let scannedLimit = 8

    mutating func of<E>(_ type: E.Type) -> PredicateExpressionType {
        let id = ObjectIdentifier(type)
        for index in first.indices where first[index].id == id { return first[index].type }
        if let found = known[id] { return found }
        let found = PredicateExpressionType.of(type)
        if first.count < Self.scannedLimit { first.append((id, found)) } else { known[id] = found }
        return found
    }
}
