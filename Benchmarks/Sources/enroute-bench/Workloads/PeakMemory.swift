import EnrouteModels
import Foundation
import GraphStore

/// Peak resident set (VmHWM) of each GraphStore workload, each in a process of its own: this
/// program started again with `--peak-memory-child WORKLOAD`, which makes the synthetic rows
/// (the input every workload holds, as an app holds what it imports), does the workload and
/// prints its high-water mark. Workloads on a loaded store open the one store a first child
/// imported and compacted, as an app opens its store.
struct PeakMemory {
    let directory: String
    let flights: Int
    /// The json_import workload's files.
    let jsonFiles: String
    let log: (String) -> Void

    struct Figure {
        /// The process's high-water mark, MiB.
        var peakMiB: Double
        /// Resident once the rows were made, before any store was opened, MiB.
        var rowsMiB: Double
    }

    /// The workloads measured, in order; "prepare" (the store the others open) runs first and is
    /// not reported.
    static let workloads = ["bulk_import", "import_objects", "import_seed_pattern", "json_import", "filter_predicate", "lookup_predicate",
                            "board", "open_read_all", "small_save", "upsert_objects", "upsert"]

    var storePath: String { directory + "/graphstore-peak-\(flights)" }

    func run() throws -> [String: Figure] {
        defer { removeStore(storePath) }
        _ = try child("prepare")
        var figures: [String: Figure] = [:]
        for workload in Self.workloads {
            log("    \(workload)")
            figures[workload] = try child(workload)
        }
        return figures
    }

    private func child(_ workload: String) throws -> Figure {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--peak-memory-child", workload, "--flights", String(flights), "--dir", directory, "--files", jsonFiles]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let fields = String(decoding: data, as: UTF8.self).split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard process.terminationStatus == 0, fields.count == 2 else {
            throw SQLiteEngine.Failure(description: "peak memory of \(workload): the child exited \(process.terminationStatus)")
        }
        return Figure(peakMiB: fields[0], rowsMiB: fields[1])
    }

    /// The child's side: one workload, then "PEAK ROWS" (MiB) on standard output.
    static func runChild(workload: String, flights: Int, directory: String, jsonFiles: String) throws {
        let rows = SyntheticEnroute(flights: flights).rows()
        let rowsMiB = residentMiB()
        let store = PeakMemory(directory: directory, flights: flights, jsonFiles: jsonFiles, log: { _ in }).storePath
        let fresh = directory + "/graphstore-peak-fresh-\(flights)"
        defer { removeStore(fresh) }
        var rng = SeededRandom(seed: 11)
        func someFlights(_ count: Int) -> [SyntheticEnroute.FlightRow] {
            (0..<count).map { _ in rows.flights[Int(rng.next() % UInt64(rows.flights.count))] }
        }
        switch workload {
        case "prepare":
            let engine = try GraphStoreEngine.create(at: store)
            try engine.bulkImport(rows)
            try engine.compact()
            engine.close()
        case "bulk_import": try GraphStoreEngine.create(at: fresh).bulkImport(rows)
        case "import_objects": try GraphStoreEngine.create(at: fresh).bulkImportWithObjects(rows)
        case "import_seed_pattern": try GraphStoreEngine.create(at: fresh).importSeedPattern(rows)
        case "json_import":
            let urls = try FileManager.default.contentsOfDirectory(atPath: jsonFiles).sorted().map { URL(fileURLWithPath: jsonFiles + "/" + $0) }
            _ = try JSONImport.load(urls, into: fresh)
        default:
            let engine = try GraphStoreEngine.open(at: store)
            defer { engine.close() }
            switch workload {
            case "filter_predicate":
                for _ in 0..<200 {
                    let flight = someFlights(1)[0]
                    _ = try engine.filterWithPredicate(destination: rows.airports[flight.destination].icao, airline: rows.airlines[flight.airline])
                }
            case "lookup_predicate": for flight in someFlights(2_000) { _ = try engine.lookupWithPredicate(ident: flight.ident) }
            case "board": for flight in someFlights(50) { _ = try engine.board(airport: rows.airports[flight.destination].icao) }
            case "open_read_all": _ = try engine.readAll()
            case "small_save": for i in 0..<200 { try engine.smallSave(i, rows: rows) }
            case "upsert_objects": try engine.upsertAllWithObjects(rows, round: 1)
            case "upsert": try engine.upsertAll(rows, round: 2)
            default: throw SQLiteEngine.Failure(description: "no workload \(workload)")
            }
        }
        print("\(peakResidentMiB()) \(rowsMiB)")
    }
}
