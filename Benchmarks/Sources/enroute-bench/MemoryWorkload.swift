import Foundation
import EnrouteModels

/// `memory`: resident memory of a store holding N flights with their airports, airlines and
/// relationships, after the import's objects are released — the graph's own footprint.
/// Also reports how long that bulk import (one save) took.
struct MemoryWorkload {
    struct Result {
        var flights: Int
        var residentBeforeMiB: Double
        var residentAfterMiB: Double
        var importSeconds: Double
        var storeBytes: UInt64
        var mibPerMillionFlights: Double { (residentAfterMiB - residentBeforeMiB) / Double(flights) * 1_000_000 }
    }

    let directory: String
    let flights: Int

    func run() throws -> Result {
        let path = directory + "/memory-store"
        try? FileManager.default.removeItem(atPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        trimHeap()
        let before = residentMiB()
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                           configurations: ModelConfiguration(url: URL(fileURLWithPath: path), durability: .full))
        var seconds = 0.0
        try autoreleasepool {
            let context = ModelContext(container)
            let start = nowMicros()
            let synthetic = SyntheticEnroute(flights: flights)
            synthetic.insert(synthetic.rows(), into: context)
            let inserted = nowMicros()
            try context.save()
            if ProcessInfo.processInfo.environment["ENROUTE_BENCH_VERBOSE"] != nil {
                print("  insert \((inserted - start) / 1e6) s, save \((nowMicros() - inserted) / 1e6) s")
            }
            seconds = (nowMicros() - start) / 1e6
        }
        trimHeap()
        let after = residentMiB()
        let bytes = (try? FileManager.default.subpathsOfDirectory(atPath: path))?.reduce(UInt64(0)) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + "/" + name)[.size] as? UInt64) ?? 0)
        } ?? 0
        withExtendedLifetime(container) {}
        return Result(flights: flights, residentBeforeMiB: before, residentAfterMiB: after, importSeconds: seconds, storeBytes: bytes)
    }
}

/// Resident set size of this process, from /proc/self/status.
func residentMiB() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return .nan }
    let kib = Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
    return kib / 1024
}

/// Returns freed heap pages to the OS so resident memory reflects live data.
func trimHeap() {
    // glibc's malloc_trim is not in the Glibc module map; look it up.
    typealias MallocTrim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }
}

#if !canImport(ObjectiveC)
func autoreleasepool<R>(_ body: () throws -> R) rethrows -> R { try body() }
#endif
