import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// A predicate's shape (see `QueryShape`) planned and compiled for one context: its plan, its
/// condition on committed rows (nil: the predicate runs on objects), and the slots that
/// condition reads, which each run binds. Ad-hoc fetches keep one per shape they have seen,
/// prepared fetches one per prepared predicate; both run through `matches(in:)`.
final class CompiledQuery {
    /// What the compiled condition and the plan read: a slot's value per run.
    let slots = ParameterSlots()
    let plan: QueryPlan
    let condition: RowCondition?
    /// The columns the condition reads, in order (the first one a run reads is warmed; see ColumnWarming).
    private let reads: RowCompiler.ColumnReads
    /// What warming columns read (kept so that the reads are not optimised away; ColumnWarming).
    @exclusivity(unchecked) private var warmedChecksum: UInt64 = 0
    /// Per equality of the plan, the condition's sites that test it (see ParameterSlots).
    private let sitesOfEquality: [EqualitySet]

    init(_ node: PredicateNode, schema: Schema, entity: Schema.Entity) {
        var planner = QueryPlanner(schema: schema, entity: entity)
        plan = planner.plan(node)
        var compiler = RowCompiler(schema: schema, entity: entity)
        compiler.parameters = slots
        condition = compiler.condition(node)
        reads = compiler.reads
        sitesOfEquality = zip(plan.equalities, plan.chains).map { [slots] equality, chain in
            EqualitySet(slots.sites(chain: chain, slot: equality.slot))
        }
    }


    /// The committed rows the predicate matches for one run's values, inside the caller's read:
    /// the plan's rows (or every live row), less `excluding`, checked by the condition. Nil when
    /// the condition cannot decide — the predicate does not compile, or a value has no stored
    /// form (`storedComplete` false) — and `planned` then holds the plan's rows.
    func matches(in executor: QueryExecutor, storedComplete: Bool, excluding: Set<UInt64> = [],
                 planned: inout QueryExecutor.Candidates?) -> [UInt64]? {
        let candidates = executor.candidates()
        guard let condition, storedComplete else {
            planned = candidates
            return nil
        }
        slots.bind(stored: executor.stored)
        let view = executor.view
        var satisfiedSites = EqualitySet()
        candidates?.satisfied.forEach { satisfiedSites = satisfiedSites.union(sitesOfEquality[$0]) }
        slots.resolve(in: view, satisfiedSites: satisfiedSites)
        let rows = candidates.map { $0.rows.map(UInt64.init) } ?? view.table(executor.entity.index).liveRows
        // The column every candidate is checked on first, read for all of them at once (see
        // ColumnWarming): not one an equality the plan's rows meet reads, which is never read.
        if rows.count >= 64, let first = reads.first(skipping: satisfiedSites) { warmedChecksum &+= view.warm(first, rows: rows) }
        if excluding.isEmpty { return rows.filter { condition(view, $0) } }
        return rows.filter { !excluding.contains($0) && condition(view, $0) }
    }
}

/// The key a context keeps an ad-hoc fetch's compiled queries under: the entity (the same shape
/// may be fetched for several, `#Predicate { _ in true }`) and the shape's hash (the queries
/// under it are told apart by `QueryShape.isShape(of:)`).
struct CompiledQueryKey: Hashable {
    let entity: Int
    let shapeHash: Int
}
