import Foundation
import GraphStore

// enroute-bench: GraphStore's benchmark suite (Docs/BENCHMARKS.md).
//
// usage: enroute-bench [--json] [--smoke] [--dir DIR]

let arguments = Array(CommandLine.arguments.dropFirst())
let json = arguments.contains("--json")
let smoke = arguments.contains("--smoke")
if arguments.contains("--help") {
    print("usage: enroute-bench [--json] [--smoke] [--dir DIR]\n\n--smoke runs tiny sizes in seconds; --json prints one JSON object; --dir is where stores are written (default: the temporary directory, which should be on the disk you care about).")
    exit(0)
}
let known: Set<String> = ["--json", "--smoke", "--dir", "--flights", "--only"]
var flights = smoke ? 2_000 : 100_000
var index = 0
/// Workloads to run (all when empty): --only cold_open,memory
var only: Set<String> = []
var directory = FileManager.default.temporaryDirectory.appendingPathComponent("enroute-bench-\(getpid())").path
while index < arguments.count {
    let argument = arguments[index]
    guard known.contains(argument) else {
        FileHandle.standardError.write(Data("enroute-bench: unknown argument \(argument)\n".utf8))
        exit(2)
    }
    if argument == "--dir" || argument == "--flights" || argument == "--only" {
        guard index + 1 < arguments.count else { FileHandle.standardError.write(Data("\(argument) needs a value\n".utf8)); exit(2) }
        if argument == "--dir" {
            directory = arguments[index + 1]
        } else if argument == "--only" {
            only = Set(arguments[index + 1].split(separator: ",").map(String.init))
        } else if let n = Int(arguments[index + 1]), n > 0 {
            flights = n
        } else {
            FileHandle.standardError.write(Data("--flights needs a positive number\n".utf8))
            exit(2)
        }
        index += 1
    }
    index += 1
}
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }

if only == ["cold_open"] {
    let cold = try ColdOpen(directory: directory, flights: flights).run()
    print("cold_open (\(flights) flights): replaying the log \(format(cold.replaySeconds, digits: 3)) s; checkpoint written in \(format(cold.checkpointSeconds, digits: 3)) s (\(cold.checkpointBytes) bytes); open from the checkpoint \(format(cold.checkpointOpenSeconds, digits: 3)) s (target < 1 s at 1M)")
    exit(0)
}

let durable = try DurableCommit(directory: directory, rounds: smoke ? 2 : 10, commitsPerRound: smoke ? 20 : 200).run()
let memory = try MemoryWorkload(directory: directory, flights: flights).run()
let queries = try QueryWorkloads(directory: directory, flights: flights, rounds: smoke ? 1 : 5).run()
let p50 = durable.graphstore.median, p99 = durable.graphstore.percentile(99), rawP50 = durable.raw.median

if json {
    var grouped: [String: Double] = [:]
    for (writers, rate) in durable.groupedThroughput { grouped["grouped_commits_per_s_\(writers)_writers"] = rate.rounded() }
    var durableCommit: [String: Any] = [
        "graphstore_p50_us": p50.rounded(), "graphstore_p99_us": p99.rounded(),
        "raw_fdatasync_p50_us": rawP50.rounded(), "raw_fdatasync_p99_us": durable.raw.percentile(99).rounded(),
        "ratio_to_raw_p50": (p50 / rawP50 * 100).rounded() / 100,
    ]
    durableCommit.merge(grouped) { $1 }
    let memoryFigures: [String: Any] = [
        "resident_mib": (memory.residentAfterMiB - memory.residentBeforeMiB).rounded(),
        "resident_mib_per_million_flights": memory.mibPerMillionFlights.rounded(),
    ]
    let object: [String: Any] = [
        "flights": flights, "machine": machineDescription(),
        "workloads": ["durable_commit": durableCommit, "memory": memoryFigures,
                      "bulk_import": ["graphstore_s": (memory.importSeconds * 1000).rounded() / 1000],
                      "filter_query": ["graphstore_s": queries.filterGraphStore, "sqlite_s": queries.filterSQLite,
                                       "ratio": (queries.filterSQLite / queries.filterGraphStore * 100).rounded() / 100],
                      "point_lookup": ["graphstore_s": queries.lookupGraphStore, "sqlite_s": queries.lookupSQLite,
                                       "ratio": (queries.lookupSQLite / queries.lookupGraphStore * 100).rounded() / 100],
                      "store_bytes": ["graphstore_bytes": memory.storeBytes]],
    ]
    let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: data, as: UTF8.self))
} else {
    print("machine: \(machineDescription())")
    print("durable_commit (one small transaction per save, .full):")
    print("  graphstore      p50 \(format(p50)) µs   p99 \(format(p99)) µs")
    print("  raw fdatasync   p50 \(format(rawP50)) µs   p99 \(format(durable.raw.percentile(99))) µs")
    print("  ratio p50 graphstore / raw: \(format(p50 / rawP50, digits: 2)) (target ≤ 1.5)")
    for (writers, rate) in durable.groupedThroughput {
        print("  .grouped, \(writers) writer(s): \(format(rate, digits: 0)) commits/s")
    }
    print("memory (\(flights) flights with airports, airlines and relationships, after the import's objects are released):")
    print("  resident \(format(memory.residentAfterMiB - memory.residentBeforeMiB)) MiB = \(format(memory.mibPerMillionFlights)) MiB per million flights (target < 800)")
    print("  bulk import (one save, .full): \(format(memory.importSeconds, digits: 2)) s; store on disk \(memory.storeBytes) bytes")
    print("filter_query (destination + airline + in the air, by distance; \(queries.filterQueries) airport/airline pairs), per query:")
    print("  graphstore \(format(queries.filterGraphStore * 1e6)) µs   sqlite \(format(queries.filterSQLite * 1e6)) µs   ratio sqlite/graphstore \(format(queries.filterSQLite / queries.filterGraphStore, digits: 2)) (target ≥ 10)")
    print("point_lookup (FetchDescriptor by unique ident; \(queries.lookups) lookups), per lookup:")
    print("  graphstore \(format(queries.lookupGraphStore * 1e6, digits: 2)) µs   sqlite \(format(queries.lookupSQLite * 1e6, digits: 2)) µs   ratio \(format(queries.lookupSQLite / queries.lookupGraphStore, digits: 2)) (target ≥ 10)")
}
