import Foundation
import GraphStoreCore

/// Which rows a predicate can be answered from, read off its `PredicateNode` tree: equality
/// and IN through unique and secondary indexes or a to-one target's inverse set, ranges on
/// sorted indexes, and ANDs and ORs of those. Nil means scan.
extension QueryPlanner {
    func candidates(for node: PredicateNode) -> Candidates? {
        switch node {
        case let .and(lhs, rhs):
            if let compound = compoundCandidates(for: node) { return compound }
            return conjunction(candidates(for: lhs), candidates(for: rhs))
        case let .or(lhs, rhs):
            // `false || x` is x: the shape of optional filters (`noFilter || $0.a == value`).
            if lhs.constant(parameters) as? Bool == false { return candidates(for: rhs) }
            if rhs.constant(parameters) as? Bool == false { return candidates(for: lhs) }
            guard let left = candidates(for: lhs), let right = candidates(for: rhs) else { return nil }
            return Candidates(rows: Array(Set(left.rows).union(right.rows)), plan: "union of (\(left.plan)) and (\(right.plan))")
        case let .equal(lhs, rhs):
            guard let (chain, constant, _) = PredicateNode.chainAndConstant(lhs, rhs, parameters: parameters) else { return nil }
            return equal(chain, constant)
        case let .comparison(op, lhs, rhs):
            guard let (chain, constant, constantOnRight) = PredicateNode.chainAndConstant(lhs, rhs, parameters: parameters) else { return nil }
            return range(chain, op, constant, constantOnRight: constantOnRight)
        case let .sequenceContains(sequence, element):
            guard let chain = element.keyPathChain, let values = sequence.constant(parameters) as? any Sequence else { return nil }
            return oneOf(chain, Array(values))
        default:
            return nil
        }
    }

    /// Both sides have index paths: only rows in both can match (the whole predicate is checked
    /// on each anyway). Otherwise the side that has one narrows the rows.
    private func conjunction(_ left: Candidates?, _ right: Candidates?) -> Candidates? {
        switch (left, right) {
        case let (l?, r?): return narrower(l, r)
        case let (l?, nil): return l
        case let (nil, r?): return r
        default: return nil
        }
    }

    /// How many times smaller one side of an AND must be for its rows alone (each checked
    /// against the rest of the predicate) to beat marking both sides to intersect them: an
    /// intersection costs a load or store per row of either side, a check several closure
    /// calls per row of the small one; the factor is tuned by the Enroute filter benchmark.
    private var narrowSideFactor: Int { 8 }

    /// Whether an AND whose index sides list `a` and `b` rows takes the smaller side alone.
    func takesNarrowerSideAlone(_ a: Int, _ b: Int) -> Bool {
        max(a, b) > narrowSideFactor * min(a, b)
    }

    /// The rows of both sides of an AND that both have index paths.
    func narrower(_ l: Candidates, _ r: Candidates) -> Candidates {
        let (small, large) = l.count <= r.count ? (l, r) : (r, l)
        if takesNarrowerSideAlone(small.count, large.count) {
            return Candidates(rows: small.rows, satisfies: small.satisfies, plan: "\(small.plan), the narrower side of an AND")
        }
        return Candidates(rows: intersect(small.rows, large.rows), satisfies: small.satisfies + large.satisfies,
                          plan: "intersection of (\(small.plan)) and (\(large.plan))")
    }
}

// MARK: The common lookup, recognised with one cast

/// `#Predicate { $0.key == constant }`: the shape of a lookup by key. Conforming only when the
/// left side is a key path straight off the input and the right a constant, so a single cast of
/// the whole predicate tells a fetch it can go to the unique index without planning or
/// compiling anything.
protocol KeyEqualsConstantPredicate {
    var keyPath: AnyKeyPath { get }
    var constant: Any { get }
}

protocol KeyPathOffInput {
    var keyPathOffInput: AnyKeyPath { get }
}

protocol VariableExpression {}
extension PredicateExpressions.Variable: VariableExpression {}

extension PredicateExpressions.KeyPath: KeyPathOffInput where Root: VariableExpression {
    var keyPathOffInput: AnyKeyPath { keyPath }
}

/// A constant (`PredicateExpressions.Value`), for the lookup shape above.
protocol ConstantExpression {
    var constant: Any { get }
}

extension PredicateExpressions.Value: ConstantExpression {
    var constant: Any { value }
}

extension PredicateExpressions.Equal: KeyEqualsConstantPredicate where LHS: KeyPathOffInput, RHS: ConstantExpression {
    var keyPath: AnyKeyPath { lhs.keyPathOffInput }
    var constant: Any { rhs.constant }
}
