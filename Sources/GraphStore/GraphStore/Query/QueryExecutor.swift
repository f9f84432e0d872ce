import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Runs a `QueryPlan` for one fetch's slot values inside a read of the graph: the rows the
/// plan's indexes list, kept as the graph lists them until the caller widens them. Ad-hoc and
/// prepared fetches, `explain` and the committed-only fetch all run here. A class, made once
/// per fetch: as a struct of this many references it was copied, reference by reference, at
/// each call that took it.
final class QueryExecutor {
    /// The rows a plan allows, each once, in no particular order (callers sort what survives
    /// the predicate, which is usually far less).
    struct Candidates {
        var rows: ArraySlice<UInt32>
        /// The plan's equalities every one of `rows` meets and no other committed row does, as
        /// bits by number (`EqualitySet`): the compiled condition need not check them again.
        var satisfied: EqualitySet
        /// Set when `rows` are exactly the rows one to-one relationship links to one target:
        /// membership is then one read of the link column.
        var link: ToOneLink?
        /// How they were found, for `explain`; empty unless the executor describes.
        var plan: String
    }

    let schema: Schema
    let entity: Schema.Entity
    let view: GraphView
    let plan: QueryPlan
    /// Each slot's value as the graph stores it; `.null` where it has none (no index looks
    /// `.null` up, so either way the step scans).
    let stored: [Value]
    /// Each slot's value as given, for IN's sequences and Bool flags; may be empty when every
    /// slot has a stored form.
    let given: [Any]
    /// Whether the fetching context has unsaved changes to objects of an entity: steps through
    /// a relationship read the committed target, so they stand down when it may have changed.
    let hasPendingChanges: (Int) -> Bool
    /// Scratch space for ANDs (the fetching context's); nil intersects by hashing.
    let marks: RowMarks?
    /// Whether to say how rows were found (`explain`): text no fetch needs otherwise.
    let describes: Bool

    // Constants, all of them: a class's `var` is checked for exclusive access at every read.
    init(plan: QueryPlan, schema: Schema, entity: Schema.Entity, view: GraphView, stored: [Value], given: [Any],
         marks: RowMarks?, hasPendingChanges: @escaping (Int) -> Bool = { _ in false }, describes: Bool = false) {
        self.plan = plan
        self.schema = schema
        self.entity = entity
        self.view = view
        self.stored = stored
        self.given = given
        self.marks = marks
        self.hasPendingChanges = hasPendingChanges
        self.describes = describes
    }

    /// The plan's rows; nil: scan.
    func candidates() -> Candidates? {
        plan.root.flatMap(run)
    }

    private func run(_ step: QueryPlan.Step) -> Candidates? {
        switch step {
        case let .equal(number): return equal(number)
        case let .oneOf(access, slot): return oneOf(access, slot: slot)
        case let .range(attribute, op, slot): return range(attribute, op, slot: slot)
        case let .and(compounds, sides): return compound(compounds) ?? conjunction(sides)
        case let .or(lhs, rhs):
            guard let left = run(lhs), let right = run(rhs) else { return nil }
            return Candidates(rows: Array(Set(left.rows).union(right.rows))[...], satisfied: EqualitySet(), link: nil,
                              plan: describes ? "union of (\(left.plan)) and (\(right.plan))" : "")
        case let .unlessSet(flag, rest):
            let isFalse = stored[flag] == .bool(false)
            return isFalse ? run(rest) : nil
        }
    }

    // MARK: One index

    private func equal(_ number: Int) -> Candidates? {
        let equality = plan.equalities[number]
        // Nil is no key (indexes hold no nil, and "points at nothing" has no inverse set): scan.
        let value = stored[equality.slot]
        guard value != .null else { return nil }
        let table = view.table(entity.index)
        switch equality.access {
        case let .unique(attribute):
            guard let index = table.unique[attribute] else { return nil }
            let rows: ArraySlice<UInt32> = index[value].map { [$0] } ?? []
            return Candidates(rows: rows, satisfied: EqualitySet(number), link: nil,
                              plan: describes ? "unique index \(name(attribute)) = \(value): \(rows.count) row(s)" : "")
        case let .secondary(attribute):
            guard let index = table.secondary[attribute] else { return nil }
            let rows = index.rows(for: [value])[...]
            return Candidates(rows: rows, satisfied: EqualitySet(number), link: nil,
                              plan: describes ? "index \(name(attribute)) = \(value): \(rows.count) row(s)" : "")
        case let .inverseSet(relationship, target, attribute):
            guard !hasPendingChanges(target) else { return nil }
            var rows: ArraySlice<UInt32> = []
            var link: ToOneLink?
            if let targetRow = view.row(entity: target, uniqueAttribute: attribute, value: value) {
                rows = view.sources(of: relationship, pointingAt: targetRow)[...]
                link = ToOneLink(relationship: relationship.index, target: UInt32(truncatingIfNeeded: targetRow))
            }
            return Candidates(rows: rows, satisfied: EqualitySet(number), link: link,
                              plan: describes ? "\(inverseSetName(target, attribute)) = \(value)\(through(relationship.index)): \(rows.count) row(s)" : "")
        case .unindexed:
            return nil
        }
    }

    /// IN: the rows listed for each of the slot's values, each once.
    private func oneOf(_ access: QueryPlan.Access, slot: Int) -> Candidates? {
        guard slot < given.count, let sequence = given[slot] as? any Sequence else { return nil }
        var values: [Value] = []
        let elements: [Any] = Array(sequence)
        for element in elements {
            guard let value = QueryPlanner.storedValue(element), value != .null else { return nil }
            values.append(value)
        }
        let table = view.table(entity.index)
        var rows: [UInt32] = []
        var described = ""
        switch access {
        case let .unique(attribute):
            guard let index = table.unique[attribute] else { return nil }
            rows = values.compactMap { index[$0] }
            if describes { described = "unique index \(name(attribute)) IN \(values.count) value(s)" }
        case let .secondary(attribute):
            guard let index = table.secondary[attribute] else { return nil }
            rows = index.rows(for: values)
            if describes { described = "index \(name(attribute)) IN \(values.count) value(s)" }
        case let .inverseSet(relationship, target, attribute):
            guard !hasPendingChanges(target) else { return nil }
            for value in values {
                guard let targetRow = view.row(entity: target, uniqueAttribute: attribute, value: value) else { continue }
                rows.append(contentsOf: view.sources(of: relationship, pointingAt: targetRow))
            }
            if describes { described = "\(inverseSetName(target, attribute)) IN \(values.count) value(s)\(through(relationship.index))" }
        case .unindexed:
            return nil
        }
        if values.count > 1 {
            var seen = Set<UInt32>()
            rows = rows.filter { seen.insert($0).inserted }
        }
        return Candidates(rows: rows[...], satisfied: EqualitySet(), link: nil, plan: describes ? "\(described): \(rows.count) row(s)" : "")
    }

    // MARK: Names, for `explain`

    /// `Entity.attribute` of the fetched entity.
    private func name(_ attribute: Int) -> String {
        "\(entity.name).\(entity.attributes[attribute].name)"
    }

    private func inverseSetName(_ target: Int, _ attribute: Int) -> String {
        let targetEntity = schema.entities[target]
        return "inverse set of \(targetEntity.name).\(targetEntity.attributes[attribute].name)"
    }

    private func through(_ relationship: Int) -> String {
        " through \(entity.name).\(entity.relationships[relationship].name)"
    }

    private func range(_ attribute: Int, _ op: PredicateExpressions.ComparisonOperator, slot: Int) -> Candidates? {
        let table = view.table(entity.index)
        guard let sorted = table.sorted[attribute], !sorted.isStale,
              case let value = stored[slot], value != .null else { return nil }
        let column = table.columns[attribute]
        let rows: ArraySlice<UInt32>
        let symbol: String
        switch op {
        case .lessThan:
            rows = sorted.rows(from: nil, includingLower: false, to: value, includingUpper: false, column: column)
            symbol = "<"
        case .lessThanOrEqual:
            rows = sorted.rows(from: nil, includingLower: false, to: value, includingUpper: true, column: column)
            symbol = "<="
        case .greaterThan:
            rows = sorted.rows(from: value, includingLower: false, to: nil, includingUpper: false, column: column)
            symbol = ">"
        case .greaterThanOrEqual:
            rows = sorted.rows(from: value, includingLower: true, to: nil, includingUpper: false, column: column)
            symbol = ">="
        @unknown default:
            return nil
        }
        return Candidates(rows: rows, satisfied: EqualitySet(), link: nil,
                          plan: describes ? "sorted index \(name(attribute)) \(symbol) \(value): \(rows.count) row(s)" : "")
    }

    // MARK: ANDs

    /// The rows of the first compound index whose key this run's values give: a to-one
    /// member's key is the row its target's unique value names (none: no row can match).
    private func compound(_ matches: [QueryPlan.CompoundMatch]) -> Candidates? {
        let table = view.table(entity.index)
        next: for match in matches where !table.compound[match.index].isStale {
            var key: [Value] = []
            var targetMissing = false
            for number in match.members {
                let equality = plan.equalities[number]
                let value = stored[equality.slot]
                guard value != .null else { continue next }
                switch equality.access {
                case let .inverseSet(_, target, attribute):
                    guard !hasPendingChanges(target) else { continue next }
                    if let row = view.row(entity: target, uniqueAttribute: attribute, value: value) {
                        key.append(.int(Int64(row)))
                    } else {
                        targetMissing = true
                    }
                default:
                    key.append(value)
                }
            }
            let rows = targetMissing ? [] : table.compound[match.index].rows(for: key)[...]
            var plan = ""
            if describes {
                let values = match.members.map { stored[self.plan.equalities[$0].slot].description }.joined(separator: ", ")
                plan = "compound index \(entity.name)(\(entity.compoundIndexes[match.index])) = (\(values)): \(rows.count) row(s)"
            }
            return Candidates(rows: rows, satisfied: EqualitySet(match.members), link: nil, plan: plan)
        }
        return nil
    }

    /// How many times smaller one side of an AND must be for its rows alone (each checked
    /// against the rest of the predicate) to beat marking both sides to intersect them: an
    /// intersection costs a load or store per row of either side, a check several closure
    /// calls per row of the small one; the factor is tuned by the Enroute filter benchmark.
    private static let narrowSideFactor = 8

    /// The sides of an AND that list rows, each narrowing what the others found: a side much
    /// smaller than the rest is taken alone, sides of similar size are intersected.
    private func conjunction(_ sides: [QueryPlan.Step]) -> Candidates? {
        var best: Candidates?
        let table = view.table(entity.index)
        for side in sides {
            guard let found = run(side) else { continue }
            guard let current = best else {
                best = found
                continue
            }
            let (small, large) = current.rows.count <= found.rows.count ? (current, found) : (found, current)
            if large.rows.count > Self.narrowSideFactor * small.rows.count {
                best = small
                if describes { best?.plan = "\(small.plan), the narrower side of an AND" }
            } else {
                let rows: [UInt32]
                if let link = large.link {
                    // The larger side is the rows linked to one target: keep the smaller
                    // side's rows whose link column names it (no pass over the larger side).
                    rows = table.rows(small.rows, linkingTo: link.target, through: link.relationship)
                } else {
                    rows = marks?.intersect(small.rows, large.rows, slots: table.slotCount) ?? large.rows.filter(Set(small.rows).contains)
                }
                best = Candidates(rows: rows[...], satisfied: small.satisfied.union(large.satisfied), link: nil,
                                  plan: describes ? "intersection of (\(small.plan)) and (\(large.plan))" : "")
            }
            if best?.rows.isEmpty == true { break }  // nothing can match
        }
        return best
    }
}

/// A to-one relationship (by position) and a target row: the rows linked to it are its inverse set.
struct ToOneLink {
    let relationship: Int
    let target: UInt32
}

/// A set of a plan's equalities (or a compiled condition's sites) by number, as bits: the first
/// 64 of them, which is every one a predicate has in practice. A number beyond is never in the
/// set, which only means its equality is checked again.
struct EqualitySet {
    private(set) var bits: UInt64 = 0

    init() {}

    init(_ number: Int) {
        insert(number)
    }

    init(_ numbers: [Int]) {
        for number in numbers { insert(number) }
    }

    mutating func insert(_ number: Int) {
        if number >= 0 && number < 64 { bits |= 1 << UInt64(number) }
    }

    func contains(_ number: Int) -> Bool {
        number >= 0 && number < 64 && bits & (1 << UInt64(number)) != 0
    }

    func union(_ other: EqualitySet) -> EqualitySet {
        var union = self
        union.bits |= other.bits
        return union
    }

    /// The numbers in the set, lowest first.
    func forEach(_ body: (Int) -> Void) {
        var remaining = bits
        while remaining != 0 {
            body(remaining.trailingZeroBitCount)
            remaining &= remaining &- 1
        }
    }
}
