import Foundation

/// What tells apart two `#Predicate`s whose expressions have one type: their key paths, their
/// comparisons' operators and their Bool constants. Foundation's expression types are generic
/// structs nested as the predicate is, so the type already says every node's kind; with the
/// signature it says the whole shape (see `QueryShape`), and a fetch finds its compiled query
/// by the expression's type and this, without converting the tree or hashing its key paths.
/// Key paths compare by identity first: a key path literal is made once per process.
struct PredicateSignature: Equatable {
    private(set) var keyPaths: [AnyKeyPath] = []
    /// Per constant, a Bool's value or that it is a slot; per comparison, its operator.
    private(set) var details: [UInt8] = []

    init() {
        // Room for a predicate of a few conditions, grown once at most.
        keyPaths.reserveCapacity(8)
        details.reserveCapacity(8)
    }

    mutating func append(_ keyPath: AnyKeyPath) { keyPaths.append(keyPath) }

    /// A constant: a Bool stays in the shape (the planner and compiler read it); anything else
    /// is the next slot's value.
    mutating func append(constant: Any, to constants: inout [Any]) {
        if let flag = constant as? Bool {
            details.append(flag ? 2 : 1)
        } else {
            details.append(0)
            constants.append(constant)
        }
    }

    mutating func append(_ op: PredicateExpressions.ComparisonOperator) {
        switch op {
        case .lessThan: details.append(3)
        case .lessThanOrEqual: details.append(4)
        case .greaterThan: details.append(5)
        case .greaterThanOrEqual: details.append(6)
        @unknown default: details.append(7)
        }
    }
}

/// Compiled queries an ad-hoc fetch finds by its predicate's expression type and signature
/// (see `PredicateSignature`); a type not kept here, or a tree that does not convert
/// statically, finds its query by shape (`QueryShape`), and the first is then kept here too.
struct CompiledQueriesBySignature {
    private var kept: [ObjectIdentifier: [(entity: Int, signature: PredicateSignature, query: CompiledQuery)]] = [:]
    private(set) var count = 0

    func query(type: ObjectIdentifier, entity: Int, signature: PredicateSignature) -> CompiledQuery? {
        kept[type]?.first { $0.entity == entity && $0.signature == signature }?.query
    }

    mutating func keep(_ query: CompiledQuery, type: ObjectIdentifier, entity: Int, signature: PredicateSignature) {
        kept[type, default: []].append((entity, signature, query))
        count += 1
    }

    mutating func removeAll() {
        kept.removeAll()
        count = 0
    }
}

// MARK: Signing, leaves first; children in the order `PredicateNode.replacing` visits them

extension PredicateExpressions.Value {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {
        signature.append(constant: value, to: &constants)
    }
}

extension PredicateExpressions.NilLiteral {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {}
}

extension PredicateExpressions.Variable {
    // Any variable: shapes compare variables equal whatever their identifiers.
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {}
}

extension PredicateExpressions.KeyPath where Root: PredicateNodeConvertible {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {
        signature.append(keyPath)
        root.sign(&signature, constants: &constants)
    }
}

extension PredicateExpressions.OptionalFlatMap where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {
        wrapped.sign(&signature, constants: &constants)
        transform.sign(&signature, constants: &constants)
    }
}

extension PredicateExpressions.Equal where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {
        lhs.sign(&signature, constants: &constants)
        rhs.sign(&signature, constants: &constants)
    }
}

extension PredicateExpressions.NotEqual where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {
        lhs.sign(&signature, constants: &constants)
        rhs.sign(&signature, constants: &constants)
    }
}

extension PredicateExpressions.Comparison where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {
        signature.append(op)
        lhs.sign(&signature, constants: &constants)
        rhs.sign(&signature, constants: &constants)
    }
}

extension PredicateExpressions.Conjunction where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {
        lhs.sign(&signature, constants: &constants)
        rhs.sign(&signature, constants: &constants)
    }
}

extension PredicateExpressions.Disjunction where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {
        lhs.sign(&signature, constants: &constants)
        rhs.sign(&signature, constants: &constants)
    }
}

extension PredicateExpressions.Negation where Wrapped: PredicateNodeConvertible {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {
        wrapped.sign(&signature, constants: &constants)
    }
}

extension PredicateExpressions.NilCoalesce where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {
        lhs.sign(&signature, constants: &constants)
        rhs.sign(&signature, constants: &constants)
    }
}

extension PredicateExpressions.SequenceContains where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    func sign(_ signature: inout PredicateSignature, constants: inout [Any]) {
        sequence.sign(&signature, constants: &constants)
        element.sign(&signature, constants: &constants)
    }
}
