import Foundation
import GraphStoreCore
import GraphStoreGraph

/// A prepared fetch's index paths, worked out once per context: which of the predicate's
/// top-level equalities an index answers, and how. A run then only looks its values up — no
/// key path chains to read off the tree, no properties to find by key path, no constants to
/// convert — and combines the lists as `QueryPlanner` combines an AND's sides. Predicates
/// with a part the general planner might use in another way (an OR, a range, IN) leave
/// `isUsable` false and are planned by `QueryPlanner` each run.
struct PreparedPlan {
    enum Path {
        /// A unique attribute of the fetched entity: at most one row.
        case unique(attribute: Int)
        /// An `.indexed` attribute's hash index.
        case secondary(attribute: Int)
        /// A to-one relationship's target found by a unique attribute: its inverse set.
        case inverseSet(relationship: Schema.Relationship, target: Int, attribute: Int)
    }

    /// Where an equality's value comes from.
    enum Source {
        case slot(Int)
        case constant(Value)
    }

    struct Access {
        var path: Path
        var chain: [AnyKeyPath]
        var source: Source
    }

    /// The indexable equalities, in the predicate's order.
    let accesses: [Access]
    let isUsable: Bool

    init(_ node: PredicateNode, entity: Schema.Entity, schema: Schema) {
        var accesses: [Access] = []
        var usable = true
        for conjunct in Self.conjuncts(node) {
            switch conjunct {
            case let .equal(lhs, rhs):
                if let access = Self.access(lhs, rhs, entity: entity, schema: schema) { accesses.append(access) }
            case .or, .comparison, .sequenceContains:
                usable = false
            default:
                break  // nothing an index answers: checked by the compiled condition
            }
        }
        self.accesses = accesses
        isUsable = usable && !accesses.isEmpty
    }

    /// The sides of a tree of ANDs, left to right.
    private static func conjuncts(_ node: PredicateNode) -> [PredicateNode] {
        if case let .and(lhs, rhs) = node { return conjuncts(lhs) + conjuncts(rhs) }
        return [node]
    }

    private static func access(_ lhs: PredicateNode, _ rhs: PredicateNode, entity: Schema.Entity, schema: Schema) -> Access? {
        let chain: [AnyKeyPath], source: Source
        if let (keyPaths, slot) = PredicateNode.chainAndParameter(lhs, rhs) {
            (chain, source) = (keyPaths, .slot(slot))
        } else if let (keyPaths, constant, _) = PredicateNode.chainAndConstant(lhs, rhs),
                  let value = QueryPlanner.storedValue(constant), value != .null {
            (chain, source) = (keyPaths, .constant(value))
        } else {
            return nil
        }
        if chain.count == 1, case let .attribute(attribute)? = entity.property(for: chain[0]) {
            if attribute.isUnique { return Access(path: .unique(attribute: attribute.index), chain: chain, source: source) }
            if attribute.options.contains(.indexed) {
                return Access(path: .secondary(attribute: attribute.index), chain: chain, source: source)
            }
            return nil
        }
        if chain.count == 2, case let .relationship(relationship)? = entity.property(for: chain[0]), !relationship.isToMany {
            let target = schema.entities[relationship.targetIndex]
            guard case let .attribute(attribute)? = target.property(for: chain[1]), attribute.isUnique else { return nil }
            return Access(path: .inverseSet(relationship: relationship, target: target.index, attribute: attribute.index),
                          chain: chain, source: source)
        }
        return nil
    }
}

extension QueryPlanner {
    /// The rows a prepared plan's equalities allow, for this run's slot values: the narrowest
    /// list, or the intersection of two of similar size, as `narrower` decides (kept as the
    /// graph's row lists until the end, with no plan text made), with the accesses (by number)
    /// whose equalities they all satisfy. Nil: scan.
    func candidates(for plan: PreparedPlan, values: [Value]) -> (rows: ArraySlice<UInt32>, satisfied: [Int])? {
        var best: ArraySlice<UInt32>?
        var used: [Int] = []       // the accesses whose equalities `best` satisfies
        // When `best` is one to-one relationship's inverse set: that relationship and its
        // target row, so that membership is one read of the relationship's column.
        var bestLink: ToOneLink?
        let table = view.table(entity.index)
        for (i, access) in plan.accesses.enumerated() {
            let value: Value
            switch access.source {
            case let .slot(slot): value = values[slot]
            case let .constant(constant): value = constant
            }
            // Nil is no key: as in `lookup`, such an equality is left to the condition.
            guard value != .null else { continue }
            let found: ArraySlice<UInt32>
            var foundLink: ToOneLink?
            switch access.path {
            case let .unique(attribute):
                guard let index = table.unique[attribute] else { continue }
                found = index[value].map { [$0] } ?? []
            case let .secondary(attribute):
                guard let index = table.secondary[attribute] else { continue }
                found = index.rows(for: [value])[...]
            case let .inverseSet(relationship, target, attribute):
                guard let targetRow = view.row(entity: target, uniqueAttribute: attribute, value: value) else {
                    found = []
                    break
                }
                found = view.sources(of: relationship, pointingAt: targetRow, schema: schema)[...]
                foundLink = ToOneLink(relationship: relationship.index, target: UInt32(truncatingIfNeeded: targetRow))
            }
            guard let current = best else {
                (best, used, bestLink) = (found, [i], foundLink)
                continue
            }
            // As `narrower`: a much smaller side alone, otherwise both sides' common rows.
            let currentIsSmaller = current.count <= found.count
            let (small, large) = currentIsSmaller ? (current, found) : (found, current)
            if takesNarrowerSideAlone(small.count, large.count) {
                if !currentIsSmaller { (best, used, bestLink) = (found, [i], foundLink) }
            } else {
                if let link = currentIsSmaller ? foundLink : bestLink {
                    // The larger side is the rows linked to one target: keep the smaller
                    // side's rows whose link column names it (no pass over the larger side).
                    best = table.rows(small, linkingTo: link.target, through: link.relationship)[...]
                } else {
                    best = (marks?.intersect(small, large, slots: table.slotCount) ?? large.filter(Set(small).contains))[...]
                }
                used.append(i)
                bestLink = nil
            }
            if best?.isEmpty == true { break }  // nothing can match
        }
        guard let best else { return nil }
        return (best, used)
    }
}

/// A to-one relationship (by position) and a target row: the rows linked to it are its inverse set.
struct ToOneLink {
    let relationship: Int
    let target: UInt32
}
