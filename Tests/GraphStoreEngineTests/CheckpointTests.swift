import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog

/// The whole committed state of a test-model store, as text: equal text, equal stores.
func describeState(_ container: ModelContainer) throws -> String {
    let context = ModelContext(container)
    var lines: [String] = []
    for airport in try context.fetch(FetchDescriptor<Airport>(sortBy: [SortDescriptor(\.icao)])) {
        lines.append("airport \(airport.icao) \(airport.name) \(airport.latitude) from=\(airport.flightsFrom.map(\.ident)) to=\(airport.flightsTo.map(\.ident))")
    }
    for airline in try context.fetch(FetchDescriptor<Airline>(sortBy: [SortDescriptor(\.code)])) {
        lines.append("airline \(airline.code) \(airline.name) \(airline.flights.map(\.ident))")
    }
    for flight in try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)])) {
        lines.append("flight \(flight.persistentModelID) \(flight.ident) \(flight.routeDistance) \(flight.status) \(String(describing: flight.actualOff)) \(flight.origin?.icao ?? "-") \(flight.destination?.icao ?? "-") \(flight.airline?.code ?? "-")")
    }
    return lines.joined(separator: "\n")
}

/// Commits `count` small random transactions (inserts, updates, relinks, deletes) over Airport/Airline/Flight.
func commitRandomChanges(_ container: ModelContainer, count: Int, seed: UInt64, author: String = "writer") throws {
    var random = SplitMix64(seed: seed)
    let context = ModelContext(container)
    context.author = author
    for step in 0..<count {
        let airports = try context.fetch(FetchDescriptor<Airport>())
        let flights = try context.fetch(FetchDescriptor<Flight>())
        // (`where` binds to the last pattern only, so each case has one.)
        switch random.next() % 5 {
        case 0 where airports.count < 12 || airports.isEmpty:
            context.insert(Airport(icao: "K\(random.next() % 1000)", name: "Airport \(step)"))
        case 1 where !airports.isEmpty, 2 where !airports.isEmpty:
            let flight = Flight(ident: "GS\(random.next() % 5000)")
            flight.routeDistance = Int(random.next() % 3000)
            flight.origin = airports[Int(random.next() % UInt64(airports.count))]
            flight.destination = airports[Int(random.next() % UInt64(airports.count))]
            context.insert(flight)
        case 3 where !flights.isEmpty:
            let flight = flights[Int(random.next() % UInt64(flights.count))]
            flight.routeDistance += 7
            flight.status = .enroute
            if !airports.isEmpty { flight.destination = airports[Int(random.next() % UInt64(airports.count))] }
        case 4 where !flights.isEmpty:
            context.delete(flights[Int(random.next() % UInt64(flights.count))])
        default:
            let code = "A\(random.next() % 8)"
            let airline = try context.findOrInsert(\Airline.code, equals: code) { Airline(code: code) }
            if let flight = flights.first { flight.airline = airline }
        }
        try context.save()
    }
}

func maintainedConfiguration(_ url: URL, _ policy: MaintenancePolicy = .manual, readOnly: Bool = false,
                             asOf: UInt64? = nil, segmentSize: UInt64 = 4 << 10) -> ModelConfiguration {
    var configuration = ModelConfiguration(url: url, allowsSave: !readOnly, durability: .none, autosaveEnabled: false, segmentSize: segmentSize)
    configuration.maintenance = policy
    configuration.asOfTransaction = asOf
    return configuration
}

@Suite struct CheckpointTests {
    let types: [any PersistentModel.Type] = [Airport.self, Airline.self, Flight.self]

    @Test func openLoadsTheCheckpointAndReplaysOnlyTheLogAfterIt() throws {
        let store = TemporaryStore()
        var expected = ""
        var checkpointAt: UInt64 = 0
        do {
            let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            try commitRandomChanges(container, count: 60, seed: 1)
            checkpointAt = try container.checkpoint().transaction
            try commitRandomChanges(container, count: 20, seed: 2)
            expected = try describeState(container)
            container.close()
        }
        let reopened = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
        #expect(reopened.openReport?.checkpoint == checkpointAt)
        #expect(reopened.openReport?.skippedCheckpoints == [])
        // The checkpoint started a new segment: the open read the twenty commits after it and
        // no record before.
        #expect(reopened.openReport?.transactionsRead == 20)
        #expect(try describeState(reopened) == expected)
        // Identifiers keep coming after the highest row the checkpoint held.
        let context = ModelContext(reopened)
        let airport = Airport(icao: "ZZZZ")
        context.insert(airport)
        try context.save()
        let rows = try context.fetch(FetchDescriptor<Airport>()).map(\.persistentModelID.row)
        #expect(Set(rows).count == rows.count)
    }

    @Test func aDamagedCheckpointFallsBackToTheOlderOneOrTheLogAndSaysSo() throws {
        let store = TemporaryStore()
        var expected = ""
        do {
            let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            try commitRandomChanges(container, count: 30, seed: 3)
            try container.checkpoint()
            try commitRandomChanges(container, count: 30, seed: 4)
            try container.checkpoint()
            try commitRandomChanges(container, count: 5, seed: 5)
            expected = try describeState(container)
            container.close()
        }
        let checkpoints = try CheckpointFile.list(directory: store.url.path, fileIO: PosixFileIO())
        #expect(checkpoints.count == 2)
        // Flip a byte in the middle of the newest checkpoint.
        let newest = store.url.appendingPathComponent(CheckpointFile.fileName(transaction: checkpoints[1]))
        var bytes = try Data(contentsOf: newest)
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: newest)
        do {
            let reopened = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            #expect(reopened.openReport?.checkpoint == checkpoints[0])
            #expect(reopened.openReport?.skippedCheckpoints.count == 1)
            #expect(reopened.openReport?.skippedCheckpoints.first?.contains("checksum") == true)
            #expect(try describeState(reopened) == expected)
            reopened.close()
        }
        // Both damaged: the log still reaches back to the start, so open replays all of it.
        let older = store.url.appendingPathComponent(CheckpointFile.fileName(transaction: checkpoints[0]))
        try Data("not a checkpoint".utf8).write(to: older)
        let reopened = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
        #expect(reopened.openReport?.checkpoint == nil)
        #expect(reopened.openReport?.skippedCheckpoints.count == 2)
        #expect(try describeState(reopened) == expected)
    }

    @Test func compactionDropsCoveredSegmentsAndKeepsEveryRow() throws {
        let store = TemporaryStore()
        var expected = ""
        var summary: CompactionSummary?
        do {
            let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            try commitRandomChanges(container, count: 150, seed: 6)
            let segmentsBefore = try listSegments(fileIO: PosixFileIO(), directory: store.url.path).count
            #expect(segmentsBefore > 2)
            summary = try container.compact(retention: HistoryRetention.none)
            #expect(summary!.segmentsRemoved.count == segmentsBefore)
            #expect(summary!.bytesAfter < summary!.bytesBefore)
            try commitRandomChanges(container, count: 10, seed: 7)
            expected = try describeState(container)
            // History before the compaction is gone, after it is kept.
            let storeIdentifier = container.currentHistoryToken.storeIdentifier
            #expect(throws: StorageError.self) { try container.fetchHistory(after: DefaultHistoryToken(transaction: 1, storeIdentifier: storeIdentifier)) }
            let after = try container.fetchHistory(after: DefaultHistoryToken(transaction: summary!.checkpoint.transaction, storeIdentifier: storeIdentifier))
            #expect(after.count == Int(container.lastTransaction - summary!.checkpoint.transaction))
            #expect(after.count > 0)
            container.close()
        }
        let reopened = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
        #expect(reopened.openReport?.checkpoint == summary?.checkpoint.transaction)
        #expect(try describeState(reopened) == expected)
    }

    @Test func retentionDecidesWhatHistoryCompactionKeeps() throws {
        for (retention, keepsAll) in [(HistoryRetention.all, true), (.window(3600), true), (.window(0), false), (.none, false)] {
            let store = TemporaryStore()
            let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            try commitRandomChanges(container, count: 80, seed: 8)
            let before = try container.fetchHistory(after: nil).count
            let summary = try container.compact(retention: retention)
            #expect(summary.segmentsRemoved.isEmpty == keepsAll, "\(retention)")
            if keepsAll {
                #expect(try container.fetchHistory(after: nil).count == before, "\(retention)")
            } else {
                // A token from before the compaction cannot be served; all that is kept can.
                let start = DefaultHistoryToken(transaction: 0, storeIdentifier: container.currentHistoryToken.storeIdentifier)
                #expect(throws: StorageError.historyCompacted(requested: 0, oldestAvailable: try container.store!.historyStart())) {
                    try container.fetchHistory(after: start)
                }
                #expect(try container.fetchHistory(after: nil).count < before)
            }
            let expected = try describeState(container)
            container.close()
            let reopened = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            #expect(try describeState(reopened) == expected, "\(retention)")
        }
    }

    @Test func theOnlyCheckpointDamagedAfterCompactionIsATypedError() throws {
        let store = TemporaryStore()
        do {
            let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            try commitRandomChanges(container, count: 60, seed: 9)
            try container.compact(retention: HistoryRetention.none)
            container.close()
        }
        let checkpoint = try #require(try CheckpointFile.list(directory: store.url.path, fileIO: PosixFileIO()).last)
        let path = store.url.appendingPathComponent(CheckpointFile.fileName(transaction: checkpoint))
        var bytes = try Data(contentsOf: path)
        bytes[60] ^= 1
        try bytes.write(to: path)
        do {
            _ = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            Issue.record("opened a store whose only checkpoint is damaged")
        } catch let error as StorageError {
            guard case let .checkpointUnavailable(start, problems) = error else { Issue.record("\(error)"); return }
            #expect(start == checkpoint)
            #expect(problems.count == 1)
        }
    }

    @Test func automaticCheckpointsAndCompactionRunInTheBackground() async throws {
        let store = TemporaryStore()
        let policy = MaintenancePolicy(checkpointAfterLogBytes: 8 << 10, compactAtDeadSpaceRatio: 0.3, retention: .none)
        let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url, policy))
        try commitRandomChanges(container, count: 200, seed: 10)
        var checkpoints: [UInt64] = []
        for _ in 0..<100 {
            checkpoints = try CheckpointFile.list(directory: store.url.path, fileIO: PosixFileIO())
            if !checkpoints.isEmpty, try container.store!.historyStart() > 0 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!checkpoints.isEmpty)
        #expect(try container.store!.historyStart() > 0, "compaction dropped the oldest segments")
        #expect(container.store!.lastMaintenanceError == nil)
        let expected = try describeState(container)
        container.close()
        let reopened = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
        #expect(reopened.openReport?.checkpoint != nil)
        #expect(try describeState(reopened) == expected)
    }

    @Test func aCheckpointWrittenUnderAnOlderSchemaLoadsIntoTheNewOne() throws {
        let store = TemporaryStore()
        do {
            let container = try ModelContainer(for: [PilotV1.Pilot.self], configurations: maintainedConfiguration(store.url))
            let context = ModelContext(container)
            for i in 0..<5 {
                let pilot = PilotV1.Pilot()
                pilot.license = "L\(i)"
                pilot.callsign = "C\(i)"
                context.insert(pilot)
            }
            try context.save()
            try container.compact(retention: HistoryRetention.none)
            container.close()
        }
        let container = try ModelContainer(for: [PilotV2.Pilot.self], configurations: maintainedConfiguration(store.url))
        #expect(container.openReport?.checkpoint != nil)
        let pilots = try ModelContext(container).fetch(FetchDescriptor<PilotV2.Pilot>(sortBy: [SortDescriptor(\.license)]))
        #expect(pilots.map(\.handle) == ["C0", "C1", "C2", "C3", "C4"])
        #expect(pilots.map(\.hours) == [0, 0, 0, 0, 0])
        // Lookups by the unique key work on the restored index.
        #expect(try ModelContext(container).fetchUnique(\PilotV2.Pilot.license, equals: "L3")?.handle == "C3")
    }
}

@Suite struct CheckpointFileDamageTests {
    @Test func everyBitFlipAndTruncationOfACheckpointIsRefusedWithATypedError() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: [Airport.self, Airline.self, Flight.self], configurations: maintainedConfiguration(store.url))
        try commitRandomChanges(container, count: 12, seed: 50)
        let summary = try container.checkpoint()
        let original = try Data(contentsOf: URL(fileURLWithPath: summary.path))
        let probe = store.url.appendingPathComponent("probe.gsckpt").path
        let io = PosixFileIO()
        func refused(_ bytes: Data, _ what: String) throws {
            try bytes.write(to: URL(fileURLWithPath: probe))
            do {
                let contents = try CheckpointFile.read(path: probe, fileIO: io)
                let image = try CheckpointCodec.decode(contents, schema: container.schema)
                try CheckpointCodec.validateTargets(image, schema: container.schema)
                Issue.record("\(what): accepted")
            } catch is CheckpointFile.Problem {
            } catch is ByteReader.Error {
            } catch {
                Issue.record("\(what): untyped error \(error)")
            }
        }
        #expect(original.count > 200)
        for offset in 0..<original.count {
            var flipped = original
            flipped[offset] ^= 1 << UInt8(offset % 8)
            try refused(flipped, "flip at \(offset)")
        }
        for length in stride(from: 0, to: original.count, by: 7) {
            try refused(original.prefix(length), "truncated to \(length)")
        }
    }
}

/// Writes that take 20 ms each: a checkpoint written through these is slow enough to commit beside.
final class SlowWrites: PassThroughHandle, @unchecked Sendable {
    override func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Int {
        Thread.sleep(forTimeInterval: 0.02)
        return try base.write(bytes, at: offset)
    }
}

@Suite struct CheckpointConcurrencyTests {
    @Test func commitsGoOnWhileACheckpointIsWritten() throws {
        let store = TemporaryStore()
        var configuration = maintainedConfiguration(store.url)
        // Only checkpoint files (written under a temporary name) are slow.
        configuration.fileIO = PassThroughFileIO { path, handle in path.hasSuffix(".gsckpt.tmp") ? SlowWrites(handle) : handle }
        let container = try ModelContainer(for: [Airport.self, Airline.self, Flight.self], configurations: configuration)
        try commitRandomChanges(container, count: 30, seed: 60)
        let finished = Locked(false)
        let checkpointed = Locked<UInt64>(0)
        let writer = Thread {
            let summary = try? container.checkpoint()
            checkpointed.withLock { $0 = summary?.transaction ?? 0 }
            finished.withLock { $0 = true }
        }
        writer.start()
        Thread.sleep(forTimeInterval: 0.05)  // the checkpoint has captured its image and is writing
        let before = container.lastTransaction
        try commitRandomChanges(container, count: 20, seed: 61)
        // Twenty saves went through while the checkpoint (dozens of slow writes) was still going.
        #expect(container.lastTransaction > before)
        #expect(finished.withLock { $0 } == false)
        while !finished.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.01) }
        let at = checkpointed.withLock { $0 }
        #expect(at > 0 && at <= before, "the checkpoint is as of the transaction it captured")
        let expected = try describeState(container)
        container.close()
        let reopened = try ModelContainer(for: [Airport.self, Airline.self, Flight.self], configurations: maintainedConfiguration(store.url))
        #expect(reopened.openReport?.checkpoint == at)
        #expect(try describeState(reopened) == expected)
    }
}

/// Reads that fail once, the first time more than a segment header is read through any of
/// them, as if a compaction had just removed the file (the reader listed it a moment before).
final class VanishOnceReads: PassThroughHandle, @unchecked Sendable {
    let vanished: Locked<Bool>
    init(_ base: any FileHandleIO, vanished: Locked<Bool>) {
        self.vanished = vanished
        super.init(base)
    }
    override func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        if count > SegmentFormat.headerSize, vanished.withLock({ done in defer { done = true }; return !done }) {
            throw StorageError.io(operation: "read", path: path, errno: 2)
        }
        return try base.read(at: offset, count: count)
    }
}

/// A file system whose log segments vanish once (see VanishOnceReads); `vanished` tells whether it happened.
func vanishingSegmentFileIO(_ vanished: Locked<Bool>) -> PassThroughFileIO {
    PassThroughFileIO { path, handle in path.hasSuffix(".gslog") ? VanishOnceReads(handle, vanished: vanished) : handle }
}

@Suite struct ReaderBesideCompactionTests {
    let types: [any PersistentModel.Type] = [Airport.self, Airline.self, Flight.self]

    @Test func aReaderRetriesWhenAFileItListedVanishes() throws {
        let store = TemporaryStore()
        let writer = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
        try commitRandomChanges(writer, count: 40, seed: 70)
        let expected = try describeState(writer)
        var configuration = maintainedConfiguration(store.url, readOnly: true)
        let vanished = Locked(false)
        configuration.fileIO = vanishingSegmentFileIO(vanished)
        let reader = try ModelContainer(for: types, configurations: configuration)
        #expect(vanished.value, "the simulated removal happened")
        #expect(try describeState(reader) == expected)
        let vanishedForInspection = Locked(false)
        #expect(try StoreInspection.inspect(directory: store.url.path, fileIO: vanishingSegmentFileIO(vanishedForInspection)).lastTransaction
                == writer.lastTransaction)
        #expect(vanishedForInspection.value)
    }

    @Test func readersOpenWhileTheWriterCompactsInALoop() throws {
        let store = TemporaryStore()
        let writer = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
        try commitRandomChanges(writer, count: 40, seed: 71)
        let stop = Locked(false)
        let failures = Locked<[String]>([])
        let compactor = Thread {
            var round = 0
            while !stop.value {
                do {
                    try commitRandomChanges(writer, count: 3, seed: 100 + UInt64(round))
                    try writer.compact(retention: HistoryRetention.none)
                } catch { failures.withLock { $0.append("writer: \(error)") } }
                round += 1
            }
        }
        compactor.start()
        for _ in 0..<25 {
            do {
                let reader = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url, readOnly: true))
                _ = try describeState(reader)
                _ = try StoreInspection.inspect(directory: store.url.path)
            } catch { failures.withLock { $0.append("reader: \(error)") } }
        }
        stop.withLock { $0 = true }
        while !compactor.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(failures.value.isEmpty, "\(failures.value)")
    }
}
