import EnrouteModels
import Foundation
import Testing

@Suite struct EnrouteToolTests {
    func enroute(_ store: String, _ arguments: [String]) throws -> ProcessResult {
        try runTool("enroute", arguments + ["--store", store])
    }

    func jsonArray(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test func theDemoLoadsTheSampleOnceAndRunsTwice() throws {
        let dir = TemporaryDirectory()
        let first = try enroute(dir.store(), ["demo"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("flights:  238 inserted, 0 updated, 2 skipped"))
        #expect(first.stdout.contains("238 flights"))
        #expect(first.stdout.contains("Chicago O'Hare arrivals board"))
        let second = try enroute(dir.store(), [])  // no command: the demo
        #expect(second.status == 0)
        #expect(second.stdout.contains("already holds data") && second.stdout.contains("238 flights"))
    }

    @Test func theDemoUsesTheDefaultStoreUnderHome() throws {
        let home = TemporaryDirectory()
        let result = try runTool("enroute", [], environment: ["HOME": home.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.path + "/.graphstore/enroute/LOCK"))
    }

    @Test func loadAndQueryFromTheCommandLine() throws {
        let dir = TemporaryDirectory()
        let load = try runTool("enroute", ["--store", dir.store(), "load"])  // --store before the command
        #expect(load.status == 0 && load.stdout.contains("238 inserted"))
        // A load that changed anything ends with a checkpoint; one that changed nothing writes none.
        func checkpoints() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: dir.store()).filter { $0.hasPrefix("checkpoint-") }
        }
        let afterLoad = try checkpoints()
        #expect(afterLoad.count == 1)
        let again = try enroute(dir.store(), ["load"])
        #expect(again.stdout.contains("flights:  0 inserted, 0 updated, 2 skipped"))
        #expect(try checkpoints() == afterLoad)

        let table = try enroute(dir.store(), ["flights", "--to", "ksfo", "--enroute", "--sort", "distance", "--desc"])
        #expect(table.status == 0)
        #expect(table.stdout.hasPrefix("IDENT"))
        let json = try jsonArray(try enroute(dir.store(), ["flights", "--to", "KSFO", "--enroute", "--sort", "distance", "--desc", "--json"]).stdout)
        #expect(table.stdout.contains("\(json.count) flight(s)"))
        #expect(json.allSatisfy { $0["destination"] as? String == "KSFO" && !($0["actualOff"] is NSNull) && $0["actualOn"] is NSNull })
        let distances = json.compactMap { $0["routeDistance"] as? Int }
        #expect(distances == distances.sorted(by: >) && !distances.isEmpty)
        for key in ["ident", "origin", "destination", "airline", "scheduledOff", "estimatedOff", "actualOff", "scheduledOn",
                    "estimatedOn", "actualOn", "routeDistance", "progressPercent", "status"] {
            #expect(json[0][key] != nil, "\(key)")
        }
        let limited = try jsonArray(try enroute(dir.store(), ["flights", "--airline", "UAL", "--limit", "3", "--json"]).stdout)
        #expect(limited.count == 3 && limited.allSatisfy { $0["airline"] as? String == "UAL" })

        let airports = try jsonArray(try enroute(dir.store(), ["airports", "--search", "zur", "--json"]).stdout)
        #expect(airports.map { $0["icao"] as? String } == ["LSZH"])
        let departing = try enroute(dir.store(), ["airports", "--departing"])
        #expect(departing.status == 0 && departing.stdout.contains("airport(s)"))
        let airlines = try jsonArray(try enroute(dir.store(), ["airlines", "--json"]).stdout)
        #expect(airlines.count == 12)
        let board = try jsonArray(try enroute(dir.store(), ["board", "KORD", "--arrivals", "--json"]).stdout)
        #expect(!board.isEmpty && board.allSatisfy { $0["destination"] as? String == "KORD" })
        let arrivals = board.compactMap { $0["arrival"] as? String }
        #expect(arrivals == arrivals.sorted())
        let departures = try enroute(dir.store(), ["board", "KSFO", "--departures"])
        #expect(departures.status == 0 && departures.stdout.hasPrefix("KSFO departures"))
    }

    /// Started with standard output closed, a command that prints while its store is open (the
    /// flight table, tens of kilobytes) neither writes it into a store file that took the
    /// descriptor's number (the lock file, opened first) nor reports success: exit 1, the message.
    @Test func aClosedStandardOutputIsAFailureNotAStoreFile() throws {
        let dir = TemporaryDirectory()
        #expect(try enroute(dir.store(), ["load"]).status == 0)
        let tool = productsDirectory.appendingPathComponent("enroute").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exec \"$0\" --store \"$1\" flights >&- 2>\"$2\"", tool, dir.store(), dir.path + "/stderr"]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        let stderr = try String(contentsOfFile: dir.path + "/stderr", encoding: .utf8)
        #expect(stderr.contains("enroute: writing standard output failed: Bad file descriptor"), "\(stderr)")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.store()) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: dir.store() + "/" + name))
            #expect(bytes.firstRange(of: Data("flight(s)".utf8)) == nil && bytes.firstRange(of: Data("IDENT".utf8)) == nil, "\(name)")
        }
        #expect(try runTool("graphstore", ["verify", dir.store()]).status == 0)
    }

    /// Output written to a full disk, JSON or a table: exit 1, naming standard output and the
    /// system's reason.
    @Test func outputIntoAFullDiskFailsSayingWhere() throws {
        let dir = TemporaryDirectory()
        #expect(try enroute(dir.store(), ["load"]).status == 0)
        for command in [["flights", "--json"], ["airports", "--json"], ["flights"], ["airlines"], ["status"], ["board", "KSFO", "--departures"]] {
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            let result = try runTool("enroute", command + ["--store", dir.store()], standardOutput: full)
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr.contains("writing standard output failed: No space left on device"), "\(result.stderr)")
        }
    }

    @Test func aRefusedFileExitsNonZeroAndNamesWhere() throws {
        let dir = TemporaryDirectory()
        let bad = dir.path + "/bad.json"
        try Data("{\"arrivals\": [], \"departures\": [], \"scheduled_arrivals\": [], \"scheduled_departures\": [], \"num_pages\": \"one\"}".utf8)
            .write(to: URL(fileURLWithPath: bad))
        let result = try enroute(dir.store(), ["load", bad])
        #expect(result.status == 1)
        #expect(result.stderr.contains("refused \(bad): $.num_pages: expected a number"), "\(result.stderr)")
        let count = try jsonArray(try enroute(dir.store(), ["flights", "--json"]).stdout)
        #expect(count.isEmpty)
    }

    @Test func generateWritesFilesTheLoaderReads() throws {
        let dir = TemporaryDirectory()
        let out = dir.path + "/gen"
        let result = try enroute(dir.store(), ["generate", "--flights", "500", "--airports", "30", "--airlines", "12", "--seed", "3", "--out", out])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted().map { out + "/" + $0 }
        let load = try enroute(dir.store(), ["load"] + files)
        #expect(load.stdout.contains("flights:  500 inserted"), "\(load.stdout)")
    }

    @Test func badArgumentsPrintUsageAndHelpWorksEverywhere() throws {
        let dir = TemporaryDirectory()
        for command in ["demo", "load", "flights", "airports", "airlines", "board", "generate", "status"] {
            let help = try enroute(dir.store(), [command, "--help"])
            #expect(help.status == 0 && help.stdout.contains("usage: enroute \(command)"), "\(command)")
        }
        #expect(try runTool("enroute", ["--help"]).stdout.contains("commands:"))
        let bad: [[String]] = [["frobnicate"], ["flights", "--sort", "speed"], ["flights", "--limit", "x"], ["flights", "--arrivals"],
                               ["board"], ["board", "KSFO"], ["board", "KSFO", "--arrivals", "--departures"], ["generate", "--out", "x"],
                               ["airports", "--bogus"], ["--store"]]
        for arguments in bad {
            let result = try runTool("enroute", arguments + (arguments == ["--store"] ? [] : ["--store", dir.store()]))
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains("usage: enroute"), "\(arguments): \(result.stderr)")
        }
        for extra in [["status", "now"], ["airlines", "all"]] {
            let result = try enroute(dir.store(), extra)
            #expect(result.status == 2 && result.stderr.contains("unexpected \(extra[1])"), "\(extra): \(result.stderr)")
        }
        let twice = try runTool("enroute", ["status", "--store", dir.store("a"), "--store", dir.store("b")])
        #expect(twice.status == 2 && twice.stderr.contains("--store is given more than once") && twice.stderr.contains("usage: enroute"))
        #expect(try enroute(dir.store(), ["load"]).status == 0)
        let unknownAirport = try enroute(dir.store(), ["board", "KXXX", "--arrivals"])
        #expect(unknownAirport.status == 1 && unknownAirport.stderr.contains("no airport KXXX"))
    }

    /// Commands that only read open the store read-only: beside a writer holding it, and never
    /// creating a store where --store points at nothing.
    @Test func readingCommandsOpenReadOnly() throws {
        let dir = TemporaryDirectory()
        #expect(try enroute(dir.store(), ["load"]).status == 0)
        let mistyped = dir.store("typo")
        for command in [["status"], ["flights"], ["airports"], ["airlines"], ["board", "KSFO", "--arrivals"]] {
            let result = try enroute(mistyped, command)
            #expect(result.status == 1 && result.stderr.contains("no store at \(mistyped)"), "\(command): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: mistyped))
        // A writer holds the store (as a running load does).
        let writer = try ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                        configurations: ModelConfiguration(url: URL(fileURLWithPath: dir.store()), autosaveEnabled: false))
        defer { writer.close() }
        for command in [["status"], ["flights", "--to", "KSFO"], ["airports"], ["airlines"], ["board", "KSFO", "--arrivals"]] {
            let result = try enroute(dir.store(), command)
            #expect(result.status == 0, "\(command): \(result.stderr)")
        }
        let refused = try enroute(dir.store(), ["load"])
        #expect(refused.status == 1 && refused.stderr.contains("locked for writing"), "\(refused.stderr)")
    }
}
