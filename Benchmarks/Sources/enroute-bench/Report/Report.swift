import Foundation

/// The suite's results as tables, JSON and target checks (Docs/BENCHMARKS.md).
struct Report {
    let machine: String
    let runs: [ScaleRun.Result]
    let durable: DurableCommit.Result

    static let engines = ["graphstore", "sqlite", "grdb"]
    /// Timed workloads in table order, with their targets as minimum ratios sqlite / graphstore.
    static let timed: [(name: String, target: Double?)] = [
        ("bulk_import", 3), ("import_seed_pattern", nil), ("upsert", 5), ("filter_query", 10), ("point_lookup", 10), ("board", nil), ("cold_open", nil), ("compaction", nil),
    ]

    // MARK: JSON

    func json(_ run: ScaleRun.Result) -> [String: Any] {
        var workloads: [String: Any] = [:]
        for (name, _) in Self.timed {
            guard let seconds = run.seconds[name] else { continue }
            var entry: [String: Any] = [:]
            for engine in Self.engines { entry["\(engine)_s"] = rounded(seconds[engine] ?? .nan, 9) }
            entry["ratio"] = rounded((seconds["sqlite"] ?? .nan) / (seconds["graphstore"] ?? .nan), 2)
            entry["ratio_grdb"] = rounded((seconds["grdb"] ?? .nan) / (seconds["graphstore"] ?? .nan), 2)
            if let count = run.counts[name] { entry["queries_per_round"] = count }
            workloads[name] = entry
        }
        for (name, seconds) in run.withObjects {
            guard var entry = workloads[name] as? [String: Any] else { continue }
            entry["graphstore_objects_s"] = rounded(seconds, 9)
            entry["ratio_objects"] = rounded((run.seconds[name]?["sqlite"] ?? .nan) / seconds, 2)
            workloads[name] = entry
        }
        if var lookup = workloads["point_lookup"] as? [String: Any] {
            lookup["graphstore_predicate_s"] = rounded(run.lookupWithPredicate, 9)
            lookup["ratio_predicate"] = rounded((run.seconds["point_lookup"]?["sqlite"] ?? .nan) / run.lookupWithPredicate, 2)
            workloads["point_lookup"] = lookup
        }
        if var filter = workloads["filter_query"] as? [String: Any] {
            filter["graphstore_predicate_s"] = rounded(run.filterWithPredicate, 9)
            filter["ratio_predicate"] = rounded((run.seconds["filter_query"]?["sqlite"] ?? .nan) / run.filterWithPredicate, 2)
            workloads["filter_query"] = filter
        }
        if let g = run.smallSave["graphstore"], let q = run.smallSave["sqlite"] {
            workloads["small_save"] = ["graphstore_p50_us": rounded(g.median, 1), "graphstore_p99_us": rounded(g.percentile(99), 1),
                                       "sqlite_p50_us": rounded(q.median, 1), "sqlite_p99_us": rounded(q.percentile(99), 1),
                                       "ratio_p50": rounded(q.median / g.median, 2), "saves": g.values.count]
        }
        workloads["durable_commit"] = durableJSON()
        workloads["property_read"] = ["graphstore_ns": rounded(run.propertyAccess.readNanoseconds, 2), "accesses": run.propertyAccess.accesses]
        workloads["property_write"] = ["graphstore_ns": rounded(run.propertyAccess.writeNanoseconds, 2), "accesses": run.propertyAccess.accesses]
        workloads["memory"] = [
            "graphstore_resident_mib": rounded(run.residentMiB, 1),
            "resident_mib_per_million_flights": rounded(run.residentMiB / Double(run.flights) * 1_000_000, 1),
        ]
        var bytes: [String: Any] = [:]
        for engine in Self.engines { bytes["\(engine)_bytes"] = Int(run.storeBytes[engine] ?? 0) }
        bytes["ratio"] = rounded((run.storeBytes["sqlite"] ?? .nan) / (run.storeBytes["graphstore"] ?? .nan), 2)
        bytes["ratio_grdb"] = rounded((run.storeBytes["grdb"] ?? .nan) / (run.storeBytes["graphstore"] ?? .nan), 2)
        workloads["store_bytes"] = bytes
        return ["flights": run.flights, "machine": machine, "workloads": workloads]
    }

    /// `durable_commit`'s figures, measured once per run of the suite (not per size).
    func durableJSON() -> [String: Any] {
        var durableEntry: [String: Any] = [
            "graphstore_p50_us": rounded(durable.graphstore.median, 1), "graphstore_p99_us": rounded(durable.graphstore.percentile(99), 1),
            "sqlite_p50_us": rounded(durable.sqlite.median, 1), "sqlite_p99_us": rounded(durable.sqlite.percentile(99), 1),
            "grdb_p50_us": rounded(durable.grdb.median, 1), "grdb_p99_us": rounded(durable.grdb.percentile(99), 1),
            "raw_fdatasync_p50_us": rounded(durable.raw.median, 1), "raw_fdatasync_p99_us": rounded(durable.raw.percentile(99), 1),
            "ratio_to_raw_p50": rounded(durable.graphstore.median / durable.raw.median, 2),
        ]
        for (writers, rate) in durable.graphstoreThroughput { durableEntry["graphstore_commits_per_s_\(writers)_writers"] = rate.rounded() }
        for (writers, rate) in durable.sqliteThroughput { durableEntry["sqlite_commits_per_s_\(writers)_writers"] = rate.rounded() }
        for (writers, rate) in durable.grdbThroughput { durableEntry["grdb_commits_per_s_\(writers)_writers"] = rate.rounded() }
        return durableEntry
    }

    /// One object for one size (the documented shape); `{"runs": [...]}` for several;
    /// `{"machine", "durable_commit"}` with `--durable-only`.
    func jsonText() throws -> String {
        let object: Any = runs.isEmpty ? ["machine": machine, "durable_commit": durableJSON()]
            : runs.count == 1 ? json(runs[0]) : ["machine": machine, "runs": runs.map(json)]
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    private func rounded(_ value: Double, _ digits: Int) -> Any {
        guard value.isFinite else { return NSNull() }
        let scale = pow(10, Double(digits))
        return (value * scale).rounded() / scale
    }

    // MARK: Text

    func text() -> String {
        var lines = ["machine: \(machine)", ""]
        let p50 = durable.graphstore.median, raw = durable.raw.median
        lines.append("durable_commit (one small save, full durability), µs:")
        lines.append("  graphstore p50 \(format(p50)) p99 \(format(durable.graphstore.percentile(99)))   sqlite p50 \(format(durable.sqlite.median)) p99 \(format(durable.sqlite.percentile(99)))   grdb p50 \(format(durable.grdb.median)) p99 \(format(durable.grdb.percentile(99)))   raw write+fdatasync p50 \(format(raw)) p99 \(format(durable.raw.percentile(99)))")
        lines.append("  graphstore / raw p50: \(format(p50 / raw, digits: 2)) (target ≤ 1.5: \(p50 / raw <= 1.5 ? "met" : "MISSED"))")
        let rates = zip(durable.graphstoreThroughput, zip(durable.sqliteThroughput, durable.grdbThroughput)).map { g, others in
            "\(g.writers) writer(s): graphstore \(format(g.commitsPerSecond, digits: 0))/s, sqlite \(format(others.0.commitsPerSecond, digits: 0))/s, grdb \(format(others.1.commitsPerSecond, digits: 0))/s"
        }
        lines.append("  throughput: " + rates.joined(separator: "; "))
        if let one = durable.graphstoreThroughput.first?.commitsPerSecond, let sixteen = durable.graphstoreThroughput.last?.commitsPerSecond {
            lines.append("  graphstore 16 writers / 1 writer: \(format(sixteen / one, digits: 2)) (target ≥ 5: \(sixteen / one >= 5 ? "met" : "MISSED"))")
        }
        for run in runs {
            lines.append("")
            lines.append("\(run.flights) flights          graphstore        sqlite          grdb   sqlite/gs   grdb/gs   target")
            for (name, target) in Self.timed {
                guard let s = run.seconds[name] else { continue }
                let g = s["graphstore"] ?? .nan, q = s["sqlite"] ?? .nan, d = s["grdb"] ?? .nan
                let targetText = target.map { q / g >= $0 ? "≥ \(format($0, digits: 0))x met" : "≥ \(format($0, digits: 0))x MISSED" } ?? ""
                lines.append(pad(name, 18) + pad(time(g), 16) + pad(time(q), 16) + pad(time(d), 14) + pad(format(q / g, digits: 2), 12)
                             + pad(format(d / g, digits: 2), 10) + targetText)
            }
            for name in ["bulk_import", "upsert"] {
                guard let objects = run.withObjects[name], let q = run.seconds[name]?["sqlite"] else { continue }
                lines.append(pad("  (\(name) with model objects)", 18) + pad(time(objects), 16) + pad("", 30) + pad(format(q / objects, digits: 2), 12))
            }
            let predicate = run.lookupWithPredicate, sqliteLookup = run.seconds["point_lookup"]?["sqlite"] ?? .nan
            lines.append(pad("  (lookup by #Predicate)", 18) + pad(time(predicate), 16) + pad("", 30) + pad(format(sqliteLookup / predicate, digits: 2), 12))
            let filter = run.filterWithPredicate, sqliteFilter = run.seconds["filter_query"]?["sqlite"] ?? .nan
            lines.append(pad("  (filter by a #Predicate per query)", 18) + pad(time(filter), 16) + pad("", 30) + pad(format(sqliteFilter / filter, digits: 2), 12))
            if let g = run.smallSave["graphstore"], let q = run.smallSave["sqlite"] {
                lines.append(pad("small_save", 18) + "graphstore p50 \(format(g.median)) µs p99 \(format(g.percentile(99))) µs   sqlite p50 \(format(q.median)) µs p99 \(format(q.percentile(99))) µs   sqlite/gs p50 \(format(q.median / g.median, digits: 2))")
            }
            let access = run.propertyAccess
            lines.append(pad("property_read", 18) + "graphstore \(format(access.readNanoseconds, digits: 2)) ns per attribute read on an object in hand")
            lines.append(pad("property_write", 18) + "graphstore \(format(access.writeNanoseconds, digits: 2)) ns per attribute assignment on an object in hand")
            let b = run.storeBytes
            lines.append(pad("store_bytes", 18) + pad(bytes(b["graphstore"]), 16) + pad(bytes(b["sqlite"]), 16) + pad(bytes(b["grdb"]), 14)
                         + pad(format((b["sqlite"] ?? .nan) / (b["graphstore"] ?? .nan), digits: 2), 12) + format((b["grdb"] ?? .nan) / (b["graphstore"] ?? .nan), digits: 2))
            let perMillion = run.residentMiB / Double(run.flights) * 1_000_000
            lines.append(pad("memory", 18) + "graphstore resident \(format(run.residentMiB)) MiB = \(format(perMillion)) MiB per million flights (target ≤ 800: \(perMillion <= 800 ? "met" : "MISSED"))")
            if run.flights >= 1_000_000, let open = run.seconds["cold_open"]?["graphstore"] {
                lines.append(pad("", 18) + "cold open of \(run.flights) flights: \(format(open, digits: 3)) s (target < 1 s: \(open < 1 ? "met" : "MISSED"))")
            }
        }
        return lines.joined(separator: "\n")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// Seconds in the unit that reads best.
    private func time(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "-" }
        if seconds >= 1 { return format(seconds, digits: 2) + " s" }
        if seconds >= 1e-3 { return format(seconds * 1e3, digits: 2) + " ms" }
        return format(seconds * 1e6, digits: 2) + " µs"
    }

    private func bytes(_ value: Double?) -> String {
        guard let value else { return "-" }
        return format(value / 1_048_576, digits: 1) + " MiB"
    }
}
