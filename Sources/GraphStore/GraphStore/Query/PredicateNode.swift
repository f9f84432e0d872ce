import Foundation

/// A `#Predicate`'s expression tree as the planner and the row compiler read it: the node kinds
/// they understand, and `.other` for anything else (left to evaluation on objects).
///
/// Foundation's expression types are generic structs nested as deeply as the predicate, so
/// asking each node "what are you?" with a dynamic cast costs a conformance lookup and a boxed
/// copy of the subtree per question — most of a fetch's time at 100k rows, before any row was
/// read. A tree made only of the kinds below conforms to `PredicateNodeConvertible` as a whole
/// (conditional conformances, checked once per predicate type by the runtime's conformance
/// cache), and converts itself with static calls. Other trees are converted node by node
/// through `DynamicPredicateNode`, each fully known subtree still taking the static path.
indirect enum PredicateNode {
    /// A constant (`PredicateExpressions.Value`).
    case constant(Any)
    case nilLiteral
    /// The predicate's input, or the value an optional flat map unwrapped.
    case variable(PredicateExpressions.VariableID)
    /// A value of a prepared fetch's parameters, by its slot (see `PreparedPredicate`): a
    /// constant whose value is known only when the fetch runs.
    case parameter(Int)
    case keyPath(root: PredicateNode, AnyKeyPath)
    /// `a?.b`: `transform` reads from the unwrapped `wrapped`.
    case optionalFlatMap(wrapped: PredicateNode, transform: PredicateNode)
    case equal(PredicateNode, PredicateNode)
    case notEqual(PredicateNode, PredicateNode)
    case comparison(PredicateExpressions.ComparisonOperator, PredicateNode, PredicateNode)
    case and(PredicateNode, PredicateNode)
    case or(PredicateNode, PredicateNode)
    case not(PredicateNode)
    case nilCoalesce(PredicateNode, PredicateNode)
    /// `constants.contains(element)` (IN).
    case sequenceContains(sequence: PredicateNode, element: PredicateNode)
    case other

    init(_ expression: Any) {
        if let known = expression as? any PredicateNodeConvertible {
            self = known.predicateNode
        } else if let node = expression as? any DynamicPredicateNode {
            self = node.dynamicPredicateNode
        } else {
            self = .other
        }
    }

    /// The key paths from the input to the value this node reads: `$0.ident` is one step,
    /// `$0.destination?.icao` two. Nil when the node is not such a chain.
    var keyPathChain: [AnyKeyPath]? {
        switch self {
        case let .keyPath(.variable, keyPath): return [keyPath]
        case let .keyPath(root, keyPath): return root.keyPathChain.map { $0 + [keyPath] }
        case let .optionalFlatMap(wrapped, transform):
            guard let head = wrapped.keyPathChain, let tail = transform.keyPathChain else { return nil }
            return head + tail
        default: return nil
        }
    }

    /// The tree with each node `replacement` answers for replaced by its answer (whose children
    /// are not visited); other nodes keep their kind, with their children replaced the same way.
    func replacing(_ replacement: (PredicateNode) -> PredicateNode?) -> PredicateNode {
        if let replaced = replacement(self) { return replaced }
        switch self {
        case .constant, .nilLiteral, .variable, .parameter, .other: return self
        case let .keyPath(root, keyPath): return .keyPath(root: root.replacing(replacement), keyPath)
        case let .optionalFlatMap(wrapped, transform):
            return .optionalFlatMap(wrapped: wrapped.replacing(replacement), transform: transform.replacing(replacement))
        case let .equal(l, r): return .equal(l.replacing(replacement), r.replacing(replacement))
        case let .notEqual(l, r): return .notEqual(l.replacing(replacement), r.replacing(replacement))
        case let .comparison(op, l, r): return .comparison(op, l.replacing(replacement), r.replacing(replacement))
        case let .and(l, r): return .and(l.replacing(replacement), r.replacing(replacement))
        case let .or(l, r): return .or(l.replacing(replacement), r.replacing(replacement))
        case let .not(wrapped): return .not(wrapped.replacing(replacement))
        case let .nilCoalesce(l, r): return .nilCoalesce(l.replacing(replacement), r.replacing(replacement))
        case let .sequenceContains(sequence, element):
            return .sequenceContains(sequence: sequence.replacing(replacement), element: element.replacing(replacement))
        }
    }

    /// A Bool the node always has (`anyAirline`, `!enrouteOnly`: the shape of optional filters).
    var constantCondition: Bool? {
        switch self {
        case let .constant(value): return value as? Bool
        case let .not(wrapped): return wrapped.constantCondition.map { !$0 }
        default: return nil
        }
    }

    /// A chain on one side and a parameter slot on the other.
    static func chainAndParameter(_ lhs: PredicateNode, _ rhs: PredicateNode) -> (chain: [AnyKeyPath], slot: Int)? {
        if let chain = lhs.keyPathChain, case let .parameter(slot) = rhs { return (chain, slot) }
        if let chain = rhs.keyPathChain, case let .parameter(slot) = lhs { return (chain, slot) }
        return nil
    }
}

/// An expression whose whole subtree converts statically (see `PredicateNode`), and signs
/// itself the same way (see `PredicateSigner`).
protocol PredicateNodeConvertible {
    var predicateNode: PredicateNode { get }
    /// Adds the steps that sign an expression of this type lying `offset` bytes into the whole
    /// tree: what tells it apart from others of its type, and its constants other than Bools, in
    /// the order `QueryShape` numbers its slots. False when a field's place is not known.
    static func addSigningSteps(at offset: Int, to signer: inout PredicateSigner) -> Bool
}

extension PredicateNodeConvertible {
    /// The converted tree of `expression`, which is of this very type (the caller found `E` to
    /// be this type), read where it lies: a cast of the value to `any PredicateNodeConvertible`
    /// would copy the whole tree.
    static func predicateNode<E>(of expression: borrowing E) -> PredicateNode {
        precondition(E.self == Self.self, "an expression converted as another type")
        return withUnsafePointer(to: expression) { UnsafeRawPointer($0).assumingMemoryBound(to: Self.self).pointee.predicateNode }
    }

    /// Where `field` lies in an expression of this type lying `offset` bytes into the tree.
    static func place(of field: PartialKeyPath<Self>, at offset: Int) -> Int? {
        MemoryLayout<Self>.offset(of: field).map { offset + $0 }
    }

    /// The steps of a node's two children, `first`'s then `second`'s (what most inner nodes sign).
    static func addSigningSteps<First: PredicateNodeConvertible, Second: PredicateNodeConvertible>(
        of first: PartialKeyPath<Self>, _: First.Type, then second: PartialKeyPath<Self>, _: Second.Type,
        at offset: Int, to signer: inout PredicateSigner) -> Bool {
        guard let firstPlace = place(of: first, at: offset), let secondPlace = place(of: second, at: offset) else { return false }
        return First.addSigningSteps(at: firstPlace, to: &signer) && Second.addSigningSteps(at: secondPlace, to: &signer)
    }
}

/// An expression of a known kind whose children may not all be known: converted child by child.
protocol DynamicPredicateNode {
    var dynamicPredicateNode: PredicateNode { get }
}

// MARK: Leaves

extension PredicateExpressions.Value: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .constant(value) }
}

extension PredicateExpressions.NilLiteral: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .nilLiteral }
}

extension PredicateExpressions.Variable: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .variable(key) }
}

// MARK: Inner nodes: statically when every child is known, otherwise child by child

extension PredicateExpressions.KeyPath: PredicateNodeConvertible where Root: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .keyPath(root: root.predicateNode, keyPath) }
}
extension PredicateExpressions.KeyPath: DynamicPredicateNode {
    var dynamicPredicateNode: PredicateNode { .keyPath(root: PredicateNode(root), keyPath) }
}

extension PredicateExpressions.OptionalFlatMap: PredicateNodeConvertible where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .optionalFlatMap(wrapped: wrapped.predicateNode, transform: transform.predicateNode) }
}
extension PredicateExpressions.OptionalFlatMap: DynamicPredicateNode {
    var dynamicPredicateNode: PredicateNode { .optionalFlatMap(wrapped: PredicateNode(wrapped), transform: PredicateNode(transform)) }
}

extension PredicateExpressions.Equal: PredicateNodeConvertible where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .equal(lhs.predicateNode, rhs.predicateNode) }
}
extension PredicateExpressions.Equal: DynamicPredicateNode {
    var dynamicPredicateNode: PredicateNode { .equal(PredicateNode(lhs), PredicateNode(rhs)) }
}

extension PredicateExpressions.NotEqual: PredicateNodeConvertible where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .notEqual(lhs.predicateNode, rhs.predicateNode) }
}
extension PredicateExpressions.NotEqual: DynamicPredicateNode {
    var dynamicPredicateNode: PredicateNode { .notEqual(PredicateNode(lhs), PredicateNode(rhs)) }
}

extension PredicateExpressions.Comparison: PredicateNodeConvertible where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .comparison(op, lhs.predicateNode, rhs.predicateNode) }
}
extension PredicateExpressions.Comparison: DynamicPredicateNode {
    var dynamicPredicateNode: PredicateNode { .comparison(op, PredicateNode(lhs), PredicateNode(rhs)) }
}

extension PredicateExpressions.Conjunction: PredicateNodeConvertible where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .and(lhs.predicateNode, rhs.predicateNode) }
}
extension PredicateExpressions.Conjunction: DynamicPredicateNode {
    var dynamicPredicateNode: PredicateNode { .and(PredicateNode(lhs), PredicateNode(rhs)) }
}

extension PredicateExpressions.Disjunction: PredicateNodeConvertible where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .or(lhs.predicateNode, rhs.predicateNode) }
}
extension PredicateExpressions.Disjunction: DynamicPredicateNode {
    var dynamicPredicateNode: PredicateNode { .or(PredicateNode(lhs), PredicateNode(rhs)) }
}

extension PredicateExpressions.Negation: PredicateNodeConvertible where Wrapped: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .not(wrapped.predicateNode) }
}
extension PredicateExpressions.Negation: DynamicPredicateNode {
    var dynamicPredicateNode: PredicateNode { .not(PredicateNode(wrapped)) }
}

extension PredicateExpressions.NilCoalesce: PredicateNodeConvertible where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .nilCoalesce(lhs.predicateNode, rhs.predicateNode) }
}
extension PredicateExpressions.NilCoalesce: DynamicPredicateNode {
    var dynamicPredicateNode: PredicateNode { .nilCoalesce(PredicateNode(lhs), PredicateNode(rhs)) }
}

extension PredicateExpressions.SequenceContains: PredicateNodeConvertible where LHS: PredicateNodeConvertible, RHS: PredicateNodeConvertible {
    var predicateNode: PredicateNode { .sequenceContains(sequence: sequence.predicateNode, element: element.predicateNode) }
}
extension PredicateExpressions.SequenceContains: DynamicPredicateNode {
    var dynamicPredicateNode: PredicateNode { .sequenceContains(sequence: PredicateNode(sequence), element: PredicateNode(element)) }
}
