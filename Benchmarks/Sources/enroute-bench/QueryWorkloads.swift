import CSQLite
import EnrouteModels
import Foundation

/// `filter_query` and `point_lookup`, GraphStore against the SQLite baseline on the same data,
/// interleaved in rounds. Both sides produce the same answers (checked) and read the same
/// columns of each result.
struct QueryWorkloads {
    struct Result {
        var filterGraphStore: Double   // seconds per query (median of rounds)
        var filterSQLite: Double
        var lookupGraphStore: Double   // seconds per lookup
        var lookupSQLite: Double
        var filterQueries: Int
        var lookups: Int
    }

    let directory: String
    let flights: Int
    let rounds: Int

    func run() throws -> Result {
        let synthetic = SyntheticEnroute(flights: flights)
        let rows = synthetic.rows()
        let path = directory + "/query-store"
        try? FileManager.default.removeItem(atPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                           configurations: ModelConfiguration(url: URL(fileURLWithPath: path), durability: .none))
        do {
            let loader = ModelContext(container)
            synthetic.insert(rows, into: loader)
            try loader.save()
        }
        let sqlite = try SQLiteBaseline(path: directory + "/query.sqlite")
        try sqlite.load(rows)

        // Queries over many different airports and airlines.
        var rng = SeededRandom(seed: 7)
        let filters = (0..<200).map { _ in
            (rows.airports[Int(rng.next() % UInt64(rows.airports.count))].icao, rows.airlines[Int(rng.next() % UInt64(rows.airlines.count))])
        }
        let lookups = (0..<2_000).map { _ in rows.flights[Int(rng.next() % UInt64(rows.flights.count))].ident }

        let context = ModelContext(container)
        let filterStatement = try sqlite.prepare("""
            SELECT f.ident, f.route_distance FROM flights f
            JOIN airports d ON d.id = f.destination_id JOIN airlines a ON a.id = f.airline_id
            WHERE d.icao = ? AND a.code = ? AND f.actual_off IS NOT NULL AND f.actual_on IS NULL
            ORDER BY f.route_distance, f.ident
            """)
        let lookupStatement = try sqlite.prepare("SELECT ident, route_distance FROM flights WHERE ident = ?")

        func graphStoreFilter() throws -> [[String]] {
            try filters.map { icao, code in
                try context.fetch(FlightFilter(destination: icao, airline: code, enrouteOnly: true, sort: .distance).fetchDescriptor)
                    .map { "\($0.ident) \($0.routeDistance)" }
            }.map { $0 }
        }
        func sqliteFilter() -> [[String]] {
            filters.map { icao, code in
                filterStatement.reset()
                filterStatement.bind(1, icao)
                filterStatement.bind(2, code)
                var found: [String] = []
                while filterStatement.step() == SQLITE_ROW { found.append("\(filterStatement.text(0)) \(filterStatement.int(1))") }
                return found
            }
        }
        func graphStoreLookup() throws -> Int {
            var total = 0
            for ident in lookups {
                let descriptor = FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident })
                total += try context.fetch(descriptor).first?.routeDistance ?? 0
            }
            return total
        }
        func sqliteLookup() -> Int {
            var total = 0
            for ident in lookups {
                lookupStatement.reset()
                lookupStatement.bind(1, ident)
                if lookupStatement.step() == SQLITE_ROW { total += Int(lookupStatement.int(1)) }
            }
            return total
        }

        // Same answers from both engines.
        let mine = try graphStoreFilter(), theirs = sqliteFilter()
        guard mine == theirs else { throw SQLiteBaseline.Failure(description: "filter_query answers differ") }
        guard try graphStoreLookup() == sqliteLookup() else { throw SQLiteBaseline.Failure(description: "point_lookup answers differ") }

        var gFilter: [Double] = [], sFilter: [Double] = [], gLookup: [Double] = [], sLookup: [Double] = []
        for _ in 0..<rounds {
            gFilter.append(try measure { _ = try graphStoreFilter() } / 1e6 / Double(filters.count))
            sFilter.append(measure { _ = sqliteFilter() } / 1e6 / Double(filters.count))
            gLookup.append(try measure { _ = try graphStoreLookup() } / 1e6 / Double(lookups.count))
            sLookup.append(measure { _ = sqliteLookup() } / 1e6 / Double(lookups.count))
        }
        withExtendedLifetime(container) {}
        return Result(filterGraphStore: median(gFilter), filterSQLite: median(sFilter), lookupGraphStore: median(gLookup),
                      lookupSQLite: median(sLookup), filterQueries: filters.count, lookups: lookups.count)
    }
}
