import Foundation
import Testing
import GraphStore
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog
@_spi(GraphStoreInternals) import GraphStoreGraph

@Suite struct GraphstoreToolTests {
    /// The schema of the stores these tests write by hand: entity 1, `Flight`, with one string
    /// attribute, number 0.
    static let schemaRecord = SchemaRecord(fingerprint: "0000000000000000", nextEntityNumber: 2, nextPropertyNumber: 1, entities: [
        SchemaRecord.EntityRecord(name: "Flight", number: 1, attributes: [SchemaRecord.Property(name: "ident", number: 0, type: "String")],
                                  relationships: []),
    ])

    /// A store of a schema transaction and `transactions` inserts, one per transaction.
    func makeStore(_ dir: TemporaryDirectory, transactions: Int = 5) throws -> String {
        let store = dir.store()
        let log = try TransactionLog.open(directory: store, options: LogOptions(segmentSize: 4096))
        try log.append([.schema(payload: Self.schemaRecord.encoded())], author: "schema")
        for i in 0..<transactions {
            try log.append([.insert(entity: 1, row: UInt64(i + 1), values: [PropertyValue(0, .string("flight \(i)"))])], author: "test")
        }
        log.close()
        return store
    }

    func segment(_ store: String) -> String { store + "/" + SegmentFormat.fileName(segment: 1) }

    @Test func infoDescribesTheStore() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let result = try runTool("graphstore", ["info", store])
        #expect(result.status == 0)
        #expect(result.stdout.contains("format version:     1"))
        #expect(result.stdout.contains("segments:           1"))
        #expect(result.stdout.contains("transactions:       6 (6 operations)"))
        #expect(result.stdout.contains("last transaction:   6 at 20"))
        #expect(result.stdout.contains("bytes on disk:      4096"))
    }

    @Test func verifyPassesASoundStoreAndATornTail() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        var result = try runTool("graphstore", ["verify", store])
        #expect(result.status == 0)
        #expect(result.stdout.contains("ok: 6 transactions"), "\(result.stdout)")

        // Tear the last record (its last bytes never written): verify reports it and still
        // passes; the store is unchanged.
        let sound = try Data(contentsOf: URL(fileURLWithPath: segment(store)))
        var bytes = sound
        let end = bytes.lastIndex { $0 != 0 }!
        for i in (end - 3)...end { bytes[i] = 0 }
        try bytes.write(to: URL(fileURLWithPath: segment(store)))
        result = try runTool("graphstore", ["verify", store])
        #expect(result.status == 0)
        #expect(result.stdout.contains("torn tail that open would cut: segment 1 offset"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: segment(store))) == bytes)
    }

    /// A complete last record with a damaged byte is damage, not a torn write: verify fails and
    /// names it, and the store is unchanged.
    @Test func verifyReportsADamagedLastRecord() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment(store)))
        let end = bytes.lastIndex { $0 != 0 }!
        bytes[end - 3] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: segment(store)))
        let result = try runTool("graphstore", ["verify", store])
        #expect(result.status == 1)
        #expect((result.stdout + result.stderr).contains("a complete record, not a torn write"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: segment(store))) == bytes)
    }

    @Test func verifyNamesTheFirstProblem() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment(store)))
        bytes[SegmentFormat.headerSize + 12] ^= 0x01  // inside the first record (the schema's)
        try bytes.write(to: URL(fileURLWithPath: segment(store)))
        let result = try runTool("graphstore", ["verify", store])
        #expect(result.status == 1)
        #expect(result.stderr.contains("verify failed: log corrupt in segment 1 at offset 32: record checksum mismatch"), "\(result.stderr)")
    }

    @Test func replayWritesANewStoreAsOfATransaction() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir, transactions: 29)  // 30 with the schema's
        let copy = dir.store("copy")
        let result = try runTool("graphstore", ["replay", store, "--to", "12", "--into", copy])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("replayed 12 transaction(s)"))
        let inspection = try StoreInspection.inspect(directory: copy)
        #expect(inspection.lastTransaction == 12)
        let tooFar = try runTool("graphstore", ["replay", store, "--to", "31", "--into", dir.store("other")])
        #expect(tooFar.status == 1)
        #expect(tooFar.stderr.contains("past the end of the log (last is 30)"))
    }

    /// Verify does all that an open does: where an open of the store fails, so does verify.
    @Test func verifyFailsWhereAnOpenWould() throws {
        let dir = TemporaryDirectory()
        // Data and no schema record: no open can read it.
        let schemaless = dir.store("schemaless")
        let log = try TransactionLog.open(directory: schemaless, options: LogOptions(segmentSize: 4096))
        try log.append([.insert(entity: 1, row: 1, values: [PropertyValue(0, .string("x"))])])
        log.close()
        var result = try runTool("graphstore", ["verify", schemaless])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no schema record: no open can read it"), "\(result.stderr)")
        // A schema record that does not decode (its record sound, its payload not a schema).
        let garbled = dir.store("garbled")
        let writer = try TransactionLog.open(directory: garbled, options: LogOptions(segmentSize: 4096))
        try writer.append([.schema(payload: [9, 9, 9])])
        writer.close()
        result = try runTool("graphstore", ["verify", garbled])
        #expect(result.status == 1)
        #expect(result.stderr.contains("verify failed: "), "\(result.stderr)")
        #expect(try runTool("graphstore", ["dump", garbled]).status == 1)
    }

    @Test func helpAndBadArguments() throws {
        #expect(try runTool("graphstore", ["--help"]).status == 0)
        for command in ["info", "verify", "replay"] {
            let help = try runTool("graphstore", [command, "--help"])
            #expect(help.status == 0 && help.stdout.contains("usage: graphstore \(command)"))
        }
        for bad in [[], ["frobnicate"], ["info"], ["info", "a", "b"], ["verify", "--bogus", "x"],
                    ["replay", "x", "--into", "y"], ["replay", "x", "--to", "seven", "--into", "y"], ["replay", "x", "--to"]] {
            let result = try runTool("graphstore", bad)
            #expect(result.status == 2, "\(bad)")
            #expect(result.stderr.contains("usage:"), "\(bad)")
        }
        let missing = try runTool("graphstore", ["info", "/nonexistent/store"])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no store at /nonexistent/store"))
    }
}
