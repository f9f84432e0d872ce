import EnrouteModels
import Foundation
import GraphStore
@_spi(GraphStoreInternals) import GraphStoreCore

/// `durable_commit`: one small transaction per save (one flight's progress and status) with
/// full durability — GraphStore's `context.save()` on a `.full` container, SQLite's
/// BEGIN/UPDATE/COMMIT with synchronous=FULL, GRDB's record update in a `write` — next to a raw
/// pwrite+fdatasync loop on a preallocated file of the same disk, interleaved in rounds so all
/// see the same disk. Then throughput with 1, 4 and 16 concurrent writers (GraphStore
/// `.grouped`; SQLite one connection per writer, waiting on its lock; GRDB one DatabasePool
/// shared by the writers, which it serialises), the median of five interleaved repetitions, each
/// started once the machine's dirty pages are written back (`settleDisk`).
struct DurableCommit {
    struct Result {
        var graphstore = Samples()
        var sqlite = Samples()
        var grdb = Samples()
        var raw = Samples()
        /// Commits per second by number of concurrent writers.
        var graphstoreThroughput: [(writers: Int, commitsPerSecond: Double)] = []
        var sqliteThroughput: [(writers: Int, commitsPerSecond: Double)] = []
        var grdbThroughput: [(writers: Int, commitsPerSecond: Double)] = []
    }

    let directory: String
    let rounds: Int
    let commitsPerRound: Int
    var throughputRepetitions = 5
    /// Progress lines (each repetition's rates), to standard error.
    var log: (String) -> Void = { _ in }

    func run() throws -> Result {
        var result = Result()
        let rows = SyntheticEnroute(flights: 1_000).rows()
        let storePath = directory + "/durable-graphstore", sqlitePath = directory + "/durable.sqlite", rawPath = directory + "/durable-raw"
        let grdbPath = directory + "/durable-grdb.sqlite"
        defer { for path in [storePath, sqlitePath, grdbPath, rawPath] { removeStore(path) } }
        let container = try Self.container(at: storePath, durability: .full, rows: rows)
        let context = ModelContext(container)
        let flights = try context.fetch(FetchDescriptor<Flight>())
        let sqlite = try SQLiteEngine.create(at: sqlitePath)
        try sqlite.bulkImport(rows)
        let grdb = try GRDBEngine.create(at: grdbPath)
        try grdb.bulkImport(rows)
        let raw = try RawSyncLoop(path: rawPath, recordSize: 128)
        defer { raw.close(); grdb.close(); sqlite.close(); container.close() }

        var i = 0
        func graphstoreCommit() throws {
            let flight = flights[i % flights.count]
            flight.progressPercent = i % 100
            flight.status = "En Route \(i)"
            try context.save()
            i += 1
        }
        // Warm up, then alternate rounds.
        for _ in 0..<20 { try graphstoreCommit(); try sqlite.commitSmallUpdate(i); try grdb.commitSmallUpdate(i); try raw.writeAndSync() }
        for _ in 0..<rounds {
            for _ in 0..<commitsPerRound { result.graphstore.add(try measure { try graphstoreCommit() }) }
            for _ in 0..<commitsPerRound { result.sqlite.add(try measure { try sqlite.commitSmallUpdate(i); i += 1 }) }
            for _ in 0..<commitsPerRound { result.grdb.add(try measure { try grdb.commitSmallUpdate(i); i += 1 }) }
            for _ in 0..<commitsPerRound { result.raw.add(try measure { try raw.writeAndSync() }) }
        }
        // Throughput: the median of five interleaved repetitions per number of writers (one run
        // moved by 30% with the disk's sync latency and the machine's scheduling).
        let counts = [1, 4, 16]
        var graphstoreRuns = counts.map { _ in [Double]() }, sqliteRuns = counts.map { _ in [Double]() }, grdbRuns = counts.map { _ in [Double]() }
        for repetition in 1...throughputRepetitions {
            for (k, writers) in counts.enumerated() {
                graphstoreRuns[k].append(try graphstoreThroughput(writers: writers, rows: rows))
                sqliteRuns[k].append(try sqliteThroughput(writers: writers, rows: rows))
                grdbRuns[k].append(try grdbThroughput(writers: writers, rows: rows))
            }
            let rates = counts.indices.map {
                "\(counts[$0]): \(Int(graphstoreRuns[$0].last!)) / \(Int(sqliteRuns[$0].last!)) / \(Int(grdbRuns[$0].last!))"
            }
            log("  repetition \(repetition), saves/s by writers (graphstore / sqlite / grdb): " + rates.joined(separator: ", "))
        }
        for (k, writers) in counts.enumerated() {
            result.graphstoreThroughput.append((writers, median(graphstoreRuns[k])))
            result.sqliteThroughput.append((writers, median(sqliteRuns[k])))
            result.grdbThroughput.append((writers, median(grdbRuns[k])))
        }
        return result
    }

    static func container(at path: String, durability: Durability, rows: SyntheticEnroute.Rows,
                          postsSaveNotifications: Bool = true) throws -> ModelContainer {
        removeStore(path)
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: path), durability: durability, autosaveEnabled: false)
        configuration.maintenance = .manual
        configuration.postsSaveNotifications = postsSaveNotifications
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: configuration)
        let loader = ModelContext(container)
        SyntheticEnroute.insert(rows, into: loader)
        try loader.save()
        return container
    }

    private var perWriter: Int { max(50, rounds * commitsPerRound / 2) }

    /// Commits per second when `writers` threads each save small changes through their own context.
    func graphstoreThroughput(writers: Int, rows: SyntheticEnroute.Rows) throws -> Double {
        let path = directory + "/grouped-\(writers)"
        defer { removeStore(path) }
        // Writers do not post to NotificationCenter: its process-wide lock, not the store,
        // would be what 16 threads on 2 cores contend for (ModelConfiguration.postsSaveNotifications).
        let container = try Self.container(at: path, durability: .grouped, rows: rows, postsSaveNotifications: false)
        defer { container.close() }
        let perWriter = self.perWriter
        return try commitsPerSecond(writers: writers) { writer in
            let context = ModelContext(container)  // made on its own thread, which owns it
            // Each writer works on its own flights (fetched by ident), as concurrent writers do.
            let flights = try (0..<20).compactMap { try context.fetchUnique(\Flight.ident, equals: rows.flights[(writer * 20 + $0) % rows.flights.count].ident) }
            for j in 0..<perWriter {
                let flight = flights[j % flights.count]
                flight.progressPercent = j % 100
                flight.status = "En Route \(j)"
                try context.save()
            }
        }
    }

    /// Commits per second with `writers` threads, each with its own SQLite connection.
    func sqliteThroughput(writers: Int, rows: SyntheticEnroute.Rows) throws -> Double {
        let path = directory + "/sqlite-writers-\(writers).db"
        defer { removeStore(path) }
        let setup = try SQLiteEngine.create(at: path)
        try setup.bulkImport(rows)
        setup.close()
        let perWriter = self.perWriter
        return try commitsPerSecond(writers: writers) { writer in
            let connection = try SQLiteEngine.open(at: path)
            defer { connection.close() }
            for j in 0..<perWriter { try connection.commitSmallUpdate(writer * 37 + j) }
        }
    }

    /// Commits per second with `writers` threads sharing one GRDB DatabasePool.
    func grdbThroughput(writers: Int, rows: SyntheticEnroute.Rows) throws -> Double {
        let path = directory + "/grdb-writers-\(writers).db"
        defer { removeStore(path) }
        let engine = try GRDBEngine.create(at: path)
        defer { engine.close() }
        try engine.bulkImport(rows)
        let perWriter = self.perWriter
        return try commitsPerSecond(writers: writers) { writer in
            for j in 0..<perWriter { try engine.commitSmallUpdate(writer * 37 + j) }
        }
    }

    /// Runs `body(writer)` on `writers` threads, started on a settled disk, and returns the
    /// commits per second of `perWriter` commits each; the first error a writer threw is thrown.
    private func commitsPerSecond(writers: Int, _ body: @escaping @Sendable (Int) throws -> Void) throws -> Double {
        let failures = Failures()
        settleDisk()
        let start = nowMicros()
        runThreads(writers) { writer in
            do { try body(writer) } catch { failures.add(error) }
        }
        let seconds = (nowMicros() - start) / 1e6
        if let error = failures.first { throw error }
        return Double(writers * perWriter) / seconds
    }
}

/// Writes back every dirty page on the machine before a timed throughput run, so that no engine's
/// run pays for the write-back of the run before it (the other engine's, or its own setup's).
func settleDisk() { sync() }

/// Errors from worker threads.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [any Error] = []
    func add(_ error: any Error) { lock.withLock { errors.append(error) } }
    var first: (any Error)? { lock.withLock { errors.first } }
}

/// Runs `body(i)` on `count` threads and waits for all.
func runThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        Thread {
            body(i)
            group.leave()
        }.start()
    }
    group.wait()
}

/// The floor: pwrite a small record at the next offset of a preallocated file, then fdatasync.
final class RawSyncLoop {
    let fd: Int32
    let record: [UInt8]
    var offset: off_t = 0

    init(path: String, recordSize: Int) throws {
        fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw StorageError.io(operation: "open", path: path, errno: errno) }
        guard posix_fallocate(fd, 0, 64 << 20) == 0 else { throw StorageError.io(operation: "fallocate", path: path, errno: errno) }
        fsync(fd)
        record = [UInt8](repeating: 0x5A, count: recordSize)
    }

    func writeAndSync() throws {
        let n = record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, offset) }
        guard n == record.count, fdatasync(fd) == 0 else { throw StorageError.io(operation: "raw loop", path: "", errno: errno) }
        offset += off_t(record.count)
        if offset > (60 << 20) { offset = 0 }
    }

    func close() { Glibc.close(fd) }
}
