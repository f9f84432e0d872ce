import Foundation
import GraphStoreCore
import GraphStoreGraph

/// Chooses how to find the rows a predicate may match: equality and IN on unique or indexed
/// attributes, ranges on sorted indexes, a to-one relationship's target (by a unique attribute
/// of the target) through the target's inverse set, the most selective conjunct of an AND, the
/// union of an OR whose both sides have one. Anything else scans the entity. The predicate is
/// always evaluated on every candidate, so a plan only ever narrows the work, never the answer.
struct QueryPlanner {
    struct Candidates {
        /// Committed rows of the fetched entity, each once, in no particular order (callers sort
        /// what survives the predicate, which is usually far less).
        /// Rows as the graph lists them (an inverse set, a sorted index's range), not yet
        /// widened: an AND often only needs their count to set a side aside.
        private let listed: ArraySlice<UInt32>?
        private let found: [UInt64]
        var count: Int { listed?.count ?? found.count }
        var rows: [UInt64] { listed.map { $0.map(UInt64.init) } ?? found }
        /// Conditions every one of `rows` meets and no other committed row does, as found by an
        /// index: the compiled predicate need not check them again (see RowCompiler.satisfied).
        var satisfies: [ChainEquality]
        /// How they were found, for `explain` (described only when asked: a fetch never needs it).
        private let describe: () -> String
        var plan: String { describe() }

        init(rows: [UInt64], satisfies: [ChainEquality] = [], plan: @autoclosure @escaping () -> String) {
            listed = nil
            found = rows
            self.satisfies = satisfies
            describe = plan
        }

        init(listed: ArraySlice<UInt32>, satisfies: [ChainEquality] = [], plan: @autoclosure @escaping () -> String) {
            self.listed = listed
            found = []
            self.satisfies = satisfies
            describe = plan
        }
    }

    /// `chain == value`, as a plan found it.
    struct ChainEquality: Equatable {
        var chain: [AnyKeyPath]
        var value: Value
    }

    let schema: Schema
    let entity: Schema.Entity
    let view: GraphView
    /// Whether the fetching context has unsaved changes to objects of an entity: plans through a
    /// relationship read the committed target, so they stand down when it may have changed.
    var hasPendingChanges: (Int) -> Bool = { _ in false }
    /// Scratch space for ANDs (the fetching context's); nil intersects by hashing.
    var marks: RowMarks?
    /// A prepared fetch's parameter values by slot: its `.parameter` nodes plan as these constants.
    var parameters: [Any] = []

    /// Rows in both lists, in `large`'s order.
    func intersect(_ small: [UInt64], _ large: [UInt64]) -> [UInt64] {
        if let marks { return marks.intersect(small, large, slots: view.table(entity.index).slotCount) }
        let members = Set(small)
        return large.filter(members.contains)
    }

    // MARK: Conditions

    func equal(_ chain: [AnyKeyPath], _ constant: Any) -> Candidates? {
        guard let value = Self.storedValue(constant) else { return nil }
        return lookup(chain, values: [value], describe: "= \(value)")
    }


    func oneOf(_ chain: [AnyKeyPath], _ constants: [Any]) -> Candidates? {
        let values = constants.compactMap(Self.storedValue)
        guard values.count == constants.count else { return nil }
        return lookup(chain, values: values, describe: "IN \(values.count) value(s)")
    }

    func range(_ chain: [AnyKeyPath], _ op: PredicateExpressions.ComparisonOperator, _ constant: Any, constantOnRight: Bool) -> Candidates? {
        guard chain.count == 1, case let .attribute(attribute)? = entity.property(for: chain[0]),
              let sorted = view.table(entity.index).sorted[attribute.index], !sorted.isStale,
              let value = Self.storedValue(constant), value != .null else { return nil }
        // Normalize to "attribute <op> value".
        var op = op
        if !constantOnRight {
            switch op {
            case .lessThan: op = .greaterThan
            case .lessThanOrEqual: op = .greaterThanOrEqual
            case .greaterThan: op = .lessThan
            case .greaterThanOrEqual: op = .lessThanOrEqual
            @unknown default: return nil
            }
        }
        let column = view.table(entity.index).columns[attribute.index]
        let rows: ArraySlice<UInt32>
        switch op {
        case .lessThan: rows = sorted.rows(from: nil, includingLower: false, to: value, includingUpper: false, column: column)
        case .lessThanOrEqual: rows = sorted.rows(from: nil, includingLower: false, to: value, includingUpper: true, column: column)
        case .greaterThan: rows = sorted.rows(from: value, includingLower: false, to: nil, includingUpper: false, column: column)
        case .greaterThanOrEqual: rows = sorted.rows(from: value, includingLower: true, to: nil, includingUpper: false, column: column)
        @unknown default: return nil
        }
        return Candidates(listed: rows,
                          plan: "sorted index \(entity.name).\(attribute.name) \(Self.symbol(op)) \(value): \(rows.count) row(s)")
    }

    /// Rows whose chain equals one of `values`: through a unique or indexed attribute, or a to-one
    /// relationship's target found by a unique attribute of the target.
    private func lookup(_ chain: [AnyKeyPath], values: [Value], describe: @autoclosure @escaping () -> String) -> Candidates? {
        // Indexes hold no nil for unique values, and "points at nothing" has no inverse set: scan.
        guard !values.contains(.null) else { return nil }
        let table = view.table(entity.index)
        if chain.count == 1, case let .attribute(attribute)? = entity.property(for: chain[0]) {
            if let unique = table.unique[attribute.index] {
                let rows = Self.distinct(values.compactMap { unique[$0] }.map(UInt64.init), from: values.count)
                return Candidates(rows: rows, satisfies: Self.equality(chain, values), plan: "unique index \(entity.name).\(attribute.name) \(describe()): \(rows.count) row(s)")
            }
            if let secondary = table.secondary[attribute.index] {
                let rows = Self.distinct(secondary.rows(for: values).map(UInt64.init), from: values.count)
                return Candidates(rows: rows, satisfies: Self.equality(chain, values), plan: "index \(entity.name).\(attribute.name) \(describe()): \(rows.count) row(s)")
            }
            return nil
        }
        if chain.count == 2, case let .relationship(relationship)? = entity.property(for: chain[0]), !relationship.isToMany {
            let target = schema.entities[relationship.targetIndex]
            guard !hasPendingChanges(target.index), case let .attribute(attribute)? = target.property(for: chain[1]),
                  let unique = view.table(target.index).unique[attribute.index] else { return nil }
            if values.count == 1 {
                let listed = unique[values[0]].map { view.sources(of: relationship, pointingAt: UInt64($0), schema: schema) } ?? []
                return Candidates(listed: listed[...], satisfies: Self.equality(chain, values),
                                  plan: "inverse set of \(target.name).\(attribute.name) \(describe()) through \(entity.name).\(relationship.name): \(listed.count) row(s)")
            }
            var rows: [UInt64] = []
            for value in values {
                guard let targetRow = unique[value] else { continue }
                rows.append(contentsOf: view.sources(of: relationship, pointingAt: UInt64(targetRow), schema: schema).lazy.map(UInt64.init))
            }
            rows = Self.distinct(rows, from: values.count)
            return Candidates(rows: rows, satisfies: Self.equality(chain, values),
                              plan: "inverse set of \(target.name).\(attribute.name) \(describe()) through \(entity.name).\(relationship.name): \(rows.count) row(s)")
        }
        return nil
    }

    /// What rows found for a single value satisfy (several values: no single equality).
    private static func equality(_ chain: [AnyKeyPath], _ values: [Value]) -> [ChainEquality] {
        values.count == 1 ? [ChainEquality(chain: chain, value: values[0])] : []
    }

    /// Rows gathered for `valueCount` values: one value's rows are distinct already.
    private static func distinct(_ rows: [UInt64], from valueCount: Int) -> [UInt64] {
        guard valueCount > 1 else { return rows }
        var seen = Set<UInt64>()
        return rows.filter { seen.insert($0).inserted }
    }

    /// A predicate constant as the graph stores it, when it has a plain stored form.
    static func storedValue(_ constant: Any) -> Value? {
        // The usual constants first: a cast to a concrete type compares type metadata, where a
        // cast to `any Storable` looks the conformance up.
        switch constant {
        case let string as String: return string.storedValue
        case let int as Int: return int.storedValue
        case let date as Date: return date.storedValue
        case let bool as Bool: return bool.storedValue
        case let double as Double: return double.storedValue
        default: break
        }
        if let storable = constant as? any Storable { return storable.storedValue }  // Optional of a Storable too
        let value: Any
        if let optional = constant as? any AnyOptional {
            guard let wrapped = optional.wrappedValue else { return .null }
            value = wrapped
        } else {
            value = constant
        }
        if let storable = value as? any Storable { return storable.storedValue }
        if let raw = value as? any RawRepresentable, let storable = raw.rawValue as? any Storable { return storable.storedValue }
        return nil
    }

    private static func symbol(_ op: PredicateExpressions.ComparisonOperator) -> String {
        switch op {
        case .lessThan: return "<"
        case .lessThanOrEqual: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqual: return ">="
        @unknown default: return "?"
        }
    }
}
