import Foundation

/// A predicate with its constants taken out: what is left is its shape, which a context plans
/// and compiles once (see `CompiledQuery`) and then runs with each predicate's constants as the
/// values of numbered slots, as a prepared fetch runs with its parameters. `#Predicate` makes a
/// new expression tree each time it is written, so a fetch written inside a loop would otherwise
/// be planned and compiled on every pass.
///
/// Every constant becomes a slot except Bools, which stay in the shape: the planner and the
/// compiler read them to drop the side of an AND or OR they decide (`anyAirline || …`, the
/// shape of optional filters). Two shapes are equal when their trees are, key path for key
/// path; variables compare equal whatever their identifiers, which `#Predicate` numbers anew
/// each time (planning and compiling read a chain's key paths, never which variable it starts at).
///
/// A fetch finds its shape's compiled query without making the shape: one walk of its predicate
/// gives the hash the shape would have and the constants (`fingerprint`), and the queries kept
/// under that hash are checked against the predicate itself (`isShape(of:)`). The shape is made
/// only the first time.
struct QueryShape: Hashable {
    /// The tree, with `.parameter(n)` where the predicate had its n-th constant.
    let node: PredicateNode
    /// `node`'s hash as `fingerprint` gives it (a shape has no constants left to take out), worked out once.
    let shapeHash: Int

    init(node: PredicateNode) {
        self.node = node
        shapeHash = QueryShape.fingerprint(of: node).shapeHash
    }

    /// `node`'s shape and its constants in slot order; slots are numbered from `firstSlot`
    /// (a prepared predicate's parameters take the slots before its constants').
    static func parameterizing(_ node: PredicateNode, firstSlot: Int = 0) -> (shape: QueryShape, constants: [Any]) {
        var constants: [Any] = []
        let shaped = node.replacing { node in
            guard case let .constant(value) = node, !(value is Bool) else { return nil }
            constants.append(value)
            return .parameter(firstSlot + constants.count - 1)
        }
        return (QueryShape(node: shaped), constants)
    }

    /// The hash the shape of `node` has (`shapeHash`, for slots numbered from 0) and `node`'s
    /// constants in slot order, without making the shape.
    static func fingerprint(of node: PredicateNode) -> (shapeHash: Int, constants: [Any]) {
        var hasher = Hasher()
        var constants: [Any] = []
        node.hashShape(into: &hasher, constants: &constants)
        return (hasher.finalize(), constants)
    }

    /// Whether `node` with its constants taken out, numbered from 0, is this shape.
    func isShape(of node: PredicateNode) -> Bool {
        var slot = 0
        return node.isShape(self.node, nextSlot: &slot)
    }

    static func == (lhs: QueryShape, rhs: QueryShape) -> Bool {
        lhs.shapeHash == rhs.shapeHash && rhs.isShape(of: lhs.node)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(shapeHash)
    }
}

extension PredicateNode {
    /// Equal as shapes — same kinds, key paths, operators, slots and Bool constants — once
    /// `self`'s constants other than Bools are slots numbered from `nextSlot` in the order
    /// `QueryShape.parameterizing` numbers them (pre-order, left first). `self` may be a shape
    /// itself (its slots are then compared with the shape's).
    fileprivate func isShape(_ shape: PredicateNode, nextSlot: inout Int) -> Bool {
        switch (self, shape) {
        case let (.constant(value), .parameter(slot)):
            guard !(value is Bool), slot == nextSlot else { return false }
            nextSlot += 1
            return true
        case let (.parameter(l), .parameter(r)): return l == r
        case let (.constant(l), .constant(r)):
            guard let l = l as? Bool, let r = r as? Bool else { return false }
            return l == r
        case (.nilLiteral, .nilLiteral), (.variable, .variable), (.other, .other): return true
        case let (.keyPath(lr, lk), .keyPath(rr, rk)): return lk == rk && lr.isShape(rr, nextSlot: &nextSlot)
        case let (.optionalFlatMap(lw, lt), .optionalFlatMap(rw, rt)):
            return lw.isShape(rw, nextSlot: &nextSlot) && lt.isShape(rt, nextSlot: &nextSlot)
        case let (.equal(l1, l2), .equal(r1, r2)), let (.notEqual(l1, l2), .notEqual(r1, r2)),
             let (.and(l1, l2), .and(r1, r2)), let (.or(l1, l2), .or(r1, r2)),
             let (.nilCoalesce(l1, l2), .nilCoalesce(r1, r2)),
             let (.sequenceContains(l1, l2), .sequenceContains(r1, r2)):
            return l1.isShape(r1, nextSlot: &nextSlot) && l2.isShape(r2, nextSlot: &nextSlot)
        case let (.comparison(lo, l1, l2), .comparison(ro, r1, r2)):
            return lo == ro && l1.isShape(r1, nextSlot: &nextSlot) && l2.isShape(r2, nextSlot: &nextSlot)
        case let (.not(l), .not(r)): return l.isShape(r, nextSlot: &nextSlot)
        default: return false
        }
    }

    /// Hashes what `isShape` compares, a constant that is not a Bool as the slot
    /// `QueryShape.parameterizing` makes of it (and collected into `constants`). A shape has no
    /// such constants left: its hash is its own.
    fileprivate func hashShape(into hasher: inout Hasher, constants: inout [Any]) {
        switch self {
        case let .constant(value):
            if !(value is Bool) {
                hasher.combine(3)
                hasher.combine(constants.count)
                constants.append(value)
                return
            }
            hasher.combine(0)
            hasher.combine(value as? Bool)
        case .nilLiteral: hasher.combine(1)
        case .variable: hasher.combine(2)
        case let .parameter(slot):
            hasher.combine(3)
            hasher.combine(slot)
        case let .keyPath(root, keyPath):
            hasher.combine(4)
            hasher.combine(keyPath)
            root.hashShape(into: &hasher, constants: &constants)
        case let .optionalFlatMap(wrapped, transform): combine(5, wrapped, transform, into: &hasher, &constants)
        case let .equal(l, r): combine(6, l, r, into: &hasher, &constants)
        case let .notEqual(l, r): combine(7, l, r, into: &hasher, &constants)
        case let .comparison(op, l, r):
            hasher.combine(op)
            combine(8, l, r, into: &hasher, &constants)
        case let .and(l, r): combine(9, l, r, into: &hasher, &constants)
        case let .or(l, r): combine(10, l, r, into: &hasher, &constants)
        case let .not(wrapped):
            hasher.combine(11)
            wrapped.hashShape(into: &hasher, constants: &constants)
        case let .nilCoalesce(l, r): combine(12, l, r, into: &hasher, &constants)
        case let .sequenceContains(sequence, element): combine(13, sequence, element, into: &hasher, &constants)
        case .other: hasher.combine(14)
        }
    }

    private func combine(_ tag: Int, _ l: PredicateNode, _ r: PredicateNode, into hasher: inout Hasher, _ constants: inout [Any]) {
        hasher.combine(tag)
        l.hashShape(into: &hasher, constants: &constants)
        r.hashShape(into: &hasher, constants: &constants)
    }
}
