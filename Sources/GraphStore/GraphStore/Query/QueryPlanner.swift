import Foundation

/// Works out a `QueryPlan` for a predicate's shape: equality and IN on unique or indexed
/// attributes, ranges on sorted indexes, a to-one relationship's target (by a unique attribute
/// of the target) through the target's inverse set, compound indexes an AND's equalities cover,
/// the sides of an AND narrowing each other, the union of an OR whose both sides have one.
/// Anything else scans the entity. Ad-hoc fetches and prepared ones are planned alike: their
/// constants and parameters are slots whose values only the executor reads.
struct QueryPlanner {
    let schema: Schema
    let entity: Schema.Entity
    private var equalities: [QueryPlan.Equality] = []
    private var chains: [[AnyKeyPath]] = []

    init(schema: Schema, entity: Schema.Entity) {
        self.schema = schema
        self.entity = entity
    }

    /// The plan for a shape's tree.
    mutating func plan(_ node: PredicateNode) -> QueryPlan {
        let root = step(node)
        return QueryPlan(root: root, equalities: equalities, chains: chains)
    }

    private mutating func step(_ node: PredicateNode) -> QueryPlan.Step? {
        switch node {
        case .and:
            var sides: [QueryPlan.Step] = []
            var conjunctEqualities: [Int] = []
            for conjunct in Self.conjuncts(node) {
                // Every equality counts towards a compound index; an indexed one is a side too.
                if case let .equal(lhs, rhs) = conjunct, let number = equality(lhs, rhs) {
                    conjunctEqualities.append(number)
                    if equalities[number].access.isIndexed { sides.append(.equal(number)) }
                } else if let side = step(conjunct) {
                    sides.append(side)
                }
            }
            let compounds = compoundMatches(conjunctEqualities)
            guard !sides.isEmpty || !compounds.isEmpty else { return nil }
            if compounds.isEmpty, sides.count == 1 { return sides[0] }
            return .and(compounds: compounds, sides: sides)
        case let .or(lhs, rhs):
            // `false || x` is x: the shape of optional filters (`noFilter || $0.a == value`).
            switch (lhs, rhs) {
            case let (.constant(flag as Bool), other), let (other, .constant(flag as Bool)):
                return flag ? nil : step(other)
            case let (.parameter(flag), other), let (other, .parameter(flag)):
                return step(other).map { .unlessSet(flag: flag, $0) }
            default:
                guard let left = step(lhs), let right = step(rhs) else { return nil }
                return .or(left, right)
            }
        case let .equal(lhs, rhs):
            guard let number = equality(lhs, rhs), equalities[number].access.isIndexed else { return nil }
            return .equal(number)
        case let .comparison(op, lhs, rhs):
            guard let (chain, slot) = PredicateNode.chainAndParameter(lhs, rhs), chain.count == 1, StoredOrder.holds(forChain: chain),
                  case let .attribute(attribute)? = entity.property(for: chain[0]), attribute.isIndexed else { return nil }
            // Turned to read "attribute <op> value".
            let slotOnRight: Bool
            if case .parameter = rhs { slotOnRight = true } else { slotOnRight = false }
            guard let op = slotOnRight ? op : Self.reversed(op) else { return nil }
            return .range(attribute: attribute.index, op, slot: slot)
        case let .sequenceContains(.parameter(slot), element):
            guard let chain = element.keyPathChain, let access = access(chain), access.isIndexed else { return nil }
            return .oneOf(access, slot: slot)
        default:
            return nil
        }
    }

    /// The sides of a tree of ANDs, left to right, each a filter that is on (`false || x` is x:
    /// the optional filter `anyValue || $0.a == value` with its value given), so that an
    /// equality among them counts towards a compound index however the app wrote it.
    private static func conjuncts(_ node: PredicateNode) -> [PredicateNode] {
        switch node {
        case let .and(lhs, rhs):
            return conjuncts(lhs) + conjuncts(rhs)
        case let .or(.constant(flag as Bool), other) where !flag, let .or(other, .constant(flag as Bool)) where !flag:
            return conjuncts(other)
        default:
            return [node]
        }
    }

    /// `chain == slot`, noted in `equalities` (its number returned) when the chain is an
    /// attribute or a to-one target's unique attribute.
    private mutating func equality(_ lhs: PredicateNode, _ rhs: PredicateNode) -> Int? {
        guard let (chain, slot) = PredicateNode.chainAndParameter(lhs, rhs), let access = access(chain) else { return nil }
        equalities.append(QueryPlan.Equality(access: access, slot: slot))
        chains.append(chain)
        return equalities.count - 1
    }

    /// Where the rows whose `chain` equals a value are listed, if anywhere: an attribute
    /// without an index only counts towards a compound index.
    private func access(_ chain: [AnyKeyPath]) -> QueryPlan.Access? {
        if chain.count == 1, case let .attribute(attribute)? = entity.property(for: chain[0]) {
            if attribute.isUnique { return .unique(attribute: attribute.index) }
            if attribute.isIndexed { return .secondary(attribute: attribute.index) }
            return .unindexed(attribute: attribute.index)
        }
        if chain.count == 2, case let .relationship(relationship)? = entity.property(for: chain[0]), !relationship.isToMany {
            let target = schema.entities[relationship.targetIndex]
            guard case let .attribute(attribute)? = target.property(for: chain[1]), attribute.isUnique else { return nil }
            return .inverseSet(relationship: RelationshipSide(relationship, in: schema), target: target.index, attribute: attribute.index)
        }
        return nil
    }

    /// The compound indexes the equalities (by number) cover, unique ones first: an attribute
    /// member by an equality on it, a to-one member by an equality on a unique attribute of its
    /// target (which names the target's row).
    private func compoundMatches(_ candidates: [Int]) -> [QueryPlan.CompoundMatch] {
        guard !entity.compoundIndexes.isEmpty, candidates.count >= 2 else { return [] }
        var matches: [QueryPlan.CompoundMatch] = []
        for index in entity.compoundIndexes.sorted(by: { $0.isUnique && !$1.isUnique }) {
            var members: [Int] = []
            for member in index.members {
                let found = candidates.first { number in
                    switch (member, equalities[number].access) {
                    case let (.attribute(a), .unique(attribute)), let (.attribute(a), .secondary(attribute)),
                         let (.attribute(a), .unindexed(attribute)):
                        return attribute == a
                    case let (.toOne(r), .inverseSet(relationship, _, _)):
                        return relationship.index == r
                    default:
                        return false
                    }
                }
                guard let found else { break }
                members.append(found)
            }
            if members.count == index.members.count { matches.append(QueryPlan.CompoundMatch(index: index.index, members: members)) }
        }
        return matches
    }

    /// `value <op> attribute` as `attribute <op'> value`.
    private static func reversed(_ op: PredicateExpressions.ComparisonOperator) -> PredicateExpressions.ComparisonOperator? {
        switch op {
        case .lessThan: return .greaterThan
        case .lessThanOrEqual: return .greaterThanOrEqual
        case .greaterThan: return .lessThan
        case .greaterThanOrEqual: return .lessThanOrEqual
        @unknown default: return nil
        }
    }

    /// Slot values as the graph stores them (`.null` for one with no stored form), and whether
    /// every one has a stored form.
    static func storedValues(_ values: [Any]) -> (stored: [Value], complete: Bool) {
        var stored: [Value] = []
        stored.reserveCapacity(values.count)
        var complete = true
        for value in values {
            if let value = storedValue(value) { stored.append(value) } else { stored.append(.null); complete = false }
        }
        return (stored, complete)
    }

    /// A predicate constant as the graph stores it, when it has a plain stored form.
    static func storedValue(_ constant: Any) -> Value? {
        // The usual constants first: a cast to a concrete type compares type metadata, where a
        // cast to `any Storable` looks the conformance up.
        switch constant {
        case let string as String: return string.storedValue
        case let int as Int: return int.storedValue
        case let date as Date: return date.storedValue
        case let bool as Bool: return bool.storedValue
        case let double as Double: return double.storedValue
        default: break
        }
        if let storable = constant as? any Storable { return storable.storedValue }  // Optional of a Storable too
        guard let value = unwrappingOptional(constant) else { return .null }
        if let storable = value as? any Storable { return storable.storedValue }
        if let raw = value as? any RawRepresentable, let storable = raw.rawValue as? any Storable { return storable.storedValue }
        return nil
    }
}
