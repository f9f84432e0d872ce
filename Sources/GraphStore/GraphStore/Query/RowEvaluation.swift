import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// A predicate compiled to run on committed rows instead of model objects: each node of the
/// expression tree becomes a closure over the graph's columns. Only shapes whose meaning on
/// stored values is exactly Swift's are compiled — constants, attributes and chains through
/// to-one relationships, ==, !=, <, <=, >, >=, &&, ||, !, ??, nil — and anything else makes the
/// whole predicate fall back to evaluation on objects.
///
/// Both are structs around the closure rather than bare function types: the compiler returns
/// them as optionals, and an optional closure is kept in the generic representation, so every
/// call of a nested closure went through two reabstraction thunks.
struct RowFunction {
    let run: (GraphView, UInt64) -> Value
    init(_ run: @escaping (GraphView, UInt64) -> Value) { self.run = run }
    func callAsFunction(_ view: GraphView, _ row: UInt64) -> Value { run(view, row) }
}
/// A condition compiled the same way: whether the row passes.
struct RowCondition {
    let run: (GraphView, UInt64) -> Bool
    init(_ run: @escaping (GraphView, UInt64) -> Bool) { self.run = run }
    func callAsFunction(_ view: GraphView, _ row: UInt64) -> Bool { run(view, row) }
}

struct RowCompiler {
    let schema: Schema
    let entity: Schema.Entity
    /// What the compiled function reads from the root row, in evaluation order (see `ColumnRead`).
    let reads = ColumnReads()
    /// The query's slots: `.parameter` nodes (its constants and a prepared fetch's parameters)
    /// compile to reads of their values for the run under way. Nil compiles them to nothing.
    var parameters: ParameterSlots?

    /// A column of the root entity a compiled function reads for every row it is given.
    enum ColumnRead: Equatable {
        case attribute(entity: Int, attribute: Int)
        case toOne(entity: Int, relationship: Int)
    }

    /// Noted as compiling goes, leftmost leaf first, each with the equality site (see
    /// `ParameterSlots`) that makes it, if any. A site the run's plan satisfies returns without
    /// reading; the first read of any other kind is made for every row, before anything can
    /// short-circuit: the one worth warming (see ColumnWarming).
    final class ColumnReads {
        private var reads: [(read: ColumnRead, site: Int?)] = []
        var count: Int { reads.count }

        func note(_ read: ColumnRead) { reads.append((read, nil)) }

        /// The reads noted since `start` are `site`'s.
        func assign(site: Int, from start: Int) {
            for i in start..<reads.count { reads[i].site = site }
        }

        /// The first read a run makes for every row, given the sites its plan satisfies.
        func first(skipping satisfied: EqualitySet) -> ColumnRead? {
            reads.first { $0.site.map { !satisfied.contains($0) } ?? true }?.read
        }
    }

    /// The node as a function of a row, or nil when any part of it must run on objects.
    func compile(_ node: PredicateNode) -> RowFunction? {
        switch node {
        case let .constant(constant):
            guard let value = QueryPlanner.storedValue(constant) else { return nil }
            return RowFunction { _, _ in value }
        case .nilLiteral:
            return RowFunction { _, _ in .null }
        case .keyPath, .optionalFlatMap:
            return node.keyPathChain.flatMap(chain)
        case .equal, .notEqual, .comparison, .and, .or, .not:
            guard let condition = condition(node) else { return nil }
            return RowFunction { view, row in .bool(condition(view, row)) }
        case let .nilCoalesce(lhs, rhs):
            guard let (l, r) = operands(lhs, rhs) else { return nil }
            return RowFunction { view, row in
                let value = l(view, row)
                return value == .null ? r(view, row) : value
            }
        case let .parameter(slot):
            guard let parameters else { return nil }
            return RowFunction { _, _ in parameters.stored[slot] }
        case .variable, .sequenceContains, .other:
            return nil
        }
    }

    /// A Bool-valued node as a test of a row: conditions combine as Bools, with no `Value`
    /// made and compared per node and row.
    func condition(_ node: PredicateNode) -> RowCondition? {
        switch node {
        case let .equal(lhs, rhs):
            if let isNil = chainIsNil(lhs, rhs) { return isNil }
            if let equals = chainEqualsParameter(lhs, rhs) { return equals }
            guard let (l, r) = operands(lhs, rhs) else { return nil }
            return RowCondition { view, row in l(view, row) == r(view, row) }
        case let .notEqual(lhs, rhs):
            if let isNil = chainIsNil(lhs, rhs) { return RowCondition { view, row in !isNil(view, row) } }
            if let equals = chainEqualsParameter(lhs, rhs) { return RowCondition { view, row in !equals(view, row) } }
            guard let (l, r) = operands(lhs, rhs) else { return nil }
            return RowCondition { view, row in l(view, row) != r(view, row) }
        case let .comparison(op, lhs, rhs):
            // Values that order their own way (an enum by its `Comparable`) compare on objects.
            guard StoredOrder.holds(forChain: lhs.keyPathChain), StoredOrder.holds(forChain: rhs.keyPathChain),
                  let (l, r) = operands(lhs, rhs) else { return nil }
            switch op {
            case .lessThan: return RowCondition { view, row in Value.ordered(l(view, row), r(view, row)) }
            case .lessThanOrEqual: return RowCondition { view, row in !Value.ordered(r(view, row), l(view, row)) }
            case .greaterThan: return RowCondition { view, row in Value.ordered(r(view, row), l(view, row)) }
            case .greaterThanOrEqual: return RowCondition { view, row in !Value.ordered(l(view, row), r(view, row)) }
            @unknown default: return nil
            }
        case let .and(lhs, rhs):
            // A Bool-constant side (`anyAirline || …`, the shape of optional filters): the other
            // side is compiled only when it can matter.
            switch lhs.constantCondition {
            case true?: return condition(rhs)
            case false?: return RowCondition { _, _ in false }
            case nil: break
            }
            guard let l = condition(lhs), let r = condition(rhs) else { return nil }
            return RowCondition { view, row in l(view, row) && r(view, row) }
        case let .or(lhs, rhs):
            switch lhs.constantCondition {
            case true?: return RowCondition { _, _ in true }
            case false?: return condition(rhs)
            case nil: break
            }
            guard let l = condition(lhs), let r = condition(rhs) else { return nil }
            return RowCondition { view, row in l(view, row) || r(view, row) }
        case let .not(wrapped):
            guard let inner = condition(wrapped) else { return nil }
            return RowCondition { view, row in !inner(view, row) }
        case let .constant(constant):
            if let bool = constant as? Bool { return RowCondition { _, _ in bool } }
            return nil
        default:
            // A Bool read from a row (`$0.isActive`, `$0.flag ?? false`): true only when it is.
            guard let value = compile(node) else { return nil }
            return RowCondition { view, row in if case .bool(true) = value(view, row) { true } else { false } }
        }
    }

    private func operands(_ lhs: PredicateNode, _ rhs: PredicateNode) -> (RowFunction, RowFunction)? {
        guard let l = compile(lhs), let r = compile(rhs) else { return nil }
        return (l, r)
    }

    /// `chain == slot` either way round, decided per run (see `ParameterSlots.resolve`): `true`
    /// when the plan found only rows that satisfy it, a comparison of row numbers when the
    /// chain ends at a unique key of a to-one target (`flight.destination?.icao == "KORD"`: the
    /// key names at most one target row, found once per run), otherwise the chain's value
    /// against the slot's.
    private func chainEqualsParameter(_ lhs: PredicateNode, _ rhs: PredicateNode) -> RowCondition? {
        let firstRead = reads.count
        guard let parameters, let (keyPaths, slot) = PredicateNode.chainAndParameter(lhs, rhs),
              let read = chain(keyPaths) else { return nil }
        var steps: [Step] = []
        var target: ParameterSlots.Target?
        if let (hops, end, last) = walk(keyPaths), !hops.isEmpty, case let .attribute(attribute)? = last,
           attribute.isUnique, !attribute.options.contains(.externalStorage) {
            steps = hops
            target = ParameterSlots.Target(entity: end.index, attribute: attribute.index)
        }
        let site = parameters.addSite(chain: keyPaths, slot: slot, target: target)
        reads.assign(site: site, from: firstRead)
        return RowCondition { view, row in
            let decision = parameters.decisions[site]
            switch decision.mode {
            case .satisfied: return true
            case .targetRow: return Self.follow(steps, from: row, in: view) == decision.target
            case .noTarget: return false
            case .compare: return read(view, row) == parameters.stored[slot]
            }
        }
    }

    /// `chain == nil` either way round, as a test of the column's null flag: no value is made
    /// and compared per row (`$0.actualOn == nil`, `$0.destination?.icao == nil`).
    private func chainIsNil(_ lhs: PredicateNode, _ rhs: PredicateNode) -> RowCondition? {
        let keyPaths: [AnyKeyPath]
        switch (lhs, rhs) {
        case (_, .nilLiteral): guard let chain = lhs.keyPathChain else { return nil }; keyPaths = chain
        case (.nilLiteral, _): guard let chain = rhs.keyPathChain else { return nil }; keyPaths = chain
        default: return nil
        }
        switch end(of: keyPaths) {
        case let .attribute(steps, e, index)?:
            if steps.isEmpty { return RowCondition { view, row in view.isNull(entity: e, row: row, attribute: index) } }
            return RowCondition { view, row in
                guard let target = Self.follow(steps, from: row, in: view) else { return true }
                return view.isNull(entity: e, row: target, attribute: index)
            }
        case let .toOne(steps)?:
            return RowCondition { view, row in Self.follow(steps, from: row, in: view) == nil }
        case nil:
            return nil
        }
    }

    /// One hop of a to-one chain, as plain numbers: evaluating a chain must not copy schema
    /// descriptions (their names are reference counted) once per row.
    struct Step {
        var entity: Int
        var relationship: Int
    }

    /// The to-one hops at the front of `keyPaths`, and what the chain ends at.
    private func walk(_ keyPaths: [AnyKeyPath]) -> (steps: [Step], end: Schema.Entity, last: PropertyReference?)? {
        var current = entity
        var steps: [Step] = []
        for (i, keyPath) in keyPaths.enumerated() {
            let property = current.property(for: keyPath)
            if i == keyPaths.count - 1 { return (steps, current, property) }
            guard case let .relationship(relationship)? = property, !relationship.isToMany else { return nil }
            steps.append(Step(entity: current.index, relationship: relationship.index))
            current = schema.entities[relationship.targetIndex]
        }
        return nil  // no key paths (a non-empty chain returns at its last key path)
    }

    /// Where a chain ends, as plain numbers: an attribute of the row its to-one hops lead to, or
    /// the row a last to-one relationship points at.
    private enum ChainEnd {
        case attribute(steps: [Step], entity: Int, attribute: Int)
        case toOne(steps: [Step])
    }

    /// What `keyPaths` read, noted in `reads`; nil when it is not a chain of to-one hops ending
    /// at a stored attribute or a to-one relationship.
    private func end(of keyPaths: [AnyKeyPath]) -> ChainEnd? {
        guard let (steps, end, last) = walk(keyPaths) else { return nil }
        switch last {
        case let .attribute(attribute)?:
            // External-storage values are references in the graph: such predicates run on objects.
            guard !attribute.options.contains(.externalStorage) else { return nil }
            reads.note(steps.first.map { .toOne(entity: $0.entity, relationship: $0.relationship) }
                       ?? .attribute(entity: end.index, attribute: attribute.index))
            return .attribute(steps: steps, entity: end.index, attribute: attribute.index)
        case let .relationship(relationship)? where !relationship.isToMany:
            let all = steps + [Step(entity: end.index, relationship: relationship.index)]
            reads.note(.toOne(entity: all[0].entity, relationship: all[0].relationship))
            return .toOne(steps: all)
        default:
            return nil
        }
    }

    /// A key path chain from the root row to a value: an attribute, or a to-one relationship
    /// (as the target's row number), through any number of to-one relationships.
    func chain(_ keyPaths: [AnyKeyPath]) -> RowFunction? {
        switch end(of: keyPaths) {
        case let .attribute(steps, e, index)?:
            if steps.isEmpty { return RowFunction { view, row in view.value(entity: e, row: row, attribute: index) } }
            return RowFunction { view, row in
                guard let target = Self.follow(steps, from: row, in: view) else { return .null }
                return view.value(entity: e, row: target, attribute: index)
            }
        case let .toOne(steps)?:
            // The chain ends at a to-one relationship: its target's row, or nil.
            return RowFunction { view, row in
                guard let target = Self.follow(steps, from: row, in: view) else { return .null }
                return .uint(target)
            }
        case nil:
            return nil
        }
    }

    /// Follows to-one relationships from `row` (a live row: functions run only on those); nil
    /// when one of them is empty.
    private static func follow(_ steps: [Step], from row: UInt64, in view: GraphView) -> UInt64? {
        var current = row
        for (i, step) in steps.enumerated() {
            guard i == 0 || view.isLive(entity: step.entity, row: current),
                  let next = view.toOne(entity: step.entity, row: current, relationship: step.relationship) else { return nil }
            current = next
        }
        return current
    }
}
