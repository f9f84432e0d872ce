import Foundation
import Testing
import GraphStoreFuzzTargets

/// Every fuzz target replays its seeds, every crasher the fuzzer ever found (Crashers/TARGET/,
/// kept for good), and a few hundred seeded mutations of the seeds: none may crash or hang.
@Suite struct FuzzRegressionTests {
    static let crashers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Crashers")

    @Test(arguments: FuzzTarget.allCases)
    func seedsAndCrashersRunClean(target: FuzzTarget) throws {
        let seeds = FuzzSeeds.seeds(for: target)
        #expect(!seeds.isEmpty)
        for seed in seeds { target.run(seed) }
        let directory = Self.crashers.appendingPathComponent(target.rawValue)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            target.run([UInt8](try Data(contentsOf: directory.appendingPathComponent(name))))
        }
    }

    /// Flipped, overwritten, cut and repeated bytes of the seeds (the same ones every run).
    @Test(arguments: FuzzTarget.allCases)
    func mutatedSeedsRunClean(target: FuzzTarget) {
        var random = Mutator(seed: 0x5EED ^ UInt64(target.rawValue.utf8.count))
        for seed in FuzzSeeds.seeds(for: target) {
            for _ in 0..<200 { target.run(random.mutate(seed)) }
        }
    }
}

/// Seeded byte mutations, libFuzzer's simplest ones.
struct Mutator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func mutate(_ bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        for _ in 0..<(1 + Int(next() % 4)) {
            guard !result.isEmpty else { return [UInt8(truncatingIfNeeded: next())] }
            let at = Int(next() % UInt64(result.count))
            switch next() % 5 {
            case 0: result[at] ^= UInt8(1 << (next() % 8))
            case 1: result[at] = UInt8(truncatingIfNeeded: next())
            case 2: result.removeSubrange(at...)
            case 3: result.insert(contentsOf: result[at..<min(result.count, at + Int(next() % 16))], at: Int(next() % UInt64(result.count)))
            default: result.replaceSubrange(at..<min(result.count, at + 8), with: [0xFF, 0xFF, 0xFF, 0x7F])
            }
        }
        return result
    }
}
