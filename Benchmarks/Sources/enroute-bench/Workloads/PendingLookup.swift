import EnrouteModels
import Foundation
import GraphStore

/// `lookup_pending`: a `#Predicate { $0.ident == ident }` fetch in a context holding as many
/// unsaved flights as the store has (each a new object with an ident of its own and a
/// distance), for idents among the unsaved ones: the lookup the seed app's find-or-create makes
/// before its one save (GraphStore only: SQLite has no unsaved objects). µs per lookup: constant
/// work when pending changes are indexed, growing with the store only as a committed lookup
/// does (memory's latency). The first lookup, which indexes the unsaved objects' unique values
/// (once: later inserts keep that map up to date), is timed on its own. The context is rolled
/// back, untimed.
struct PendingLookup {
    let container: ModelContainer
    let rows: SyntheticEnroute.Rows
    let lookups: Int

    struct Result {
        var firstMicros = Double.nan
        var micros = Double.nan
    }

    func run() throws -> Result {
        let context = ModelContext(container)
        context.autosaveEnabled = false
        for row in rows.flights {
            let flight = Flight(ident: "P" + row.ident)
            context.insert(flight)
            flight.routeDistance = row.routeDistance
        }
        var rng = SeededRandom(seed: 11)
        let idents = (0..<lookups).map { _ in "P" + rows.flights[Int(rng.next() % UInt64(rows.flights.count))].ident }
        var found = 0
        let first = "P" + rows.flights[rows.flights.count / 2].ident
        let firstElapsed = try measure {
            found = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == first })).count
        }
        guard found == 1 else { throw SQLiteEngine.Failure(description: "lookup_pending: \(first) not found") }
        found = 0
        let elapsed = try measure {
            for ident in idents {
                found += try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident })).count
            }
        }
        context.rollback()
        guard found == idents.count else {
            throw SQLiteEngine.Failure(description: "lookup_pending: found \(found) of \(idents.count) unsaved flights")
        }
        return Result(firstMicros: firstElapsed, micros: elapsed / Double(idents.count))
    }
}
