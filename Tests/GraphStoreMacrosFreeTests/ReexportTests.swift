import Foundation
import Testing
import GraphStoreMacrosFree

/// GraphStoreMacrosFree brings the engine along: a program importing only it can open a store.
@Suite struct ReexportTests {
    @Test func theEngineIsReachableThroughThisModule() throws {
        let fs = MemoryFileIO()
        let log = try TransactionLog.open(directory: "/m", options: LogOptions(segmentSize: 4096, fileIO: fs))
        try log.append([.insert(entity: 0, row: 1, values: [PropertyValue(0, .string("KSFO"))])])
        log.close()
        var names: [Value] = []
        _ = try TransactionLog.open(directory: "/m", options: LogOptions(readOnly: true, fileIO: fs)) { transaction in
            if case let .insert(_, _, values) = transaction.operations[0] { names = values.map(\.value) }
        }
        #expect(names == [.string("KSFO")])
    }
}
