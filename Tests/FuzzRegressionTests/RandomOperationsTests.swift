import Foundation
import Testing
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog
@testable import GraphStoreFuzzTargets

/// Logs of well-formed records whose operations make no sense together — rows inserted twice,
/// updated or linked before they exist, row 0, relationships and properties the schema does
/// not have, values of the wrong type — as a damaged or hostile writer could leave them. The
/// byte fuzzer rarely builds such a record with its checksum right; here every record is one.
/// Each log must open without a crash, and the graph it opens to must keep both sides of each
/// relationship in step; a writer's graph must survive a checkpoint and a compaction unchanged
/// (reopened from them) and pass `verify`. `GRAPHSTORE_RANDOM_LOG_ROUNDS` runs more logs
/// (default 1,000).
@Suite struct RandomOperationsTests {
    static let rounds = Int(ProcessInfo.processInfo.environment["GRAPHSTORE_RANDOM_LOG_ROUNDS"] ?? "") ?? 1_000
    static let airport = FuzzSeeds.schema.entity(named: "Airport")!, flight = FuzzSeeds.schema.entity(named: "Flight")!
    /// departures (to-many), origin (its to-one inverse), a number that is an attribute, one the schema lacks.
    static let relationships: [PropertyNumber] = [4, 15, 3, 99]

    /// A small segment: a log of a few records need not preallocate the default size in memory.
    static func logOptions(_ fs: MemoryFileIO, readOnly: Bool = false) -> LogOptions {
        LogOptions(durability: .none, segmentSize: 1 << 16, readOnly: readOnly, fileIO: fs)
    }

    @Test func randomLogsOpenToAGraphInStep() throws {
        var random = Mutator(seed: 0x10C5)
        var opened = 0, openedLarge = 0
        for round in 0..<Self.rounds {
            let fs = MemoryFileIO()
            let options = StoreOptions(log: Self.logOptions(fs), maintenance: .manual)
            try Store.open(directory: "/r", schema: FuzzSeeds.schema, options: options).close()
            let log = try TransactionLog.open(directory: "/r", options: Self.logOptions(fs))
            var transactions: [[LogOperation]] = []
            // Every tenth log has one transaction large enough for the graph's bulk path
            // (tables grown once, indexes rebuilt at its end), over more rows.
            let large = round % 10 == 9
            for transaction in 0..<(1 + Int(random.next() % 6)) {
                let count = large && transaction == 0 ? SortedIndex.patchLimit + 100 : 1 + Int(random.next() % 12)
                let operations = (0..<count).map { _ in Self.operation(&random, rows: large ? 60 : 7) }
                transactions.append(operations)
                _ = try log.append(operations)
            }
            log.close()
            // Reading back, as the tools do, and as a writer does.
            for readOnly in [true, false] {
                let options = StoreOptions(log: Self.logOptions(fs, readOnly: readOnly), maintenance: .manual)
                // A record the graph cannot hold (row 0, say) refuses the open with a StorageError.
                let store: Store
                do { store = try Store.open(directory: "/r", options: options) } catch is StorageError { continue }
                defer { store.close() }
                opened += 1
                if large { openedLarge += 1 }
                let problems = Self.problems(in: store.graph)
                #expect(problems.isEmpty, "round \(round), read-only \(readOnly): \(problems) after \(transactions)")
                if !readOnly {
                    let changes = try Self.changesThroughMaintenance(of: store, in: fs)
                    #expect(changes.isEmpty, "round \(round): \(changes) after \(transactions)")
                }
            }
        }
        // Most logs hold something a graph cannot; enough of them must open to test the graph.
        #expect(opened * 10 >= Self.rounds, "only \(opened) opens of \(2 * Self.rounds)")
        #expect(openedLarge * 100 >= Self.rounds, "only \(openedLarge) opens of a log with a large transaction")
    }

    /// What a checkpoint, then a compaction, each followed by a reopen, changed of the rows
    /// `store` holds (every row's values and links, as `graphstore dump` prints them), and
    /// what `verify` finds wrong afterwards. Closes `store`.
    static func changesThroughMaintenance(of store: Store, in fs: MemoryFileIO) throws -> [String] {
        let before = try dump(store)
        var changes: [String] = []
        func reopened(closing open: Store, after step: String) throws -> Store {
            open.close()
            let again = try Store.open(directory: "/r", options: StoreOptions(log: logOptions(fs), maintenance: .manual))
            let after = try dump(again)
            if after != before {
                let lost = before.filter { !after.contains($0) }, gained = after.filter { !before.contains($0) }
                changes.append("\(step) changed the rows: \(lost) became \(gained)")
            }
            changes += problems(in: again.graph).map { "after \(step): \($0)" }
            return again
        }
        _ = try store.checkpoint()
        let checkpointed = try reopened(closing: store, after: "a checkpoint")
        if checkpointed.report.checkpoint == nil { changes.append("the reopen did not load the checkpoint") }
        _ = try checkpointed.compact()
        let compacted = try reopened(closing: checkpointed, after: "a compaction")
        compacted.close()
        let verification = try Store.verify(directory: "/r", fileIO: fs)
        changes += verification.notes.map { "verify notes: \($0)" } + verification.blobProblems
        return changes
    }

    static func dump(_ store: Store) throws -> [String] {
        var lines: [String] = []
        try store.dump { lines.append($0) }
        return lines
    }

    /// Where the airports' departures and the flights' origins disagree.
    static func problems(in graph: Graph) -> [String] {
        let departures = airport.relationship(named: "departures")!.index, origin = flight.relationship(named: "origin")!.index
        var problems: [String] = []
        graph.read { view in
            var listed: [UInt64: UInt64] = [:]
            for row in view.table(airport.index).liveRows {
                for member in view.toMany(entity: airport.index, row: row, relationship: departures) {
                    if !view.isLive(entity: flight.index, row: UInt64(member)) { problems.append("airport \(row) lists flight \(member), not a row") }
                    if let other = listed.updateValue(row, forKey: UInt64(member)) { problems.append("flight \(member) listed by airports \(other) and \(row)") }
                    let back = view.toOne(entity: flight.index, row: UInt64(member), relationship: origin)
                    if back != row { problems.append("airport \(row) lists flight \(member), whose origin is \(back.map(String.init) ?? "none")") }
                }
            }
            for row in view.table(flight.index).liveRows {
                guard let target = view.toOne(entity: flight.index, row: row, relationship: origin) else { continue }
                if !view.isLive(entity: airport.index, row: target) { problems.append("flight \(row)'s origin \(target) is not a row") }
                if listed[row] != target { problems.append("flight \(row)'s origin is \(target), not in its departures") }
            }
        }
        return problems
    }

    /// An operation on rows `0..<rows` (or, now and then, one past 32 bits).
    static func operation(_ random: inout Mutator, rows: UInt64) -> LogOperation {
        let entity = EntityNumber(1 + random.next() % 3)
        let row = RowNumber(random.next() % rows)
        func relationship() -> PropertyNumber { relationships[Int(random.next() % UInt64(relationships.count))] }
        func endpoint() -> RowNumber { random.next() % 16 == 0 ? RowNumber(UInt32.max) + 2 : RowNumber(random.next() % rows) }
        switch random.next() % 6 {
        // An insert of row 0 refuses the whole log: in a large transaction, that would be every time.
        case 0, 1: return .insert(entity: entity, row: rows > 7 ? max(row, 1) : row, values: values(&random))
        case 2: return .update(entity: entity, row: row, values: values(&random))
        case 3: return .delete(entity: entity, row: row)
        case 4: return .link(relationship: relationship(), source: endpoint(), target: endpoint())
        default: return .unlink(relationship: relationship(), source: endpoint(), target: endpoint())
        }
    }

    /// Up to four values, of any kind, for any property number up to one past the schema's.
    static func values(_ random: inout Mutator) -> [PropertyValue] {
        (0..<Int(random.next() % 5)).map { _ in
            let kinds: [Value] = [.null, .int(Int64(random.next() % 5)), .uint(random.next() % 300), .double(1.5), .string("K\(random.next() % 3)"),
                                  .data(Data([1])), .date(Date(timeIntervalSince1970: 5)), .array([.string("x")]), .bool(true)]
            return PropertyValue(PropertyNumber(1 + random.next() % 16), kinds[Int(random.next() % UInt64(kinds.count))])
        }
    }
}
