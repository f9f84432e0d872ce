@_spi(GraphStoreInternals) import GraphStoreGraph
import Foundation
import Testing
@testable import GraphStore
import GraphStoreTestSupport
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog

/// A child commits items (each with a blob file) while another of its threads checkpoints and
/// compacts in a loop, and is SIGKILLed at random moments — inside checkpoint writes, segment
/// removal and blob sweeps alike. After each kill the store opens with every acknowledged item,
/// each exactly as committed (its blob bytes included), as a gapless chain.
/// GRAPHSTORE_CRASH_ITERATIONS runs more kills (default 8).
@Suite(.serialized) struct MaintenanceCrashTests {
    @Test func killsDuringCheckpointsAndCompactionLoseNothing() throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        var rng = SplitMix64(seed: UInt64(Date().timeIntervalSince1970 * 1000))
        var previous = 0
        var sawCheckpoint = false, sawCompaction = false
        for iteration in 0..<CrashTests.iterations {
            let child = try RunningChild("graphstore-crashtest", [store, "--maintenance", "--segment-size", "8192"])
            Thread.sleep(forTimeInterval: 0.1 + Double(rng.next() % 300) / 1000)
            let (lines, stderr) = child.kill()
            #expect(stderr.isEmpty, "iteration \(iteration): child wrote \(stderr)")
            let acknowledged = lines.compactMap { $0.hasPrefix("ack ") ? Int($0.dropFirst(4)) : nil }.max() ?? -1

            let opened = try Store.open(directory: store, options: StoreOptions(log: LogOptions(segmentSize: 8192), maintenance: .manual))
            defer { opened.close() }
            if opened.report.checkpoint != nil { sawCheckpoint = true }
            if try opened.historyStart() > 0 { sawCompaction = true }
            let entity = try #require(opened.schema.entity(named: "Item"))
            let count = opened.graph.read { $0.table(entity.index).liveCount }
            #expect(count - 1 >= acknowledged, "iteration \(iteration): acknowledged \(acknowledged), recovered \(count) items")
            #expect(count >= previous)
            previous = count
            let sequenceColumn = entity.attribute(named: "sequence")!.index
            let labelColumn = entity.attribute(named: "label")!.index
            let payloadColumn = entity.attribute(named: "payload")!.index
            let previousLink = entity.relationship(named: "previous")!.index
            for sequence in 0..<count {
                let row = RowNumber(sequence + 1)
                let (live, values, link) = opened.graph.read { view in
                    (view.isLive(entity: entity.index, row: row),
                     [sequenceColumn, labelColumn, payloadColumn].map { view.value(entity: entity.index, row: row, attribute: $0) },
                     view.toOne(entity: entity.index, row: row, relationship: previousLink))
                }
                #expect(live, "iteration \(iteration): item \(sequence) missing in a chain of \(count)")
                #expect(values[0] == .int(Int64(sequence)))
                #expect(values[1] == .string(MaintenanceWorkload.label(sequence)))
                guard case let .blob(reference) = values[2] else {
                    Issue.record("iteration \(iteration): item \(sequence) payload is \(values[2])")
                    continue
                }
                #expect(try opened.blobs.read(reference) == MaintenanceWorkload.payload(sequence), "iteration \(iteration): item \(sequence)")
                #expect(link == (sequence == 0 ? nil : row - 1))
            }
        }
        #expect(previous > 0, "the child never committed")
        #expect(sawCheckpoint, "no kill left a checkpoint behind")
        #expect(sawCompaction, "no kill came after a compaction")
        let verify = try runTool("graphstore", ["verify", store])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }
}
