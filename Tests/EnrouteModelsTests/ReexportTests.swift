import Testing
import EnrouteModels

/// EnrouteModels brings the engine along: a program importing only it can open a store.
@Suite struct ReexportTests {
    @Test func theEngineIsReachableThroughThisModule() throws {
        let log = try TransactionLog.open(directory: "/e", options: LogOptions(segmentSize: 4096, fileIO: MemoryFileIO()))
        let receipt = try log.append([.delete(entity: 0, row: 1)], author: "enroute")
        #expect(receipt.number == 1)
        log.close()
    }
}
