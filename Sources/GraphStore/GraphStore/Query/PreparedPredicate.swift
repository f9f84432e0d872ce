import Foundation

/// A prepared fetch's predicate as the planner and the row compiler read it, converted once
/// (see `PredicateNode`): every read of the parameters — the parameters themselves, or a path
/// into them such as `p.0` or `p.airline` — is a numbered slot, whose value each run reads
/// from the parameters it is given. Shared by every context that runs the fetch.
final class PreparedPredicate: @unchecked Sendable {  // immutable after init
    let node: PredicateNode
    /// Each slot's key paths from the parameters to its value (empty: the parameters themselves).
    let slotPaths: [[AnyKeyPath]]
    /// `node` with its constants as slots too, after the parameters' (see `QueryShape`): what
    /// a context plans and compiles.
    let shape: PredicateNode
    /// Those constants, as written and in their stored form (`.null` for one with none), and
    /// whether every one has a stored form.
    let constants: [Any]
    let storedConstants: [Value]
    let constantsAreStored: Bool

    init(expression: Any, parameters: PredicateExpressions.VariableID) {
        var paths: [[AnyKeyPath]] = []
        node = PredicateNode(expression).replacing { node in
            guard let path = Self.parameterPath(node, parameters: parameters) else { return nil }
            if let slot = paths.firstIndex(of: path) { return .parameter(slot) }
            paths.append(path)
            return .parameter(paths.count - 1)
        }
        slotPaths = paths
        let (shape, constants) = QueryShape.parameterizing(node, firstSlot: paths.count)
        self.shape = shape.node
        self.constants = constants
        (storedConstants, constantsAreStored) = QueryPlanner.storedValues(constants)
    }

    /// The parameter slots' values for one run.
    func values(of parameters: Any) -> [Any] {
        slotPaths.map { Self.read($0, from: parameters) }
    }

    /// The tree with `values` in place of its slots: what the fetch's bound descriptor plans.
    func bound(to values: [Any]) -> PredicateNode {
        node.replacing { node in
            guard case let .parameter(slot) = node else { return nil }
            return .constant(values[slot])
        }
    }

    /// The key paths from the parameters to what `node` reads, when it reads only them.
    private static func parameterPath(_ node: PredicateNode, parameters: PredicateExpressions.VariableID) -> [AnyKeyPath]? {
        switch node {
        case let .variable(id): return id == parameters ? [] : nil
        case let .keyPath(root, keyPath): return parameterPath(root, parameters: parameters).map { $0 + [keyPath] }
        case let .optionalFlatMap(wrapped, transform):
            // `p.trip?.airline`: the transform reads from the unwrapped value (its own variable).
            guard let head = parameterPath(wrapped, parameters: parameters), let tail = transform.keyPathChain else { return nil }
            return head + tail
        default: return nil
        }
    }

    /// The value at `path` from `root`, through optionals as `?.` goes: nil once one is nil.
    private static func read(_ path: [AnyKeyPath], from root: Any) -> Any {
        var value = root
        for keyPath in path {
            guard let unwrapped = unwrappingOptional(value) else { return value }
            value = unwrapped
            guard let next = value[keyPath: keyPath] else { return Optional<Any>.none as Any }
            value = next
        }
        return value
    }
}
