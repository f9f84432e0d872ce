import EnrouteModels
import Foundation

/// `delete_save`, `move_save` and `top_ten` on the loaded store, GraphStore beside SQLite (as
/// `small_save`), interleaved: a flight found by ident, deleted and saved; a flight found by
/// ident, given another destination airport and saved; the ten longest routes fetched (by
/// distance, then ident, ten at most) and read. Saves are durable. Each costs what its change or
/// its ten results cost, so it should cost the same at 1M flights as at 10k, though an airline's
/// flights grow with the store (5,000 to an airline at 1M) and the distance order holds every
/// flight. It deletes and moves flights the other workloads compare on, so it runs on the scale
/// stores after them.
struct SmallChanges {
    let graphstore: GraphStoreEngine
    let sqlite: SQLiteEngine
    let rows: SyntheticEnroute.Rows
    let rounds: Int

    /// Latencies in µs by engine name.
    struct Result {
        var delete: [String: Samples] = [:]
        var move: [String: Samples] = [:]
        var topTen: [String: Samples] = [:]
        /// The deleted flights' idents and the airports flights moved to (checked afterwards).
        var deleted: [String] = []
        var movedTo: [String] = []
    }

    func run() throws -> Result {
        var result = Result()
        // Distinct flights for the deletes and the moves, spread over the store.
        var rng = SeededRandom(seed: 23)
        var picked: [Int] = [], seen = Set<Int>()
        while picked.count < 2 * rounds && picked.count < rows.flights.count {
            let index = Int(rng.next() % UInt64(rows.flights.count))
            if seen.insert(index).inserted { picked.append(index) }
        }
        for round in 0..<min(rounds, picked.count / 2) {
            let gone = rows.flights[picked[2 * round]].ident
            let moved = rows.flights[picked[2 * round + 1]]
            let airport = rows.airports[(moved.destination + 1 + round % (rows.airports.count - 1)) % rows.airports.count].icao
            let times = [
                ("graphstore", try measure { try graphstore.deleteSave(ident: gone) }, try measure { try graphstore.moveSave(ident: moved.ident, to: airport) }),
                ("sqlite", try measure { try sqlite.deleteSave(ident: gone) }, try measure { try sqlite.moveSave(ident: moved.ident, to: airport) }),
            ]
            var answers: [[String]] = []
            var tops: [(String, Double)] = []
            for (name, top) in [("graphstore", { try graphstore.topTen() }), ("sqlite", { try sqlite.topTen() })] as [(String, () throws -> [String])] {
                var answer: [String] = []
                tops.append((name, try measure { answer = try top() }))
                answers.append(answer)
            }
            guard answers[0] == answers[1], answers[0].count == 10 else {
                throw SQLiteEngine.Failure(description: "top_ten answers differ: \(answers[0]) against \(answers[1])")
            }
            result.deleted.append(gone)
            result.movedTo.append(airport)
            // The first tenth warms up.
            guard round >= rounds / 10 else { continue }
            for (name, delete, move) in times {
                result.delete[name, default: Samples()].add(delete)
                result.move[name, default: Samples()].add(move)
            }
            for (name, time) in tops { result.topTen[name, default: Samples()].add(time) }
        }
        return result
    }
}
