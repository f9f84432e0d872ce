import GraphStoreCore
import GraphStoreGraph

/// An AND of equalities covering every member of a compound index (`Schema.Unique`,
/// `Schema.Index`) is answered by that index: `$0.number == 12 && $0.airline?.code == "UAL"`
/// with `Schema.Unique<Flight>([\.airline, \.number])` reads one key. A to-one member is
/// matched by an equality on a unique attribute of its target, which names the target's row.
extension QueryPlanner {
    func compoundCandidates(for node: PredicateNode) -> Candidates? {
        guard !entity.compoundIndexes.isEmpty else { return nil }
        var equalities: [ChainEquality] = []
        collectEqualities(node, into: &equalities)
        guard equalities.count >= 2 else { return nil }
        let table = view.table(entity.index)
        // Unique ones first: they find at most one row.
        for c in entity.compoundIndexes.sorted(by: { $0.isUnique && !$1.isUnique }) where !table.compound[c.index].isStale {
            guard let (key, satisfied) = key(of: c, from: equalities) else { continue }
            let rows = key.map { table.compound[c.index].rows(for: $0).map(UInt64.init) } ?? []
            let values = satisfied.map(\.value.description).joined(separator: ", ")
            return Candidates(rows: rows, satisfies: satisfied,
                              plan: "compound index \(entity.name)(\(c)) = (\(values)): \(rows.count) row(s)")
        }
        return nil
    }

    /// The equalities of an AND tree (`chain == constant`, with a stored form).
    private func collectEqualities(_ node: PredicateNode, into equalities: inout [ChainEquality]) {
        switch node {
        case let .and(lhs, rhs):
            collectEqualities(lhs, into: &equalities)
            collectEqualities(rhs, into: &equalities)
        case let .equal(lhs, rhs):
            guard let (chain, constant, _) = PredicateNode.chainAndConstant(lhs, rhs, parameters: parameters),
                  let value = Self.storedValue(constant), value != .null else { return }
            equalities.append(ChainEquality(chain: chain, value: value))
        default:
            return
        }
    }

    /// The key the equalities give `c` (nil inside when a to-one member's target does not
    /// exist: no row can match), and the equalities it used; nil when they do not cover it.
    private func key(of c: Schema.CompoundIndex, from equalities: [ChainEquality]) -> ([Value]?, [ChainEquality])? {
        var key: [Value]? = []
        var used: [ChainEquality] = []
        for member in c.members {
            switch member {
            case let .attribute(a):
                guard let equality = equalities.first(where: { equality in
                    guard equality.chain.count == 1, case let .attribute(attribute)? = entity.property(for: equality.chain[0]) else { return false }
                    return attribute.index == a
                }) else { return nil }
                key?.append(equality.value)
                used.append(equality)
            case let .toOne(r):
                let relationship = entity.relationships[r]
                let target = schema.entities[relationship.targetIndex]
                guard !hasPendingChanges(target.index) else { return nil }
                var found: (ChainEquality, UniqueIndex)?
                for equality in equalities where equality.chain.count == 2 {
                    guard case let .relationship(through)? = entity.property(for: equality.chain[0]), through.index == r,
                          case let .attribute(attribute)? = target.property(for: equality.chain[1]),
                          let unique = view.table(target.index).unique[attribute.index] else { continue }
                    found = (equality, unique)
                    break
                }
                guard let (equality, unique) = found else { return nil }
                if let row = unique[equality.value] { key?.append(.int(Int64(row))) } else { key = nil }
                used.append(equality)
            }
        }
        return (key, used)
    }
}
