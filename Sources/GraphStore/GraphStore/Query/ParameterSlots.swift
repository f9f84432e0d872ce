import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// A compiled query's slot values for the run under way, which its compiled closures read (see
/// `RowCompiler.parameters`). A query is compiled once per shape and context and run many
/// times: what depends on the values — their stored form, whether the plan's index already
/// guarantees an equality, the row a unique key names — is worked out here once per run.
final class ParameterSlots {
    /// How an equality between a chain and a parameter is decided in this run.
    enum Mode {
        /// The chain's value against the parameter's.
        case compare
        /// The plan's index found only rows that meet it.
        case satisfied
        /// The chain's to-one target row against the row the key names (`Decision.target`).
        case targetRow
        /// The key names no row: no row's chain can equal it.
        case noTarget
    }

    /// A unique attribute at the end of a to-one chain.
    struct Target {
        var entity: Int
        var attribute: Int
    }

    /// An equality between a chain and a parameter slot, as compiled.
    private struct Site {
        var chain: [AnyKeyPath]
        var slot: Int
        var target: Target?
    }

    /// How a site is decided in this run: its mode, and for `.targetRow` the row.
    struct Decision {
        var mode: Mode
        var target: UInt64
    }

    /// Each slot's value as the graph stores it. (Read per row by compiled closures, which run
    /// only inside a run on the context's own thread: no exclusivity checks.)
    @exclusivity(unchecked) private(set) var stored: [Value] = []
    private var sites: [Site] = []
    /// Per site, for this run.
    @exclusivity(unchecked) private(set) var decisions: [Decision] = []

    /// Notes an equality the compiler compiled; its number indexes `decisions`.
    func addSite(chain: [AnyKeyPath], slot: Int, target: Target?) -> Int {
        sites.append(Site(chain: chain, slot: slot, target: target))
        decisions.append(Decision(mode: .compare, target: 0))
        return sites.count - 1
    }

    /// One run's slot values, already in their stored form.
    func bind(stored: [Value]) {
        self.stored = stored
    }

    private static func isKey(_ value: Value) -> Bool {
        switch value {
        case .string, .int, .uint: return true
        default: return false
        }
    }

    /// The sites compiled for `chain == slot`: an equality the plan's rows are known to meet
    /// is met wherever the predicate tests it.
    func sites(chain: [AnyKeyPath], slot: Int) -> [Int] {
        sites.indices.filter { sites[$0].slot == slot && sites[$0].chain == chain }
    }

    /// Decides each equality for this run, inside the read the run filters in, given the sites
    /// the plan's rows are known to satisfy.
    func resolve(in view: GraphView, satisfiedSites: EqualitySet) {
        for i in sites.indices {
            if satisfiedSites.contains(i) {
                decisions[i] = Decision(mode: .satisfied, target: 0)
            } else {
                decide(i, in: view)
            }
        }
    }

    private func decide(_ i: Int, in view: GraphView) {
        let site = sites[i], value = stored[site.slot]
        // String and integer keys only: -0.0 == 0.0 and NaN are not the index's equality,
        // and nil matches rows whose chain is empty, which no target row stands for.
        guard let target = site.target, Self.isKey(value) else {
            decisions[i] = Decision(mode: .compare, target: 0)
            return
        }
        if let row = view.row(entity: target.entity, uniqueAttribute: target.attribute, value: value) {
            decisions[i] = Decision(mode: .targetRow, target: row)
        } else {
            decisions[i] = Decision(mode: .noTarget, target: 0)
        }
    }
}
