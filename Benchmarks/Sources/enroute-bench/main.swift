import Foundation

// enroute-bench: GraphStore against SQLite (C API) and GRDB on the Enroute workloads
// (Docs/BENCHMARKS.md).
//
// usage: enroute-bench [--flights N] [--json] [--smoke] [--dir DIR] [--plot FILE] [--durable-only] [--property-only] [--explain] [--explain]

let usage = """
    usage: enroute-bench [--flights N] [--json] [--smoke] [--dir DIR] [--plot FILE] [--durable-only] [--property-only]

    Runs every workload on GraphStore, the `sqlite` baseline (C API, prepared statements) and the
    `grdb` baseline (GRDB records), interleaved, and reports medians and ratios.
      --flights N   the sizes to run, comma-separated (default: 10000,100000,1000000)
      --json        print one JSON object instead of tables
      --smoke       tiny sizes in seconds; checks that the engines agree
      --dir DIR     where stores are written, in a directory of the run's own inside DIR that is removed at the end
                    (default: the temporary directory; put it on the disk you care about)
      --plot FILE   also write an SVG plot of time against number of flights
      --durable-only  only `durable_commit` (latency and 1/4/16-writer throughput), in about a minute
      --property-only only `property_read` and `property_write` (default 100000 flights), in seconds
      --explain     print SQLite's query plan (EXPLAIN QUERY PLAN) of every statement the workloads run,
                    on a store of --flights flights (default 10000)
    """

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("enroute-bench: \(message)\n\n\(usage)\n".utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
var json = false, smoke = false, durableOnly = false, propertyOnly = false, explainOnly = false
var sizes = [10_000, 100_000, 1_000_000]
var directory = FileManager.default.temporaryDirectory.appendingPathComponent("enroute-bench-\(getpid())").path
/// `--dir`: the run works in a directory of its own inside it, and removes only that (the
/// directory given may hold anything else). A peak-memory child is given its parent's.
var givenDirectory: String?
var plotPath: String?
// The peak-memory run starts this program again for one workload (PeakMemory).
var peakMemoryChild: String?, jsonFiles = ""
var index = 0
while index < arguments.count {
    let argument = arguments[index]
    func value() -> String {
        guard index + 1 < arguments.count else { fail("\(argument) needs a value") }
        index += 1
        return arguments[index]
    }
    switch argument {
    case "--help", "-h":
        print(usage)
        exit(0)
    case "--json": json = true
    case "--smoke": smoke = true
    case "--durable-only": durableOnly = true
    case "--property-only": propertyOnly = true
    case "--explain": explainOnly = true
    case "--dir": givenDirectory = value()
    case "--plot": plotPath = value()
    case "--peak-memory-child": peakMemoryChild = value()
    case "--files": jsonFiles = value()
    case "--flights":
        let given = value().split(separator: ",").map { Int($0) }
        guard !given.isEmpty, given.allSatisfy({ ($0 ?? 0) >= 100 }) else { fail("--flights needs numbers of at least 100, comma-separated") }
        sizes = given.map { $0! }
    default: fail("unknown argument \(argument)")
    }
    index += 1
}
if let givenDirectory { directory = peakMemoryChild == nil ? givenDirectory + "/enroute-bench-\(getpid())" : givenDirectory }
if smoke && !arguments.contains("--flights") { sizes = [2_000] }
if propertyOnly && !arguments.contains("--flights") { sizes = [100_000] }
if explainOnly && !arguments.contains("--flights") { sizes = [10_000] }
if explainOnly && (propertyOnly || durableOnly || plotPath != nil || sizes.count != 1) { fail("--explain runs alone, for one size") }
if propertyOnly && (durableOnly || plotPath != nil) { fail("--property-only runs alone") }
if durableOnly && plotPath != nil { fail("--plot draws the workloads by size, which --durable-only does not run") }

func progress(_ line: String) { FileHandle.standardError.write(Data((line + "\n").utf8)) }

if let workload = peakMemoryChild {
    do {
        try PeakMemory.runChild(workload: workload, flights: sizes[0], directory: directory, jsonFiles: jsonFiles)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("enroute-bench --peak-memory-child \(workload): \(error)\n".utf8))
        exit(1)
    }
}

do {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    if explainOnly {
        let path = directory + "/sqlite-explain.db"
        let engine = try SQLiteEngine.create(at: path)
        try engine.bulkImport(SyntheticEnroute(flights: sizes[0]).rows())
        print("SQLite query plans, \(sizes[0]) flights (after ANALYZE):")
        for (workload, sql) in SQLiteEngine.SQL.byWorkload {
            print("\n\(workload):\n  " + sql.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " "))
            for line in try engine.queryPlan(sql) { print("    " + line) }
        }
        engine.close()
        removeStore(path)
        try? FileManager.default.removeItem(atPath: directory)
        exit(0)
    }
    if propertyOnly {
        var entries: [[String: Any]] = []
        for flights in sizes {
            let path = directory + "/graphstore-property-\(flights)"
            let engine = try GraphStoreEngine.create(at: path)
            try engine.bulkImport(SyntheticEnroute(flights: flights).rows())
            let access = try PropertyAccess(container: engine.container, repetitions: 15).run()
            engine.close()
            removeStore(path)
            entries.append(["flights": flights, "property_read_ns": access.readNanoseconds, "property_write_ns": access.writeNanoseconds])
            if !json {
                print("\(flights) flights: property_read \(format(access.readNanoseconds, digits: 2)) ns, property_write \(format(access.writeNanoseconds, digits: 2)) ns")
            }
        }
        if json {
            let data = try JSONSerialization.data(withJSONObject: ["machine": machineDescription(), "runs": entries], options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
        try? FileManager.default.removeItem(atPath: directory)
        exit(0)
    }
    progress("durable_commit")
    let durable = try DurableCommit(directory: directory, rounds: smoke ? 2 : 10, commitsPerRound: smoke ? 20 : 200,
                                    throughputRepetitions: smoke ? 1 : 5, log: progress).run()
    var runs: [ScaleRun.Result] = []
    for flights in durableOnly ? [] : sizes {
        progress("\(flights) flights")
        runs.append(try ScaleRun(directory: directory, flights: flights, smoke: smoke, log: progress).run())
    }
    let report = Report(machine: machineDescription(), runs: runs, durable: durable)
    print(json ? try report.jsonText() : report.text())
    // Both forms from one run (the docs keep the JSON beside the tables).
    if let file = ProcessInfo.processInfo.environment["ENROUTE_BENCH_JSON_FILE"] {
        try report.jsonText().write(toFile: file, atomically: true, encoding: .utf8)
    }
    if smoke { progress("smoke: the three engines gave the same answers") }
    if let plotPath {
        try Plot(runs: runs).svg().write(toFile: plotPath, atomically: true, encoding: .utf8)
        progress("plot written to \(plotPath)")
    }
} catch {
    FileHandle.standardError.write(Data("enroute-bench: \(error)\n".utf8))
    exit(1)
}
