import Foundation

/// What tells apart two `#Predicate`s whose expressions have one type: their key paths, their
/// comparisons' operators and their Bool constants. Foundation's expression types are generic
/// structs nested as the predicate is, so the type already says every node's kind; with the
/// signature it says the whole shape (see `QueryShape`), and a fetch finds its compiled query
/// by the expression's type and this, without converting the tree or hashing its key paths.
///
/// Key paths compare by identity: a key path literal is made once per process, so a predicate
/// written in a loop names the same objects each time. (An equal key path made some other way
/// only misses here and is found by shape.) A signature that is kept retains its key paths, so
/// that no other key path can take one of their addresses while it is kept.
struct PredicateSignature: Equatable {
    private var identities: [ObjectIdentifier] = []
    /// Per constant, a Bool's value or that it is a slot; per comparison, its operator.
    private var details: [UInt8] = []
    /// The key paths themselves, for a signature that is kept (`retainingKeyPaths`).
    private(set) var keyPaths: [AnyKeyPath] = []
    private let retainsKeyPaths: Bool

    /// An empty signature with room for `keyPaths` key paths and `details` constants and operators.
    init(retainingKeyPaths: Bool = false, keyPaths: Int, details: Int) {
        retainsKeyPaths = retainingKeyPaths
        identities.reserveCapacity(keyPaths)
        self.details.reserveCapacity(details)
        if retainingKeyPaths { self.keyPaths.reserveCapacity(keyPaths) }
    }

    static func == (lhs: PredicateSignature, rhs: PredicateSignature) -> Bool {
        lhs.identities == rhs.identities && lhs.details == rhs.details
    }

    mutating func append(_ keyPath: AnyKeyPath) {
        identities.append(ObjectIdentifier(keyPath))
        if retainsKeyPaths { keyPaths.append(keyPath) }
    }

    /// A constant: a Bool stays in the shape (the planner and compiler read it); anything else
    /// is the next slot's value. (The type is compared first: a cast of each constant to Bool
    /// costs a dynamic cast per constant and fetch.)
    mutating func append<T>(constant: T, to constants: inout SlotValues) {
        if T.self == Bool.self {
            details.append(unsafeBitCast(constant, to: Bool.self) ? 2 : 1)
        } else if T.self == Bool?.self, let flag = unsafeBitCast(constant, to: Bool?.self) {
            details.append(flag ? 2 : 1)
        } else if T.self == Bool?.self || T.self == String.self || T.self == String?.self || T.self == Int.self || T.self == Date.self {
            details.append(0)
            constants.append(constant)
        } else if let flag = constant as? Bool {
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

// MARK: Signing steps, leaves first; children in the order `PredicateNode.replacing` visits them

extension PredicateExpressions.Value {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool {
        guard let place = place(of: \.value, at: offset) else { return false }
        signer.addConstant(at: place, of: Output.self)
        return true
    }
}

extension PredicateExpressions.NilLiteral {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool { true }
}

extension PredicateExpressions.Variable {
    // Any variable: shapes compare variables equal whatever their identifiers.
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool { true }
}

extension PredicateExpressions.KeyPath where Root: PredicateNodeConvertible {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool {
        guard let keyPath = place(of: \.keyPath, at: offset), let root = place(of: \.root, at: offset) else { return false }
        signer.addKeyPath(at: keyPath)
        return Root.addSigningSteps(at: root, to: &signer)
    }
}

extension PredicateExpressions.OptionalFlatMap where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool {
        addSigningSteps(of: \.wrapped, LHS.self, then: \.transform, RHS.self, at: offset, to: &signer)
    }
}

extension PredicateExpressions.Equal where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool {
        addSigningSteps(of: \.lhs, LHS.self, then: \.rhs, RHS.self, at: offset, to: &signer)
    }
}

extension PredicateExpressions.NotEqual where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool {
        addSigningSteps(of: \.lhs, LHS.self, then: \.rhs, RHS.self, at: offset, to: &signer)
    }
}

extension PredicateExpressions.Comparison where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool {
        guard let op = place(of: \.op, at: offset) else { return false }
        signer.addOperator(at: op)
        return addSigningSteps(of: \.lhs, LHS.self, then: \.rhs, RHS.self, at: offset, to: &signer)
    }
}

extension PredicateExpressions.Conjunction where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool {
        addSigningSteps(of: \.lhs, LHS.self, then: \.rhs, RHS.self, at: offset, to: &signer)
    }
}

extension PredicateExpressions.Disjunction where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool {
        addSigningSteps(of: \.lhs, LHS.self, then: \.rhs, RHS.self, at: offset, to: &signer)
    }
}

extension PredicateExpressions.Negation where Wrapped: PredicateNodeConvertible {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool {
        guard let wrapped = place(of: \.wrapped, at: offset) else { return false }
        return Wrapped.addSigningSteps(at: wrapped, to: &signer)
    }
}

extension PredicateExpressions.NilCoalesce where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool {
        addSigningSteps(of: \.lhs, LHS.self, then: \.rhs, RHS.self, at: offset, to: &signer)
    }
}

extension PredicateExpressions.SequenceContains where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool {
        addSigningSteps(of: \.sequence, LHS.self, then: \.element, RHS.self, at: offset, to: &signer)
    }
}
