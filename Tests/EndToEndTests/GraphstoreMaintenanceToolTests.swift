import Foundation
import Testing
import GraphStore
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog

/// The maintenance subcommands end to end on a real Enroute store (the demo's sample load).
@Suite struct GraphstoreMaintenanceToolTests {
    func enrouteStore(_ dir: TemporaryDirectory) throws -> String {
        let store = dir.store()
        let demo = try runTool("enroute", ["--store", store])
        #expect(demo.status == 0, "\(demo.stderr)")
        return store
    }

    func dumpLines(_ store: String, _ extra: [String] = []) throws -> [String] {
        let dump = try runTool("graphstore", ["dump", store] + extra)
        #expect(dump.status == 0, "\(dump.stderr)")
        return dump.stdout.split(separator: "\n").map(String.init)
    }

    @Test func infoHistoryCheckpointDumpExportImportCompactVerify() throws {
        let dir = TemporaryDirectory()
        let store = try enrouteStore(dir)

        let info = try runTool("graphstore", ["info", store])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("schema versions:    1"))
        #expect(info.stdout.contains("Flight(13+3)"))
        #expect(info.stdout.contains("history kept:       all transactions"))

        let history = try runTool("graphstore", ["history", store, "--limit", "2"])
        #expect(history.status == 0)
        #expect(history.stdout.split(separator: "\n").count == 3, "\(history.stdout)")

        let checkpoint = try runTool("graphstore", ["checkpoint", store])
        #expect(checkpoint.status == 0, "\(checkpoint.stderr)")
        #expect(checkpoint.stdout.contains("checkpoint at transaction"))
        // The app opens through the checkpoint and sees the same flights.
        let flights = try runTool("enroute", ["flights", "--to", "KSFO", "--store", store])
        #expect(flights.status == 0, "\(flights.stderr)")

        let airports = try dumpLines(store, ["--entity", "Airport"])
        #expect(airports.count == 24)
        for line in airports {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["entity"] as? String == "Airport")
            #expect((object?["attributes"] as? [String: Any])?["icao"] is String)
        }
        let everything = try dumpLines(store)
        #expect(everything.count == 24 + 12 + 238)

        // Export, import into a new store: the same rows, numbers and relationships.
        let file = dir.path + "/export.json"
        let export = try runTool("graphstore", ["export", store, "--output", file])
        #expect(export.status == 0, "\(export.stderr)")
        let copy = dir.store("copy")
        let imported = try runTool("graphstore", ["import", file, "--into", copy])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("imported 274 row(s)"))
        #expect(Set(try dumpLines(copy)) == Set(everything))
        // The app can open the imported store with its models.
        let copied = try runTool("enroute", ["status", "--store", copy])
        #expect(copied.status == 0, "\(copied.stderr)")
        #expect(copied.stdout.contains("238"), "\(copied.stdout)")

        let compact = try runTool("graphstore", ["compact", store, "--retention", "none"])
        #expect(compact.status == 0, "\(compact.stderr)")
        #expect(compact.stdout.contains("removed 1 segment(s)"), "\(compact.stdout)")
        let verify = try runTool("graphstore", ["verify", store])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.contains("loads from the checkpoint at"), "\(verify.stdout)")
        #expect(Set(try dumpLines(store)) == Set(everything))
        let after = try runTool("graphstore", ["info", store])
        #expect(after.stdout.contains("history kept:       transactions after"))
        #expect(after.stdout.contains("schema versions:    1"), "the schema history survives compaction")

        // Replay still works from the checkpoint.
        let last = try StoreInspection.inspect(directory: store).lastTransaction
        let replay = try runTool("graphstore", ["replay", store, "--to", "\(last)", "--into", dir.store("replayed")])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(Set(try dumpLines(dir.store("replayed"))) == Set(everything))
        let tooEarly = try runTool("graphstore", ["replay", store, "--to", "1", "--into", dir.store("early")])
        #expect(tooEarly.status == 1)
        #expect(tooEarly.stderr.contains("no longer kept"), "\(tooEarly.stderr)")
    }

    @Test func badInputIsRefusedWithAClearError() throws {
        let dir = TemporaryDirectory()
        let store = try enrouteStore(dir)
        let junk = dir.path + "/junk.json"
        try Data("{\"format\": \"graphstore-export\", \"version\": 1, \"schema\": {\"entities\": 3}}".utf8).write(to: URL(fileURLWithPath: junk))
        let refused = try runTool("graphstore", ["import", junk, "--into", dir.store("never")])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("$.schema.entities"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.store("never")))
        try Data("not json".utf8).write(to: URL(fileURLWithPath: junk))
        #expect(try runTool("graphstore", ["import", junk, "--into", dir.store("never")]).stderr.contains("not JSON"))

        let unknown = try runTool("graphstore", ["dump", store, "--entity", "Gate"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("no entity Gate"))
        #expect(try runTool("graphstore", ["compact", store, "--retention", "forever"]).status == 2)
        #expect(try runTool("graphstore", ["history", store, "--limit", "0"]).status == 2)
        #expect(try runTool("graphstore", ["import", junk]).status == 2)
        for command in ["checkpoint", "compact", "history", "dump", "export", "import"] {
            let help = try runTool("graphstore", [command, "--help"])
            #expect(help.status == 0 && help.stdout.contains("usage: graphstore \(command)"))
        }
        // A second writer is refused while another holds the lock (the tool names the holder).
        let missing = try runTool("graphstore", ["checkpoint", dir.store("absent")])
        #expect(missing.status == 1)
    }
}

/// Verify fails wherever an open would, on compacted stores too.
@Suite struct VerifyTellsTheTruthTests {
    /// An Enroute store compacted with no history kept: its log starts after transaction 1 and
    /// only its checkpoint holds the schema and the rows before.
    func compactedStore(_ dir: TemporaryDirectory) throws -> String {
        let store = dir.store()
        #expect(try runTool("enroute", ["--store", store]).status == 0)
        let compact = try runTool("graphstore", ["compact", store, "--retention", "none"])
        #expect(compact.status == 0, "\(compact.stderr)")
        #expect(try StoreInspection.inspect(directory: store).logStart > 0)
        return store
    }

    func checkpoints(_ store: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store).filter { $0.hasSuffix(".gsckpt") }.map { store + "/" + $0 }
    }

    @Test func aCompactedStoreWithoutItsCheckpointFailsVerify() throws {
        let dir = TemporaryDirectory()
        let store = try compactedStore(dir)
        for path in try checkpoints(store) { try FileManager.default.removeItem(atPath: path) }
        let open = try runTool("enroute", ["status", "--store", store])
        #expect(open.status == 1)
        let verify = try runTool("graphstore", ["verify", store])
        #expect(verify.status == 1)
        #expect(verify.stderr.contains("no usable checkpoint covers it"), "\(verify.stderr)")
    }

    @Test func aCompactedStoreWithADamagedCheckpointHeaderFailsVerify() throws {
        let dir = TemporaryDirectory()
        let store = try compactedStore(dir)
        for path in try checkpoints(store) {
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            bytes[3] ^= 0x20  // the magic
            try bytes.write(to: URL(fileURLWithPath: path))
        }
        #expect(try runTool("enroute", ["status", "--store", store]).status == 1)
        let verify = try runTool("graphstore", ["verify", store])
        #expect(verify.status == 1)
        #expect(verify.stderr.contains("verify failed:"), "\(verify.stderr)")
    }

    @Test func aSoundCompactedStorePassesVerify() throws {
        let dir = TemporaryDirectory()
        let store = try compactedStore(dir)
        let verify = try runTool("graphstore", ["verify", store])
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stdout.contains("from the checkpoint at"))
    }
}

/// The tools on stores holding what a store file must never be.
@Suite struct ToolFileSafetyTests {
    /// A FIFO named like the next segment: every tool that reads the store refuses it at once
    /// (each used to wait forever for a writer to open the FIFO).
    @Test func toolsRefuseAFIFONamedLikeASegment() throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        #expect(try runTool("enroute", ["--store", store]).status == 0)
        let next = try listSegments(fileIO: PosixFileIO(), directory: store).max()! + 1
        #expect(mkfifo(store + "/" + SegmentFormat.fileName(segment: next), 0o600) == 0)
        for command in [["graphstore", "verify", store], ["graphstore", "info", store], ["graphstore", "dump", store],
                        ["enroute", "status", "--store", store]] {
            let result = try runTool(command[0], Array(command.dropFirst()), timeout: 30)
            #expect(result.status == 1, "\(command): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("is a FIFO, not a regular file"), "\(command): \(result.stderr)")
        }
    }

    /// An export to standard output is the export to a file, byte for byte; into a full disk it
    /// fails with exit 1, naming standard output and the system's reason, as every command that
    /// prints does.
    @Test func anExportToStandardOutputMatchesTheFileAndAFullDiskIsNamed() throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        #expect(try runTool("enroute", ["--store", store]).status == 0)
        let output = dir.path + "/export.json"
        #expect(try runTool("graphstore", ["export", store, "--output", output]).status == 0)
        let printed = try runTool("graphstore", ["export", store])
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(Data(printed.stdout.utf8) == (try Data(contentsOf: URL(fileURLWithPath: output))))
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let refused = try runTool("graphstore", ["export", store], standardOutput: full)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("writing standard output failed: No space left on device"), "\(refused.stderr)")
        // The commands that print lines: the same.
        for command in [["dump", store], ["info", store], ["verify", store], ["history", store]] {
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            let lost = try runTool("graphstore", command, standardOutput: full)
            #expect(lost.status == 1, "\(command)")
            #expect(lost.stderr.contains("writing standard output failed: No space left on device"), "\(command): \(lost.stderr)")
        }
    }

    /// An export holds all of a store's data: it is created readable by its owner only.
    @Test func anExportIsCreatedOwnerOnly() throws {
        let dir = TemporaryDirectory()
        let store = dir.store()
        #expect(try runTool("enroute", ["--store", store]).status == 0)
        let output = dir.path + "/export.json"
        let previous = umask(0)
        defer { umask(previous) }
        let result = try runTool("graphstore", ["export", store, "--output", output])
        #expect(result.status == 0, "\(result.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: output)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) is [String: Any])
    }
}
