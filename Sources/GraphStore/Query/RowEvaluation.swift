import Foundation

/// A predicate compiled to run on committed rows instead of model objects: each node of the
/// expression tree becomes a closure over the graph's columns. Only shapes whose meaning on
/// stored values is exactly Swift's are compiled — constants, attributes and chains through
/// to-one relationships, ==, !=, <, <=, >, >=, &&, ||, !, ??, nil — and anything else makes the
/// whole predicate fall back to evaluation on objects.
typealias RowFunction = (GraphView, UInt64) -> Value

struct RowCompiler {
    let schema: Schema
    let entity: Schema.Entity

    func compile(_ expression: Any) -> RowFunction? {
        (expression as? any RowCompilable)?.rowFunction(self)
    }

    /// A key path chain from the root row to a value: an attribute, or a to-one relationship
    /// (as the target's row number), through any number of to-one relationships.
    func chain(_ keyPaths: [AnyKeyPath]) -> RowFunction? {
        var current = entity
        var steps: [(relationship: Schema.Relationship, entity: Int)] = []
        for (i, keyPath) in keyPaths.enumerated() {
            switch current.property(for: keyPath) {
            case let .attribute(attribute)?:
                // External-storage values are references in the graph: such predicates run on objects.
                guard i == keyPaths.count - 1, !attribute.options.contains(.externalStorage) else { return nil }
                let e = current.index, index = attribute.index
                return { view, row in
                    guard let target = Self.follow(steps, from: row, in: view) else { return .null }
                    return view.value(entity: e, row: target, attribute: index)
                }
            case let .relationship(relationship)? where !relationship.isToMany:
                steps.append((relationship, current.index))
                current = schema.entities[relationship.targetIndex]
            default:
                return nil
            }
        }
        // The chain ends at a to-one relationship: its target's row, or nil.
        return { view, row in
            guard let target = Self.follow(steps, from: row, in: view) else { return .null }
            return .uint(target)
        }
    }

    /// Follows to-one relationships from `row`; nil when one of them is empty.
    private static func follow(_ steps: [(relationship: Schema.Relationship, entity: Int)], from row: UInt64, in view: GraphView) -> UInt64? {
        var current = row
        var entity = steps.first?.entity
        for step in steps {
            guard view.isLive(entity: step.entity, row: current),
                  let next = view.toOne(entity: step.entity, row: current, relationship: step.relationship.index) else { return nil }
            current = next
            entity = step.relationship.targetIndex
        }
        _ = entity
        return current
    }
}

protocol RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction?
}

extension PredicateExpressions.Value: RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction? {
        guard let value = QueryPlanner.storedValue(self.value) else { return nil }
        return { _, _ in value }
    }
}

extension PredicateExpressions.NilLiteral: RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction? { { _, _ in .null } }
}

extension PredicateExpressions.KeyPath: RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction? {
        keyPathChain.flatMap(compiler.chain)
    }
}

extension PredicateExpressions.OptionalFlatMap: RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction? {
        keyPathChain.flatMap(compiler.chain)
    }
}

private func operands(_ lhs: Any, _ rhs: Any, _ compiler: RowCompiler) -> (RowFunction, RowFunction)? {
    guard let l = (lhs as? any RowCompilable)?.rowFunction(compiler), let r = (rhs as? any RowCompilable)?.rowFunction(compiler) else { return nil }
    return (l, r)
}

extension PredicateExpressions.Equal: RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction? {
        guard let (l, r) = operands(lhs, rhs, compiler) else { return nil }
        return { view, row in .bool(l(view, row) == r(view, row)) }
    }
}

extension PredicateExpressions.NotEqual: RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction? {
        guard let (l, r) = operands(lhs, rhs, compiler) else { return nil }
        return { view, row in .bool(l(view, row) != r(view, row)) }
    }
}

extension PredicateExpressions.Comparison: RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction? {
        guard let (l, r) = operands(lhs, rhs, compiler) else { return nil }
        let op = self.op
        return { view, row in
            let a = l(view, row), b = r(view, row)
            switch op {
            case .lessThan: return .bool(Value.ordered(a, b))
            case .lessThanOrEqual: return .bool(!Value.ordered(b, a))
            case .greaterThan: return .bool(Value.ordered(b, a))
            case .greaterThanOrEqual: return .bool(!Value.ordered(a, b))
            @unknown default: return .bool(false)
            }
        }
    }
}

/// A side of `&&` or `||` that is a Bool constant (`anyAirline || …`, `!enrouteOnly || …`, the
/// shape of optional filters): the other side is compiled only when it can matter.
protocol ConstantCondition {
    var constantCondition: Bool? { get }
}

extension PredicateExpressions.Value: ConstantCondition {
    var constantCondition: Bool? { value as? Bool }
}

extension PredicateExpressions.Negation: ConstantCondition {
    var constantCondition: Bool? { (wrapped as? any ConstantCondition)?.constantCondition.map { !$0 } }
}

private func constant(_ expression: Any) -> Bool? { (expression as? any ConstantCondition)?.constantCondition }

extension PredicateExpressions.Conjunction: RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction? {
        switch constant(lhs) {
        case true?: return (rhs as? any RowCompilable)?.rowFunction(compiler)
        case false?: return { _, _ in .bool(false) }
        case nil: break
        }
        guard let (l, r) = operands(lhs, rhs, compiler) else { return nil }
        return { view, row in l(view, row) == .bool(true) ? r(view, row) : .bool(false) }
    }
}

extension PredicateExpressions.Disjunction: RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction? {
        switch constant(lhs) {
        case true?: return { _, _ in .bool(true) }
        case false?: return (rhs as? any RowCompilable)?.rowFunction(compiler)
        case nil: break
        }
        guard let (l, r) = operands(lhs, rhs, compiler) else { return nil }
        return { view, row in l(view, row) == .bool(true) ? .bool(true) : r(view, row) }
    }
}

extension PredicateExpressions.Negation: RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction? {
        guard let inner = (wrapped as? any RowCompilable)?.rowFunction(compiler) else { return nil }
        return { view, row in .bool(inner(view, row) != .bool(true)) }
    }
}

extension PredicateExpressions.NilCoalesce: RowCompilable {
    func rowFunction(_ compiler: RowCompiler) -> RowFunction? {
        guard let (l, r) = operands(lhs, rhs, compiler) else { return nil }
        return { view, row in
            let value = l(view, row)
            return value == .null ? r(view, row) : value
        }
    }
}
