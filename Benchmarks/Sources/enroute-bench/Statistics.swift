import Foundation

/// Latency samples in microseconds.
struct Samples {
    private(set) var values: [Double] = []

    mutating func add(_ microseconds: Double) { values.append(microseconds) }
    mutating func add(contentsOf other: Samples) { values.append(contentsOf: other.values) }

    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count - 1)).rounded())
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    var median: Double { percentile(50) }
}

/// Monotonic time in microseconds.
func nowMicros() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3
}

func measure(_ body: () throws -> Void) rethrows -> Double {
    let start = nowMicros()
    try body()
    return nowMicros() - start
}

func median(_ values: [Double]) -> Double {
    Samples(values: values).median
}

func format(_ value: Double, digits: Int = 1) -> String {
    guard value.isFinite else { return "-" }
    let scale = pow(10, Double(digits))
    return String((value * scale).rounded() / scale)
}

/// One line describing the machine, for the results.
func machineDescription() -> String {
    let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("model name") }?
        .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
    let memory = ProcessInfo.processInfo.physicalMemory / (1 << 30)
    return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(memory) GiB, Linux"
}

/// Resident set size of this process, from /proc/self/status.
func residentMiB() -> Double { statusMiB("VmRSS:") }

/// The most this process has had resident (its high-water mark), from /proc/self/status.
func peakResidentMiB() -> Double { statusMiB("VmHWM:") }

private func statusMiB(_ field: String) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return .nan }
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
