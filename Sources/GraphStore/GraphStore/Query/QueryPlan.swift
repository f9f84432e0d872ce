import Foundation

/// How to find the rows a predicate's shape may match, worked out once per shape by
/// `QueryPlanner` from the schema alone, and run for each fetch's slot values by
/// `QueryExecutor` against the graph of the moment. A plan only ever narrows the rows the
/// predicate is then checked on, never the answer; a part it cannot use is no part of it.
struct QueryPlan {
    /// Where an index finds the rows whose chain equals a value. Positions only: a run reads
    /// these for every equality, and schema descriptions (names, types) would be copied — each
    /// a handful of retains and releases — every time.
    enum Access {
        /// A unique attribute (by position) of the fetched entity: at most one row.
        case unique(attribute: Int)
        /// An `.indexed` attribute's hash index.
        case secondary(attribute: Int)
        /// A to-one relationship's target found by a unique attribute of the target: the
        /// target's inverse set.
        case inverseSet(relationship: RelationshipSide, target: Int, attribute: Int)
        /// An attribute with no index of its own: it only counts towards a compound index.
        case unindexed(attribute: Int)

        var isIndexed: Bool {
            if case .unindexed = self { return false }
            return true
        }
    }

    /// `chain == slot` and where its rows are listed: its number is its place in `equalities`
    /// (and its chain's in `chains`, which only compiling reads).
    struct Equality {
        let access: Access
        let slot: Int
    }

    /// A compound index whose every member an AND's equalities name.
    struct CompoundMatch {
        /// The compound index's position among the entity's.
        let index: Int
        /// Per member, in the index's order: the equality (by number) giving its key.
        let members: [Int]
    }

    indirect enum Step {
        /// The rows an equality's index lists (by the equality's number).
        case equal(Int)
        /// `values.contains(chain)`: the rows listed for each of the slot's values.
        case oneOf(Access, slot: Int)
        /// `attribute <op> slot` (the operator turned so), through the attribute's sorted index.
        case range(attribute: Int, PredicateExpressions.ComparisonOperator, slot: Int)
        /// An AND: the first compound index whose key the values give (unique ones first),
        /// otherwise its sides combined, each narrowing the others.
        case and(compounds: [CompoundMatch], sides: [Step])
        /// An OR: both sides' rows together (a side without a step makes it a scan).
        case or(Step, Step)
        /// `flag || rest`, with the flag a slot (a prepared fetch's Bool parameter): `rest`'s
        /// rows when the flag is false; otherwise every row may match.
        case unlessSet(flag: Int, Step)
    }

    /// The step to run; nil: scan.
    let root: Step?
    /// Every equality the steps use, by number, and each one's key path chain.
    let equalities: [Equality]
    let chains: [[AnyKeyPath]]
}
