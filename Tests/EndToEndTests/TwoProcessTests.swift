import Foundation
import Testing
import GraphStore
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog

@Suite struct TwoProcessTests {
    /// While one process writes: a second writer (process or in-process open) is refused by
    /// name, and a read-only open works beside it and can refresh.
    @Test func aSecondWriterIsRefusedAndAReaderWorksBeside() throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        let writer = try RunningChild("graphstore-crashtest", [store, "--durability", "full"])
        defer { _ = writer.kill() }
        #expect(waitUntil(seconds: 20) { (try? StoreInspection.inspect(directory: store).lastTransaction) ?? 0 > 10 })

        let second = try runTool("graphstore-crashtest", [store])
        #expect(second.status == 1)
        #expect(second.stderr.contains("locked for writing by process \(writer.pid)"), "\(second.stderr)")
        #expect(throws: StorageError.locked(path: store + "/LOCK", holderPID: writer.pid)) {
            try TransactionLog.open(directory: store)
        }

        let reader = try TransactionLog.open(directory: store, options: LogOptions(readOnly: true))
        let atOpen = reader.lastTransaction
        #expect(atOpen > 10)
        #expect(reader.report.salvaged.isEmpty)
        var next = atOpen + 1
        var gapless = true
        #expect(try waitUntil(seconds: 20) {
            try reader.refresh { transaction in
                gapless = gapless && transaction.number == next
                next += 1
            }
            return reader.lastTransaction > atOpen + 10
        })
        #expect(gapless)
        reader.close()
    }
}
