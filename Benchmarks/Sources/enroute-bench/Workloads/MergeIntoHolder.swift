import EnrouteModels
import Foundation
import GraphStore

/// `merge`: what one small save costs when another context of the container holds an object for
/// every flight (a list that fetched them all) and a live query of an airport's arrivals board
/// (GraphStore only: SQLite's connections share nothing to merge). Each round a writer context
/// changes one flight's distance and saves, durably; the holder's board is read (it applies the
/// save's change summary, re-checking only the changed row) and the holder reads the flight,
/// which must show the new value. Timed together, the save and both reads; in proportion to the
/// change, so the same at 1M flights as at 10k. The changed distances are put back afterwards
/// (untimed), so later workloads see the store every engine has.
struct MergeIntoHolder {
    let container: ModelContainer
    let rows: SyntheticEnroute.Rows
    let rounds: Int

    func run() throws -> Samples {
        let holder = ModelContext(container)
        let held = try holder.fetch(FetchDescriptor<Flight>())
        let board = LiveQuery(FlightFilter(destination: rows.airports[0].icao, sort: .arrival).fetchDescriptor, in: holder)
        let boardCount = board.results.count
        let writer = ModelContext(container)
        var samples = Samples()
        var changed: [String: Int] = [:]
        for round in 0..<rounds {
            let row = rows.flights[(round &* 7_919 &+ 13) % rows.flights.count]
            let distance = 20_000 + round
            let elapsed = try measure {
                guard let flight = try writer.fetchUnique(\Flight.ident, equals: row.ident) else { throw failure("no flight \(row.ident)") }
                flight.routeDistance = distance
                try writer.save()
                guard board.results.count == boardCount else { throw failure("the board changed size") }
                guard try holder.fetchUnique(\Flight.ident, equals: row.ident)?.routeDistance == distance else {
                    throw failure("the holder does not see \(row.ident)'s new distance")
                }
            }
            if changed[row.ident] == nil { changed[row.ident] = row.routeDistance }
            if round >= rounds / 10 { samples.add(elapsed) }  // the first tenth warms up
        }
        for (ident, distance) in changed {
            try writer.fetchUnique(\Flight.ident, equals: ident)?.routeDistance = distance
        }
        try writer.save()
        withExtendedLifetime(held) {}
        return samples
    }

    private func failure(_ text: String) -> SQLiteEngine.Failure { SQLiteEngine.Failure(description: "merge: " + text) }
}
