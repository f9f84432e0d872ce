import Foundation
import Testing
import GraphStore
import GraphStoreTestSupport
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog

/// A child process commits in a loop and is SIGKILLed at random moments. After each kill the
/// reopened store holds exactly a prefix of each writer's commits, including every commit the
/// child saw acknowledged. GRAPHSTORE_CRASH_ITERATIONS runs more kills (default 8 per mode).
@Suite(.serialized) struct CrashTests {
    static let iterations = Int(ProcessInfo.processInfo.environment["GRAPHSTORE_CRASH_ITERATIONS"] ?? "") ?? 8

    @Test(arguments: [("full", 1), ("grouped", 4)])
    func killedWritersLeaveAPrefixWithEveryAcknowledgedCommit(durability: String, writers: Int) throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        var rng = SplitMix64(seed: UInt64(Date().timeIntervalSince1970 * 1000))
        var previousLast: UInt64 = 0
        for iteration in 0..<Self.iterations {
            let child = try RunningChild("graphstore-crashtest", [store, "--durability", durability, "--writers", "\(writers)", "--segment-size", "65536"])
            Thread.sleep(forTimeInterval: 0.05 + Double(rng.next() % 250) / 1000)
            let (lines, stderr) = child.kill()
            #expect(stderr.isEmpty, "iteration \(iteration): child wrote \(stderr)")
            let acknowledged = lines.compactMap { $0.hasPrefix("ack ") ? UInt64($0.dropFirst(4)) : nil }.max() ?? 0

            var sequences = [Int](repeating: -1, count: writers)
            var count: UInt64 = 0
            let log = try TransactionLog.open(directory: store, options: LogOptions(segmentSize: 65536)) { transaction in
                count += 1
                if transaction.number == 1 && CrashWorkload.isSchema(transaction) { return }
                guard let (writer, sequence) = CrashWorkload.identify(transaction), writer < writers else {
                    Issue.record("iteration \(iteration): transaction \(transaction.number) is not one the child committed")
                    return
                }
                // Each writer's commits are a gapless prefix of its sequence.
                #expect(sequence == sequences[writer] + 1, "iteration \(iteration): writer \(writer) jumped to \(sequence)")
                sequences[writer] = sequence
            }
            #expect(log.lastTransaction == count)
            #expect(log.lastTransaction >= acknowledged, "iteration \(iteration): acknowledged \(acknowledged), recovered \(log.lastTransaction)")
            #expect(log.lastTransaction >= previousLast)
            previousLast = log.lastTransaction
            log.close()
        }
        #expect(previousLast > 0, "the child never committed")
        let verify = try runTool("graphstore", ["verify", store])
        #expect(verify.status == 0, "\(verify.stderr) \(verify.stdout)")
    }
}
