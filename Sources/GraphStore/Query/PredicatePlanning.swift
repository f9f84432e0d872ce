import Foundation

/// Reading a `#Predicate`'s expression tree. Foundation's expression types get retroactive
/// conformances to these internal protocols, so the planner can ask any node what it is:
/// a constant, a key path chain from the input, or a condition it can answer from an index.

/// A constant in the predicate (`PredicateExpressions.Value`).
protocol ConstantExpression {
    var constant: Any { get }
}

/// A chain of key paths from the predicate's input: `$0.ident` is one step;
/// `$0.destination?.icao` is two (through an optional to-one relationship).
protocol KeyPathChainExpression {
    var keyPathChain: [AnyKeyPath]? { get }
}

/// A condition the planner may answer with an index.
protocol PlannableCondition {
    func candidates(_ planner: QueryPlanner) -> QueryPlanner.Candidates?
}

extension PredicateExpressions.Value: ConstantExpression {
    var constant: Any { value }
}

extension PredicateExpressions.KeyPath: KeyPathChainExpression {
    var keyPathChain: [AnyKeyPath]? {
        root is any VariableExpression ? [keyPath] : (root as? any KeyPathChainExpression)?.keyPathChain.map { $0 + [keyPath] }
    }
}

protocol VariableExpression {}
extension PredicateExpressions.Variable: VariableExpression {}

extension PredicateExpressions.OptionalFlatMap: KeyPathChainExpression {
    var keyPathChain: [AnyKeyPath]? {
        guard let head = (wrapped as? any KeyPathChainExpression)?.keyPathChain,
              let tail = (transform as? any KeyPathChainExpression)?.keyPathChain else { return nil }
        return head + tail
    }
}

extension PredicateExpressions.Conjunction: PlannableCondition {
    func candidates(_ planner: QueryPlanner) -> QueryPlanner.Candidates? {
        let left = (lhs as? any PlannableCondition)?.candidates(planner)
        let right = (rhs as? any PlannableCondition)?.candidates(planner)
        // Both sides have index paths: only rows in both can match (the whole predicate is
        // checked on each anyway). Otherwise the side that has one narrows the rows.
        switch (left, right) {
        case let (l?, r?):
            let (small, large) = l.rows.count <= r.rows.count ? (l, r) : (r, l)
            // Every candidate is checked against the whole predicate anyway: when one side is
            // much smaller, its rows alone are cheaper than hashing both sides to intersect them.
            if large.rows.count > 4 * small.rows.count {
                return QueryPlanner.Candidates(rows: small.rows, plan: "\(small.plan), the narrower side of an AND")
            }
            return QueryPlanner.Candidates(rows: planner.intersect(small.rows, large.rows),
                                           plan: "intersection of (\(small.plan)) and (\(large.plan))")
        case let (l?, nil): return l
        case let (nil, r?): return r
        default: return nil
        }
    }
}

extension PredicateExpressions.Disjunction: PlannableCondition {
    func candidates(_ planner: QueryPlanner) -> QueryPlanner.Candidates? {
        // `false || x` is x: the shape of optional filters (`noFilter || $0.a == value`).
        if (lhs as? any ConstantExpression)?.constant as? Bool == false { return (rhs as? any PlannableCondition)?.candidates(planner) }
        if (rhs as? any ConstantExpression)?.constant as? Bool == false { return (lhs as? any PlannableCondition)?.candidates(planner) }
        guard let left = (lhs as? any PlannableCondition)?.candidates(planner),
              let right = (rhs as? any PlannableCondition)?.candidates(planner) else { return nil }
        return QueryPlanner.Candidates(rows: Array(Set(left.rows).union(right.rows)),
                                       plan: "union of (\(left.plan)) and (\(right.plan))")
    }
}

extension PredicateExpressions.Equal: PlannableCondition {
    func candidates(_ planner: QueryPlanner) -> QueryPlanner.Candidates? {
        if let chain = (lhs as? any KeyPathChainExpression)?.keyPathChain, let constant = (rhs as? any ConstantExpression)?.constant {
            return planner.equal(chain, constant)
        }
        if let chain = (rhs as? any KeyPathChainExpression)?.keyPathChain, let constant = (lhs as? any ConstantExpression)?.constant {
            return planner.equal(chain, constant)
        }
        return nil
    }
}

extension PredicateExpressions.Comparison: PlannableCondition {
    func candidates(_ planner: QueryPlanner) -> QueryPlanner.Candidates? {
        if let chain = (lhs as? any KeyPathChainExpression)?.keyPathChain, let constant = (rhs as? any ConstantExpression)?.constant {
            return planner.range(chain, op, constant, constantOnRight: true)
        }
        if let chain = (rhs as? any KeyPathChainExpression)?.keyPathChain, let constant = (lhs as? any ConstantExpression)?.constant {
            return planner.range(chain, op, constant, constantOnRight: false)
        }
        return nil
    }
}

extension PredicateExpressions.SequenceContains: PlannableCondition {
    func candidates(_ planner: QueryPlanner) -> QueryPlanner.Candidates? {
        guard let chain = (element as? any KeyPathChainExpression)?.keyPathChain,
              let values = (sequence as? any ConstantExpression)?.constant as? any Sequence else { return nil }
        return planner.oneOf(chain, Array(values))
    }
}

// MARK: The common lookup, recognised with one cast

/// `#Predicate { $0.key == constant }`: the shape of a lookup by key. Conforming only when the
/// left side is a key path straight off the input and the right a constant, so a single cast of
/// the whole predicate tells a fetch it can go to the unique index without planning or
/// compiling anything (each of those walks the tree with dynamic casts).
protocol KeyEqualsConstantPredicate {
    var keyPath: AnyKeyPath { get }
    var constant: Any { get }
}

protocol KeyPathOffInput {
    var keyPathOffInput: AnyKeyPath { get }
}

extension PredicateExpressions.KeyPath: KeyPathOffInput where Root: VariableExpression {
    var keyPathOffInput: AnyKeyPath { keyPath }
}

extension PredicateExpressions.Equal: KeyEqualsConstantPredicate where LHS: KeyPathOffInput, RHS: ConstantExpression {
    var keyPath: AnyKeyPath { lhs.keyPathOffInput }
    var constant: Any { rhs.constant }
}
