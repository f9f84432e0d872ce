import Foundation
import GraphStore

/// `durable_commit`: one small transaction per commit with `.full` durability, next to a raw
/// write+fdatasync loop on a preallocated file on the same disk, interleaved in rounds so both
/// see the same disk conditions. Also grouped-commit throughput with 1, 4 and 16 writers.
struct DurableCommit {
    struct Result {
        var graphstore: Samples
        var raw: Samples
        /// Commits per second with `.grouped` durability, by number of concurrent writers.
        var groupedThroughput: [(writers: Int, commitsPerSecond: Double)]
    }

    let directory: String
    let rounds: Int
    let commitsPerRound: Int

    /// A typical small commit: one flight's worth of attributes.
    static func smallTransaction(_ i: Int) -> [LogOperation] {
        [.update(entity: 2, row: UInt64(i % 1000 + 1), values: [
            PropertyValue(9, .int(Int64(i % 100))),
            PropertyValue(10, .string("En Route / On Time")),
            PropertyValue(4, .date(Date(timeIntervalSince1970: 1_700_000_000 + Double(i)))),
        ])]
    }

    func run() throws -> Result {
        let storePath = directory + "/durable-commit-store"
        let rawPath = directory + "/durable-commit-raw"
        try? FileManager.default.removeItem(atPath: storePath)
        let log = try TransactionLog.open(directory: storePath, options: LogOptions(durability: .full))
        defer {
            log.close()
            try? FileManager.default.removeItem(atPath: storePath)
            try? FileManager.default.removeItem(atPath: rawPath)
        }
        let raw = try RawSyncLoop(path: rawPath, recordSize: 128)

        var graphstore = Samples(), rawSamples = Samples()
        var i = 0
        // Warm up both paths, then alternate rounds.
        for _ in 0..<50 { try log.append(Self.smallTransaction(i)); i += 1; try raw.writeAndSync() }
        for _ in 0..<rounds {
            for _ in 0..<commitsPerRound {
                let t = try measure { try log.append(Self.smallTransaction(i)) }
                graphstore.add(t)
                i += 1
            }
            for _ in 0..<commitsPerRound { rawSamples.add(try measure { try raw.writeAndSync() }) }
        }
        raw.close()

        var throughput: [(Int, Double)] = []
        for writers in [1, 4, 16] {
            throughput.append((writers, try groupedThroughput(writers: writers)))
        }
        return Result(graphstore: graphstore, raw: rawSamples, groupedThroughput: throughput)
    }

    /// Commits per second when `writers` threads each commit in a loop for a fixed count.
    func groupedThroughput(writers: Int) throws -> Double {
        let path = directory + "/grouped-\(writers)"
        try? FileManager.default.removeItem(atPath: path)
        let log = try TransactionLog.open(directory: path, options: LogOptions(durability: .grouped))
        defer {
            log.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        let perWriter = max(50, rounds * commitsPerRound / 2)
        let group = DispatchGroup()
        let start = nowMicros()
        for writer in 0..<writers {
            group.enter()
            Thread {
                for j in 0..<perWriter { _ = try? log.append(Self.smallTransaction(writer * 1_000_000 + j)) }
                group.leave()
            }.start()
        }
        group.wait()
        let seconds = (nowMicros() - start) / 1e6
        return Double(writers * perWriter) / seconds
    }
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
