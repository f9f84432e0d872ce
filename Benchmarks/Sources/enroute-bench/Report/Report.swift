import Foundation

/// The suite's results as tables, JSON and target checks (Docs/BENCHMARKS.md).
struct Report {
    let machine: String
    let runs: [ScaleRun.Result]
    let durable: DurableCommit.Result

    static let engines = ["graphstore", "sqlite", "grdb"]
    /// Timed workloads in table order, with their targets as minimum ratios sqlite / graphstore:
    /// first as users write them (model objects, `#Predicate`, one save), then the fast paths.
    static let timed: [(name: String, target: Double?)] = [
        ("import_objects", 3), ("import_seed_pattern", 3), ("upsert_objects", 5), ("filter_predicate", 10), ("lookup_predicate", 10),
        ("board", 10), ("open_read_all", 2),
        ("bulk_import", 3), ("upsert", 5), ("filter_query", 10), ("point_lookup", 10), ("cold_open", nil), ("compaction", nil),
    ]
    /// How many workloads of `timed` are the ones users write (the rest are the fast paths).
    static let asUsersWriteThem = 7
    /// Peak resident set target at a million flights, MiB, in every workload.
    static let peakTargetMiB = 800.0

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
        if let g = run.smallSave["graphstore"], let q = run.smallSave["sqlite"], let raw = run.smallSave["raw"] {
            workloads["small_save"] = ["graphstore_p50_us": rounded(g.median, 1), "graphstore_p99_us": rounded(g.percentile(99), 1),
                                       "sqlite_p50_us": rounded(q.median, 1), "sqlite_p99_us": rounded(q.percentile(99), 1),
                                       "raw_fdatasync_p50_us": rounded(raw.median, 1), "ratio_to_raw_p50": rounded(g.median / raw.median, 2),
                                       "ratio_p50": rounded(q.median / g.median, 2), "saves": g.values.count]
        }
        if !run.merge.values.isEmpty {
            workloads["merge"] = ["graphstore_p50_us": rounded(run.merge.median, 1), "graphstore_p99_us": rounded(run.merge.percentile(99), 1),
                                  "saves": run.merge.values.count]
        }
        for (name, samples) in changeWorkloads(run) {
            guard let g = samples["graphstore"], let q = samples["sqlite"] else { continue }
            workloads[name] = ["graphstore_p50_us": rounded(g.median, 1), "graphstore_p99_us": rounded(g.percentile(99), 1),
                               "sqlite_p50_us": rounded(q.median, 1), "sqlite_p99_us": rounded(q.percentile(99), 1),
                               "ratio_p50": rounded(q.median / g.median, 2), "samples": g.values.count]
        }
        workloads["lookup_pending"] = ["graphstore_us": rounded(run.pendingLookup.micros, 2),
                                       "graphstore_first_us": rounded(run.pendingLookup.firstMicros, 1), "unsaved_flights": run.flights]
        if let json = run.jsonImport {
            let megabytes = Double(json.bytes) / 1e6
            workloads["json_import"] = ["graphstore_s": rounded(json.importSeconds, 6), "decode_s": rounded(json.decodeSeconds, 6),
                                        "bytes": json.bytes, "files": json.files,
                                        "graphstore_mb_per_s": rounded(megabytes / json.importSeconds, 1),
                                        "decode_mb_per_s": rounded(megabytes / json.decodeSeconds, 1),
                                        "ratio_to_decode": rounded(json.importSeconds / json.decodeSeconds, 2)]
        }
        workloads["durable_commit"] = durableJSON()
        workloads["property_read"] = ["graphstore_ns": rounded(run.propertyAccess.readNanoseconds, 2), "accesses": run.propertyAccess.accesses]
        workloads["property_write"] = ["graphstore_ns": rounded(run.propertyAccess.writeNanoseconds, 2), "accesses": run.propertyAccess.accesses]
        workloads["memory"] = [
            "graphstore_resident_mib": rounded(run.residentMiB, 1),
            "resident_mib_per_million_flights": rounded(run.residentMiB / Double(run.flights) * 1_000_000, 1),
        ]
        for (name, figure) in run.peakMemory {
            var entry = workloads[name] as? [String: Any] ?? [:]
            entry["peak_rss_mib"] = rounded(figure.peakMiB, 1)
            entry["peak_rss_rows_mib"] = rounded(figure.rowsMiB, 1)
            workloads[name] = entry
        }
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
            for (i, (name, target)) in Self.timed.enumerated() {
                if i == 0 { lines.append("  as users write them (model objects, #Predicate, one save):") }
                if i == Self.asUsersWriteThem { lines.append("  the fast paths (BatchInsert, PreparedFetch, fetchUnique):") }
                guard let s = run.seconds[name] else { continue }
                let g = s["graphstore"] ?? .nan, q = s["sqlite"] ?? .nan, d = s["grdb"] ?? .nan
                let targetText = target.map { q / g >= $0 ? "≥ \(format($0, digits: 0))x met" : "≥ \(format($0, digits: 0))x MISSED" } ?? ""
                lines.append(pad(name, 20) + pad(time(g), 16) + pad(time(q), 16) + pad(time(d), 14) + pad(format(q / g, digits: 2), 12)
                             + pad(format(d / g, digits: 2), 10) + targetText)
            }
            if let g = run.smallSave["graphstore"], let q = run.smallSave["sqlite"], let raw = run.smallSave["raw"] {
                let ratio = g.median / raw.median
                lines.append(pad("small_save", 20) + "graphstore p50 \(format(g.median)) µs p99 \(format(g.percentile(99))) µs   sqlite p50 \(format(q.median)) µs p99 \(format(q.percentile(99))) µs   raw write+fdatasync p50 \(format(raw.median)) µs")
                lines.append(pad("", 20) + "graphstore / raw p50 \(format(ratio, digits: 2)) (target ≤ 1.5: \(ratio <= 1.5 ? "met" : "MISSED"))   sqlite/gs p50 \(format(q.median / g.median, digits: 2))")
            }
            if !run.merge.values.isEmpty {
                lines.append(pad("merge", 20) + "graphstore p50 \(format(run.merge.median)) µs p99 \(format(run.merge.percentile(99))) µs: a small durable save, seen by a context holding every flight and a live board")
            }
            for (name, samples) in changeWorkloads(run) {
                guard let g = samples["graphstore"], let q = samples["sqlite"] else { continue }
                lines.append(pad(name, 20) + "graphstore p50 \(format(g.median)) µs p99 \(format(g.percentile(99))) µs   sqlite p50 \(format(q.median)) µs p99 \(format(q.percentile(99))) µs   sqlite/gs p50 \(format(q.median / g.median, digits: 2))")
            }
            lines.append(pad("lookup_pending", 20) + "graphstore \(format(run.pendingLookup.micros, digits: 2)) µs per #Predicate lookup by ident among \(run.flights) unsaved flights (the first, which indexes them, \(time(run.pendingLookup.firstMicros / 1e6)))")
            if let json = run.jsonImport {
                let megabytes = Double(json.bytes) / 1e6, ratio = json.importSeconds / json.decodeSeconds
                lines.append(pad("json_import", 20) + "\(json.files) files, \(format(megabytes)) MB: enroute load \(time(json.importSeconds)) (\(format(megabytes / json.importSeconds)) MB/s), bare JSONDecoder \(time(json.decodeSeconds)) (\(format(megabytes / json.decodeSeconds)) MB/s)")
                lines.append(pad("", 20) + "load / decode \(format(ratio, digits: 2)) (target ≤ 1.5: \(ratio <= 1.5 ? "met" : "MISSED"))")
            }
            let access = run.propertyAccess
            lines.append(pad("property_read", 20) + "graphstore \(format(access.readNanoseconds, digits: 2)) ns per attribute read on an object in hand")
            lines.append(pad("property_write", 20) + "graphstore \(format(access.writeNanoseconds, digits: 2)) ns per attribute assignment on an object in hand")
            let b = run.storeBytes
            let bytesRatio = (b["sqlite"] ?? .nan) / (b["graphstore"] ?? .nan)
            lines.append(pad("store_bytes", 20) + pad(bytes(b["graphstore"]), 16) + pad(bytes(b["sqlite"]), 16) + pad(bytes(b["grdb"]), 14)
                         + pad(format(bytesRatio, digits: 2), 12) + pad(format((b["grdb"] ?? .nan) / (b["graphstore"] ?? .nan), digits: 2), 10)
                         + (run.flights >= 1_000_000 ? (bytesRatio >= 1 ? "≤ sqlite met" : "≤ sqlite MISSED") : ""))
            let perMillion = run.residentMiB / Double(run.flights) * 1_000_000
            lines.append(pad("memory", 20) + "graphstore resident \(format(run.residentMiB)) MiB = \(format(perMillion)) MiB per million flights (target ≤ 800: \(perMillion <= 800 ? "met" : "MISSED"))")
            if !run.peakMemory.isEmpty {
                let figures = PeakMemory.workloads.compactMap { name in run.peakMemory[name].map { "\(name) \(format($0.peakMiB))" } }
                let worst = run.peakMemory.values.map(\.peakMiB).max() ?? .nan
                let rows = run.peakMemory.values.map(\.rowsMiB).max() ?? .nan
                lines.append(pad("peak_rss", 20) + "MiB, each workload in its own process (of which the input rows \(format(rows))): " + figures.joined(separator: ", "))
                if run.flights >= 1_000_000 {
                    lines.append(pad("", 20) + "largest \(format(worst)) MiB (target ≤ \(format(Self.peakTargetMiB, digits: 0)): \(worst <= Self.peakTargetMiB ? "met" : "MISSED"))")
                }
            }
            if run.flights >= 1_000_000, let open = run.seconds["cold_open"]?["graphstore"] {
                lines.append(pad("", 20) + "cold open of \(run.flights) flights: \(format(open, digits: 3)) s (target < 1 s: \(open < 1 ? "met" : "MISSED"))")
            }
        }
        if let smallest = runs.first, let largest = runs.last, runs.count > 1,
           let a = smallest.smallSave["graphstore"]?.median, let b = largest.smallSave["graphstore"]?.median {
            lines.append("")
            lines.append("small_save p50 at \(largest.flights) flights / at \(smallest.flights): \(format(b / a, digits: 2)) (target ≤ 1.2: \(b / a <= 1.2 ? "met" : "MISSED"))")
        }
        // In proportion to the change, not to the store: the same bound as small_save's.
        if let smallest = runs.first, let largest = runs.last, runs.count > 1, !smallest.merge.values.isEmpty, !largest.merge.values.isEmpty {
            let ratio = largest.merge.median / smallest.merge.median
            lines.append("merge p50 at \(largest.flights) flights / at \(smallest.flights): \(format(ratio, digits: 2)) (target ≤ 1.2: \(ratio <= 1.2 ? "met" : "MISSED"))")
            // Constant work per lookup: it grows with the store only as a committed lookup does
            // (memory's latency over a larger map), which point_lookup shows in the same run.
            let lookups = largest.pendingLookup.micros / smallest.pendingLookup.micros
            let committed = (largest.seconds["point_lookup"]?["graphstore"] ?? .nan) / (smallest.seconds["point_lookup"]?["graphstore"] ?? .nan)
            lines.append("lookup_pending at \(largest.flights) unsaved / at \(smallest.flights): \(format(lookups, digits: 2)) (point_lookup, committed, at \(largest.flights) / at \(smallest.flights): \(format(committed, digits: 2)))")
        }
        // The same bound again: a delete, a move and a top ten cost their change, not the store.
        if let smallest = runs.first, let largest = runs.last, runs.count > 1 {
            let small = Dictionary(uniqueKeysWithValues: changeWorkloads(smallest)), large = Dictionary(uniqueKeysWithValues: changeWorkloads(largest))
            let ratios = ["delete_save", "move_save", "top_ten"].compactMap { name -> String? in
                guard let a = small[name]?["graphstore"]?.median, let b = large[name]?["graphstore"]?.median else { return nil }
                return "\(name) \(format(b / a, digits: 2)) (≤ 1.2: \(b / a <= 1.2 ? "met" : "MISSED"))"
            }
            if !ratios.isEmpty { lines.append("p50 at \(largest.flights) flights / at \(smallest.flights): " + ratios.joined(separator: ", ")) }
        }
        return lines.joined(separator: "\n")
    }

    /// `delete_save`, `move_save` and `top_ten` of a run, when it has them.
    private func changeWorkloads(_ run: ScaleRun.Result) -> [(String, [String: Samples])] {
        guard let changes = run.changes else { return [] }
        return [("delete_save", changes.delete), ("move_save", changes.move), ("top_ten", changes.topTen)]
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
