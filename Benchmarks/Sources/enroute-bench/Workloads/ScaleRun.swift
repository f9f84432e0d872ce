import EnrouteModels
import Foundation
import GraphStore

/// Every per-size workload at one number of flights, on all three engines, interleaved:
/// bulk_import, store_bytes, memory, filter_query, point_lookup, board, upsert, compaction and
/// cold_open. Times are medians of the repetitions; the engines' answers are checked to agree.
struct ScaleRun {
    let directory: String
    let flights: Int
    let smoke: Bool
    /// Progress lines on standard error (long runs).
    let log: (String) -> Void

    /// Seconds (or bytes, or MiB) per workload and engine, plus GraphStore-only extras.
    struct Result {
        var flights: Int
        var seconds: [String: [String: Double]] = [:]   // workload → engine → seconds
        var storeBytes: [String: Double] = [:]
        var residentMiB = 0.0
        var counts: [String: Int] = [:]                 // how many queries each per-query figure averages
        /// `small_save` latencies on the loaded store, µs, by engine, and the raw
        /// write+fdatasync loop's, interleaved with them ("raw").
        var smallSave: [String: Samples] = [:]
        /// `merge`: a small save seen by a context holding every flight and a live board, µs.
        var merge = Samples()
        /// `lookup_pending`: a `#Predicate` lookup among as many unsaved flights as the store has, µs.
        var pendingLookup = PendingLookup.Result()
        /// `json_import`: FlightAware files through the Enroute importer beside a bare decode.
        var jsonImport: JSONImport.Result?
        /// Peak resident set of each workload, each in a process of its own (GraphStore).
        var peakMemory: [String: PeakMemory.Figure] = [:]
        /// GraphStore's attribute read and write on objects in hand, ns per access.
        var propertyAccess = PropertyAccess.Result()
        /// `delete_save`, `move_save` and `top_ten`, GraphStore and SQLite.
        var changes: SmallChanges.Result?
    }

    /// How many times each timed step is repeated (bigger sizes fewer times: a 1M import is long).
    /// Small sizes more often: a 10k import or query round lasts milliseconds, which one slow
    /// moment of a shared host can double, and a median of more samples stays put.
    var repetitions: Int { smoke ? 1 : (flights > 10_000 ? 3 : 5) }
    /// GRDB, reported beside the targets and not in them, imports and upserts 1M flights once:
    /// its 1M upsert alone takes minutes. Its one run is the last repetition's, so that its
    /// store is there for what follows and ends with the same values as the others'.
    var grdbRepetitions: Int { flights >= 1_000_000 ? 1 : repetitions }
    /// Whether GRDB imports or upserts in this repetition (its runs are the last ones).
    func grdbRuns(inRepetition repetition: Int) -> Bool { repetition >= repetitions - grdbRepetitions }
    var queryRounds: Int { smoke ? 1 : (flights > 10_000 ? 5 : 15) }

    func run() throws -> Result {
        var result = Result(flights: flights)
        let rows = SyntheticEnroute(flights: flights).rows()
        let paths = ["graphstore": directory + "/graphstore-\(flights)", "sqlite": directory + "/sqlite-\(flights).db",
                     "grdb": directory + "/grdb-\(flights).db"]
        defer { for path in paths.values { removeStore(path) } }

        // bulk_import: fresh stores each repetition; the last ones stay for what follows.
        var graphstore: GraphStoreEngine!, sqlite: SQLiteEngine!, grdb: GRDBEngine!
        var imports: [String: [Double]] = [:]
        for repetition in 0..<repetitions {
            log("  bulk_import \(repetition + 1)/\(repetitions)")
            graphstore?.close(); sqlite?.close(); grdb?.close()
            graphstore = nil
            // Every import starts from a trimmed heap, as in a fresh process: the memory the
            // last one freed is not lying ready for the next (only GraphStore's import, whose
            // resident memory is measured, used to start trimmed, which cost it the page faults
            // the others were spared: a fifth of its time at 10k flights).
            trimHeap()
            let before = residentMiB()
            graphstore = try GraphStoreEngine.create(at: paths["graphstore"]!)
            imports["graphstore", default: []].append(try seconds { try graphstore.bulkImport(rows) })
            trimHeap()
            result.residentMiB = residentMiB() - before
            let objectsPath = directory + "/graphstore-objects-\(flights)"
            let objects = try GraphStoreEngine.create(at: objectsPath)
            trimHeap()
            imports["graphstore_objects", default: []].append(try seconds { try objects.bulkImportWithObjects(rows) })
            objects.close()
            removeStore(objectsPath)
            sqlite = try SQLiteEngine.create(at: paths["sqlite"]!)
            trimHeap()
            imports["sqlite", default: []].append(try seconds { try sqlite.bulkImport(rows) })
            guard grdbRuns(inRepetition: repetition) else { continue }
            grdb = try GRDBEngine.create(at: paths["grdb"]!)
            trimHeap()
            imports["grdb", default: []].append(try seconds { try grdb.bulkImport(rows) })
        }
        // The same import as users write it: model objects with relationships, one save.
        var objectImports = imports.mapValues(median)
        objectImports["graphstore"] = objectImports.removeValue(forKey: "graphstore_objects")
        result.seconds["import_objects"] = objectImports
        imports["graphstore_objects"] = nil
        result.seconds["bulk_import"] = imports.mapValues(median)
        for (name, path) in paths { result.storeBytes[name] = Double(storeBytes(path)) }

        // import_seed_pattern: into fresh stores of their own, removed after each run.
        var seedImports: [String: [Double]] = [:]
        for repetition in 0..<repetitions {
            log("  import_seed_pattern \(repetition + 1)/\(repetitions)")
            let seedPaths = ["graphstore": directory + "/graphstore-seed-\(flights)", "sqlite": directory + "/sqlite-seed-\(flights).db",
                             "grdb": directory + "/grdb-seed-\(flights).db"]
            defer { for path in seedPaths.values { removeStore(path) } }
            let seedEngines: [any Engine] = [try GraphStoreEngine.create(at: seedPaths["graphstore"]!), try SQLiteEngine.create(at: seedPaths["sqlite"]!)]
                + (grdbRuns(inRepetition: repetition) ? [try GRDBEngine.create(at: seedPaths["grdb"]!)] : [])
            for engine in seedEngines {
                trimHeap()
                seedImports[type(of: engine).name, default: []].append(try seconds { try engine.importSeedPattern(rows) })
            }
            // The same store as the batch import's: every engine agrees with it.
            for engine in seedEngines {
                for row in rows.flights.prefix(smoke ? 50 : 500) where try engine.lookup(ident: row.ident) != row.routeDistance {
                    throw SQLiteEngine.Failure(description: "import_seed_pattern: \(type(of: engine).name) has \(row.ident) wrong")
                }
                engine.close()
            }
        }
        result.seconds["import_seed_pattern"] = seedImports.mapValues(median)

        // Queries over many airports and airlines; the same ones for every engine.
        var rng = SeededRandom(seed: 7)
        let filters = (0..<(smoke ? 20 : 200)).map { _ in
            (rows.airports[Int(rng.next() % UInt64(rows.airports.count))].icao, rows.airlines[Int(rng.next() % UInt64(rows.airlines.count))])
        }
        let boards = (0..<(smoke ? 5 : 50)).map { _ in rows.airports[Int(rng.next() % UInt64(rows.airports.count))].icao }
        // Each round looks up other flights, so no round is served by objects an earlier one made.
        let lookupRounds = (0..<queryRounds).map { _ in
            (0..<(smoke ? 200 : 2_000)).map { _ in rows.flights[Int(rng.next() % UInt64(rows.flights.count))].ident }
        }
        result.counts = ["filter_query": filters.count, "filter_predicate": filters.count, "point_lookup": lookupRounds[0].count,
                         "lookup_predicate": lookupRounds[0].count, "board": boards.count]
        let engines: [any Engine] = [graphstore, sqlite, grdb]
        try checkAgreement(engines, filters: filters, lookups: lookupRounds[0], boards: boards, graphstore: graphstore)

        log("  filter_query, point_lookup, board")
        var filterTimes: [String: [Double]] = [:], lookupTimes: [String: [Double]] = [:], boardTimes: [String: [Double]] = [:]
        var predicateTimes: [Double] = [], filterPredicateTimes: [Double] = []
        for round in 0..<queryRounds {
            for engine in engines {
                let name = type(of: engine).name
                filterTimes[name, default: []].append(try seconds {
                    for (icao, code) in filters { _ = try engine.filter(destination: icao, airline: code) }
                } / Double(filters.count))
                lookupTimes[name, default: []].append(try seconds {
                    for ident in lookupRounds[round] { _ = try engine.lookup(ident: ident) }
                } / Double(lookupRounds[round].count))
                boardTimes[name, default: []].append(try seconds {
                    for icao in boards { _ = try engine.board(airport: icao) }
                } / Double(boards.count))
            }
            let idents = lookupRounds[(round + 1) % queryRounds]
            predicateTimes.append(try seconds { for ident in idents { _ = try graphstore.lookupWithPredicate(ident: ident) } } / Double(idents.count))
            filterPredicateTimes.append(try seconds {
                for (icao, code) in filters { _ = try graphstore.filterWithPredicate(destination: icao, airline: code) }
            } / Double(filters.count))
        }
        result.seconds["filter_query"] = filterTimes.mapValues(median)
        result.seconds["point_lookup"] = lookupTimes.mapValues(median)
        result.seconds["board"] = boardTimes.mapValues(median)
        // The same queries as users write them: a `#Predicate` made per query.
        result.seconds["lookup_predicate"] = result.seconds["point_lookup"]!.merging(["graphstore": median(predicateTimes)]) { $1 }
        result.seconds["filter_predicate"] = result.seconds["filter_query"]!.merging(["graphstore": median(filterPredicateTimes)]) { $1 }

        // small_save: one durable save of a small change on the loaded store, interleaved.
        log("  small_save")
        var saveNumber = 0
        let rawPath = directory + "/raw-sync-\(flights)"
        let raw = try RawSyncLoop(path: rawPath, recordSize: 128)
        defer { raw.close(); try? FileManager.default.removeItem(atPath: rawPath) }
        var inserting = Samples(), updating = Samples()
        for round in 0..<(smoke ? 2 : 11) {
            for _ in 0..<20 {
                // Every other save inserts a flight besides its update (`smallSave`).
                let inserts = saveNumber % 2 == 0
                let gs = try measure { try graphstore.smallSave(saveNumber, rows: rows) }
                let sq = try measure { try sqlite.smallSave(saveNumber, rows: rows) }
                let floor = try measure { try raw.writeAndSync() }
                saveNumber += 1
                // The first round warms up.
                if round > 0 {
                    result.smallSave["graphstore", default: Samples()].add(gs)
                    result.smallSave["sqlite", default: Samples()].add(sq)
                    result.smallSave["raw", default: Samples()].add(floor)
                    if inserts { inserting.add(gs) } else { updating.add(gs) }
                }
            }
        }

        // The two kinds of save apart (standard error), to show where the p50 of the mix falls.
        if !inserting.values.isEmpty {
            log(String(format: "  small_save graphstore p50: saves that insert a flight %.1f µs, saves that only update %.1f µs",
                       inserting.median, updating.median))
        }
        log("  merge, lookup_pending")
        result.merge = try MergeIntoHolder(container: graphstore.container, rows: rows, rounds: smoke ? 10 : 200).run()
        result.pendingLookup = try PendingLookup(container: graphstore.container, rows: rows, lookups: smoke ? 200 : 2_000).run()

        log("  property_read, property_write")
        result.propertyAccess = try PropertyAccess(container: graphstore.container, repetitions: queryRounds).run()

        // upsert: every flight updated by ident in one save, a different value each round.
        var upserts: [String: [Double]] = [:], objectUpserts: [Double] = []
        for round in 0..<repetitions {
            log("  upsert \(round + 1)/\(repetitions)")
            // Other values than the round's, which the engines then write (and are compared on).
            objectUpserts.append(try seconds { try graphstore.upsertAllWithObjects(rows, round: round + 100) })
            for engine in engines where !(engine is GRDBEngine) || grdbRuns(inRepetition: round) {
                upserts[type(of: engine).name, default: []].append(try seconds { try engine.upsertAll(rows, round: round) })
            }
        }
        result.seconds["upsert"] = upserts.mapValues(median)
        result.seconds["upsert_objects"] = result.seconds["upsert"]!.merging(["graphstore": median(objectUpserts)]) { $1 }
        try checkAgreement(engines, filters: Array(filters.prefix(20)), lookups: Array(lookupRounds[0].prefix(200)), boards: [], graphstore: graphstore)

        // compaction: after updating every flight (the upserts above), once per engine.
        log("  compaction")
        var compactions: [String: Double] = [:]
        for engine in engines { compactions[type(of: engine).name] = try seconds { try engine.compact() } }
        result.seconds["compaction"] = compactions

        // cold_open: open the store and answer the first filter query.
        log("  cold_open")
        graphstore.close(); sqlite.close(); grdb.close()
        graphstore = nil; sqlite = nil; grdb = nil
        // Each engine opened afresh on its store.
        let openers: [(name: String, open: () throws -> any Engine)] = [
            ("graphstore", { try GraphStoreEngine.open(at: paths["graphstore"]!) }), ("sqlite", { try SQLiteEngine.open(at: paths["sqlite"]!) }),
            ("grdb", { try GRDBEngine.open(at: paths["grdb"]!) }),
        ]
        var opens: [String: [Double]] = [:]
        let (icao, code) = filters[0]
        for _ in 0..<repetitions {
            trimHeap()
            for (name, open) in openers {
                opens[name, default: []].append(try seconds {
                    let engine = try open()
                    _ = try engine.filter(destination: icao, airline: code)
                    engine.close()
                })
            }
        }
        result.seconds["cold_open"] = opens.mapValues(median)

        // open_read_all: open, fetch every flight, read every attribute and to-one.
        log("  open_read_all")
        var readAlls: [String: [Double]] = [:]
        for repetition in 0..<repetitions {
            var sums: [String: Int] = [:]
            for (name, open) in openers where name != "grdb" || grdbRuns(inRepetition: repetition) {
                trimHeap()
                readAlls[name, default: []].append(try seconds {
                    let engine = try open()
                    sums[name] = try engine.readAll()
                    engine.close()
                })
            }
            // GRDB does not run small_save, whose inserted flights the other two stores hold.
            guard sums["graphstore"] == sums["sqlite"] else { throw SQLiteEngine.Failure(description: "open_read_all: the engines read different values \(sums)") }
        }
        result.seconds["open_read_all"] = readAlls.mapValues(median)

        // delete_save, move_save, top_ten: last on these stores, since they delete and move
        // flights that the workloads above compare the engines on.
        log("  delete_save, move_save, top_ten")
        do {
            let gs = try GraphStoreEngine.open(at: paths["graphstore"]!), sq = try SQLiteEngine.open(at: paths["sqlite"]!)
            defer { gs.close(); sq.close() }
            let changes = try SmallChanges(graphstore: gs, sqlite: sq, rows: rows, rounds: smoke ? 20 : 200).run()
            // Afterwards both stores hold the same: the deleted flights gone, the boards of the
            // airports flights moved to alike.
            try checkAgreement([gs, sq], filters: Array(filters.prefix(20)), lookups: changes.deleted,
                               boards: Array(Set(changes.movedTo).sorted().prefix(20)), graphstore: gs)
            result.changes = changes
        }

        // json_import: the FlightAware files of as many flights, through the importer.
        log("  json_import: writing the files")
        let json = JSONImport(directory: directory, flights: flights, repetitions: grdbRepetitions, log: log)
        defer { json.removeFiles() }
        let files = try json.writeFiles()
        result.jsonImport = try json.run(files: files)

        log("  peak memory, each workload in a process of its own")
        result.peakMemory = try PeakMemory(directory: directory, flights: flights, jsonFiles: json.filesDirectory, log: log).run()
        return result
    }

    /// The same answers from every engine (boards compared as sets, each in arrival order:
    /// ties on arrival time may list in different orders).
    private func checkAgreement(_ engines: [any Engine], filters: [(String, String)], lookups: [String], boards: [String],
                                graphstore: GraphStoreEngine) throws {
        let reference = engines[0]
        for other in engines.dropFirst() {
            let name = type(of: other).name
            for (icao, code) in filters {
                let mine = try reference.filter(destination: icao, airline: code)
                guard mine == (try other.filter(destination: icao, airline: code)),
                      mine == (try graphstore.filterWithPredicate(destination: icao, airline: code)) else {
                    throw SQLiteEngine.Failure(description: "filter_query answers differ (graphstore vs \(name)) for \(icao)/\(code)")
                }
            }
            for ident in lookups {
                let mine = try reference.lookup(ident: ident)
                guard mine == (try other.lookup(ident: ident)), mine == (try graphstore.lookupWithPredicate(ident: ident)) else {
                    throw SQLiteEngine.Failure(description: "point_lookup answers differ (graphstore vs \(name)) for \(ident)")
                }
            }
            for icao in boards {
                let mine = try reference.board(airport: icao), theirs = try other.board(airport: icao)
                guard Set(mine) == Set(theirs), inArrivalOrder(mine), inArrivalOrder(theirs) else {
                    throw SQLiteEngine.Failure(description: "board answers differ (graphstore vs \(name)) for \(icao)")
                }
            }
        }
    }

    private func inArrivalOrder(_ board: [String]) -> Bool {
        let times = board.compactMap { $0.split(separator: " ").last.flatMap { Int64($0) } }
        return zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }
    }
}

func seconds(_ body: () throws -> Void) rethrows -> Double { try measure(body) / 1e6 }
