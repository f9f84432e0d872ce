import EnrouteModels
import Foundation
import GraphStore

/// `json_import`: FlightAware files (the generator's, N flights) loaded as `enroute load` loads
/// them — `EnrouteImporter.load(_:)` of every file, one durable transaction per file, the next
/// files decoded on a second thread meanwhile, into a fresh `.full` store —
/// beside a bare `JSONDecoder` decode of the same files into the same record types, in the same
/// run. Both read the files from the page cache.
struct JSONImport {
    let directory: String
    let flights: Int
    let repetitions: Int
    let log: (String) -> Void

    struct Result {
        var bytes = 0
        var files = 0
        var importSeconds = 0.0
        var decodeSeconds = 0.0
    }

    /// Where the files are written (kept until `removeFiles`: the peak-memory run loads them too).
    var filesDirectory: String { directory + "/flightaware-\(flights)" }

    func writeFiles() throws -> [URL] {
        try? FileManager.default.removeItem(atPath: filesDirectory)
        return try EnrouteGenerator(flights: flights).write(to: URL(fileURLWithPath: filesDirectory))
    }

    func removeFiles() { try? FileManager.default.removeItem(atPath: filesDirectory) }

    func run(files urls: [URL]) throws -> Result {
        var result = Result(files: urls.count)
        for url in urls { result.bytes += (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0 }
        var imports: [Double] = [], decodes: [Double] = []
        for repetition in 0..<repetitions {
            log("  json_import \(repetition + 1)/\(repetitions)")
            trimHeap()
            decodes.append(try seconds { for url in urls { try Self.decode(url) } })
            let store = directory + "/graphstore-json-\(flights)"
            removeStore(store)
            trimHeap()
            let loaded = try Self.load(urls, into: store)
            imports.append(loaded.seconds)
            guard loaded.flights > 0 else { throw SQLiteEngine.Failure(description: "json_import stored no flight") }
            removeStore(store)
        }
        result.importSeconds = median(imports)
        result.decodeSeconds = median(decodes)
        return result
    }

    /// The files through the Enroute importer into a new store at `path`, as `enroute load` does;
    /// the time and how many flights the store then has.
    static func load(_ urls: [URL], into path: String) throws -> (seconds: Double, flights: Int) {
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: path), durability: .full, autosaveEnabled: false)
        configuration.maintenance = .manual
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: configuration)
        defer { container.close() }
        let context = ModelContext(container)
        let time = try seconds {
            var refusals: [FlightAwareFile.Refusal] = []
            try EnrouteImporter(context: context).load(urls, refused: { refusals.append($0) })
            if let refusal = refusals.first { throw SQLiteEngine.Failure(description: "json_import refused \(refusal)") }
        }
        return (time, try context.fetchCount(FetchDescriptor<Flight>()))
    }

    /// The baseline: the file read and decoded by `JSONDecoder` into the feed's record types, and
    /// nothing more.
    static func decode(_ url: URL) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let data = try Data(contentsOf: url)
        switch url.lastPathComponent {
        case "airports.json": _ = try decoder.decode([FlightAwareAirport].self, from: data)
        case "airlines.json": _ = try decoder.decode([FlightAwareAirline].self, from: data)
        default: _ = try decoder.decode(FlightAwareAirportFlights.self, from: data)
        }
    }
}
