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

/// A badge's scan lives in a blob file (external storage), so a save's block of new scans goes
/// as operations: the links to them must follow.
final class Scan: Model {
    @Attribute var name: String = ""
    @Attribute(.externalStorage) var bytes: Data? = nil
}

final class Badge: Model {
    @Attribute var number: String = ""
    @Relationship var scan: Scan?
}

/// A block of links is the `.link` operations it expands to: the same record bytes, the same
/// graph once applied (to-many order included), the same change summary; and a context's save,
/// which writes its inserts' links as blocks, reads back as it was made.
@Suite struct LinkBlockTests {
    /// Airports 1...6 and airlines 1...3 as operations, flights 1...count as a block; then an
    /// airline link block (to-one: some flights link nowhere) and a block of airports' departures
    /// (to-many: lists of any length, some empty, in random order).
    static func randomChanges(count: Int, seed: UInt64, in container: ModelContainer) -> (rows: TransactionChanges, links: TransactionChanges) {
        var random = SplitMix64(seed: seed)
        let schema = container.schema
        let airport = schema.entity(named: "Airport")!, airline = schema.entity(named: "Airline")!, flight = schema.entity(named: "Flight")!
        var operations: [LogOperation] = (1...6).map {
            .insert(entity: airport.number, row: UInt64($0), values: [PropertyValue(airport.attribute(named: "icao")!.number, .string("K\($0)"))])
        }
        operations += (1...3).map {
            .insert(entity: airline.number, row: UInt64($0), values: [PropertyValue(airline.attribute(named: "code")!.number, .string("A\($0)"))])
        }
        let identColumn: [Value?] = (0..<count).map { .string("F\($0)") }
        let flights = RowBlock(kind: .insert, entity: flight.number, properties: flight.attributeNumbers,
                               values: flight.attributes.map { $0.name == "ident" ? identColumn : [] },
                               defaults: flight.attributes.map(\.defaultValue), rows: (1...UInt64(count)).map { $0 }, sources: Array(0..<count))
        let rows = TransactionChanges(blocks: [flights], operations: operations)
        let airlineLinks = LinkBlock(relationship: flight.relationship(named: "airline")!.number, sources: flights.rows,
                                     targets: flights.rows.map { _ in random.next() % 4 })
        // Each flight departs from at most one airport: the flights dealt out in random order.
        var departures = Array(1...UInt64(count)).shuffled(using: &random)
        var targets: [UInt64] = [], ends: [Int] = []
        for _ in 1...6 {
            let take = min(departures.count, Int(random.next() % UInt64(count / 3 + 1)))
            targets += departures.prefix(take)
            departures.removeFirst(take)
            ends.append(targets.count)
        }
        let departureLinks = LinkBlock(relationship: airport.relationship(named: "flightsFrom")!.number, sources: (1...6).map { UInt64($0) },
                                       targets: targets, ends: ends)
        return (rows, TransactionChanges(links: [airlineLinks, departureLinks]))
    }

    static func container() throws -> ModelContainer {
        try ModelContainer(for: Airport.self, Airline.self, Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func linkBlocksEncodeApplyAndSummariseAsTheirOperations(seed: UInt64) throws {
        let viaBlocks = try Self.container(), viaOperations = try Self.container()
        let (rows, links) = Self.randomChanges(count: 60, seed: seed, in: viaBlocks)
        let changes = TransactionChanges(blocks: rows.blocks, links: links.links, operations: rows.operations)
        let expanded = changes.expandedOperations
        #expect(changes.operationCount == expanded.count)
        #expect(links.links.map(\.count).reduce(0, +) == links.expandedOperations.count)

        var fromBlocks = ByteWriter(), fromOperations = ByteWriter()
        TransactionCodec.encode(changes, author: "a", timestampMicros: 7, into: &fromBlocks)
        TransactionCodec.encode(TransactionChanges(operations: expanded), author: "a", timestampMicros: 7, into: &fromOperations)
        #expect(fromBlocks.bytes == fromOperations.bytes)
        let decoded = try fromBlocks.bytes.withUnsafeBytes { try TransactionCodec.decode($0) }
        #expect(decoded.operations == expanded)

        // Rows in one transaction and links in the next, so the summary of the links lists the
        // rows they change (rows a transaction inserts are reported as inserted only).
        viaBlocks.graph.apply(rows, number: 1)
        viaBlocks.graph.apply(links, number: 2)
        viaOperations.graph.apply(rows.expandedOperations, number: 1)
        viaOperations.graph.apply(links.expandedOperations, number: 2)
        func described(_ container: ModelContainer) throws -> (flights: [String], departures: [[String]]) {
            let context = ModelContext(container)
            let flights = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
            let airports = try context.fetch(FetchDescriptor<Airport>(sortBy: [SortDescriptor(\.icao)]))
            return (flights.map { "\($0.ident) \($0.airline?.code ?? "-") \($0.origin?.icao ?? "-")" },
                    airports.map { $0.flightsFrom.map(\.ident) })
        }
        let (blockFlights, blockDepartures) = try described(viaBlocks)
        let (operationFlights, operationDepartures) = try described(viaOperations)
        #expect(blockFlights == operationFlights)
        #expect(blockDepartures == operationDepartures, "each airport's departures in the order linked")
        #expect(blockDepartures.joined().count == links.links[1].count)

        let schema = viaBlocks.schema
        let summary = ChangeSummary(changes: links, schema: schema)
        let summaryOfOperations = ChangeSummary(operations: links.expandedOperations, schema: schema)
        #expect(!summary.updated.isEmpty)
        #expect(summary.updated == summaryOfOperations.updated)
        #expect(summary.changes == summaryOfOperations.changes)
        #expect(ChangeSummary(changes: links, schema: schema).settled.updated == summary.updated)
        // Whether a context holding some rows must look: as the operations answer, for every
        // row of both sides (the departures block has more targets than sources).
        let flight = schema.entity(named: "Flight")!.index, airport = schema.entity(named: "Airport")!.index
        for (entity, rows) in [(flight, 1...UInt64(62)), (airport, 1...UInt64(7))] {
            for row in rows {
                let fromBlocks = ChangeSummary(changes: links, schema: schema).mayChange { $0 == entity && $1 == row }
                let fromOperations = ChangeSummary(operations: links.expandedOperations, schema: schema).mayChange { $0 == entity && $1 == row }
                #expect(fromBlocks == fromOperations, "entity \(entity), row \(row)")
            }
        }
    }

    /// A save writes its inserts' links as blocks: after reopening (the log read back), every
    /// to-one and to-many is as it was made, lists in their order, one of them to rows saved
    /// before; a link to an object deleted before the save, or to nothing, is not made.
    @Test func aSaveOfInsertsReadsBackWithEveryLink() throws {
        let store = TemporaryStore()
        var expected: [String] = []
        do {
            let container = try ModelContainer(for: Airport.self, Airline.self, Flight.self, configurations: maintainedConfiguration(store.url))
            let context = ModelContext(container)
            let committed = Airport(icao: "KSFO")
            context.insert(committed)
            try context.save()
            let ord = Airport(icao: "KORD"), gone = Airport(icao: "KGON"), airline = Airline(code: "UAL")
            for airport in [ord, gone] { context.insert(airport) }
            context.insert(airline)
            for i in 0..<40 {
                let flight = Flight(ident: String(format: "F%02d", i))
                context.insert(flight)
                flight.origin = i % 2 == 0 ? committed : ord
                if i % 4 != 0 { flight.destination = [committed, ord, gone][i % 3] }
                if i % 5 != 0 { flight.airline = airline }
            }
            context.delete(gone)
            try context.save()
            expected = try Self.describe(context)
            container.close()
        }
        let reopened = try ModelContainer(for: Airport.self, Airline.self, Flight.self, configurations: maintainedConfiguration(store.url))
        let context = ModelContext(reopened)
        #expect(try Self.describe(context) == expected)
        let flights = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        func idents(_ numbers: some Sequence<Int>) -> [String] { numbers.map { String(format: "F%02d", $0) } }
        #expect(flights.count == 40)
        #expect(flights.filter { $0.destination == nil }.map(\.ident) == idents((0..<40).filter { $0 % 4 == 0 || $0 % 3 == 2 }),
                "no destination, or the airport deleted before the save")
        #expect(flights.filter { $0.airline == nil }.map(\.ident) == idents(stride(from: 0, to: 40, by: 5)))
        let ord = try #require(try context.fetch(FetchDescriptor<Airport>(predicate: #Predicate { $0.icao == "KORD" })).first)
        #expect(ord.flightsFrom.map(\.ident) == idents(stride(from: 1, to: 40, by: 2)), "in the order linked")
        #expect(ord.flightsTo.map(\.ident) == idents((0..<40).filter { $0 % 4 != 0 && $0 % 3 == 1 }))
    }

    static func describe(_ context: ModelContext) throws -> [String] {
        let airports = try context.fetch(FetchDescriptor<Airport>(sortBy: [SortDescriptor(\.icao)]))
        let flights = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        return airports.map { "\($0.icao) from \($0.flightsFrom.map(\.ident)) to \($0.flightsTo.map(\.ident))" }
            + flights.map { "\($0.ident) \($0.origin?.icao ?? "-") \($0.destination?.icao ?? "-") \($0.airline?.code ?? "-")" }
    }

    /// New rows with an external-storage value go as operations behind the other blocks; the
    /// inserts' links to them go after them, so each link finds its row.
    @Test func linksToNewRowsWithExternalStorageFollowTheirRows() throws {
        let store = TemporaryStore()
        let bytes = Data((0..<3_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        do {
            let container = try ModelContainer(for: Badge.self, Scan.self, configurations: maintainedConfiguration(store.url))
            let context = ModelContext(container)
            for i in 0..<5 {
                let scan = Scan(), badge = Badge()
                scan.name = "scan \(i)"
                scan.bytes = bytes + [UInt8(i)]
                badge.number = "B\(i)"
                context.insert(scan)
                context.insert(badge)
                badge.scan = scan
            }
            try context.save()
            let badges = try context.fetch(FetchDescriptor<Badge>(sortBy: [SortDescriptor(\.number)]))
            #expect(badges.map { $0.scan?.name } == (0..<5).map { "scan \($0)" })
            container.close()
        }
        let reopened = try ModelContainer(for: Badge.self, Scan.self, configurations: maintainedConfiguration(store.url))
        let context = ModelContext(reopened)
        let badges = try context.fetch(FetchDescriptor<Badge>(sortBy: [SortDescriptor(\.number)]))
        #expect(badges.map { $0.scan?.name } == (0..<5).map { "scan \($0)" })
        #expect(badges.map { $0.scan?.bytes } == (0..<5).map { bytes + [UInt8($0)] })
    }
}
