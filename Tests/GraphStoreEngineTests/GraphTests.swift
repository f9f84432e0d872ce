import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Synchronization
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

final class Pair: Model {
    @Attribute(.indexed) var a: Int = 0
    @Attribute var b: Int = 0
    @Attribute(.unique) var key: String = ""
}

@Suite struct GraphTests {
    /// Readers running beside the writer never see a transaction half applied.
    @Test func applyingIsAtomicToConcurrentReaders() throws {
        let container = try ModelContainer(for: Pair.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let graph = container.graph
        let entity = try #require(container.schema.entity(named: "Pair"))
        let a = entity.attribute(named: "a")!.index, b = entity.attribute(named: "b")!.index
        let stop = Atomic<Bool>(false)
        let violations = Atomic<Int>(0)
        let reads = Atomic<Int>(0)
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            Thread {
                while !stop.load(ordering: .relaxed) {
                    graph.read { view in
                        let table = view.table(entity.index)
                        // Rows arrive ten per transaction, and a == b within every row.
                        if table.liveCount % 10 != 0 { violations.add(1, ordering: .relaxed) }
                        for row in table.liveRows where view.value(entity: entity.index, row: row, attribute: a)
                            != view.value(entity: entity.index, row: row, attribute: b) {
                            violations.add(1, ordering: .relaxed)
                        }
                    }
                    reads.add(1, ordering: .relaxed)
                }
                group.leave()
            }.start()
        }
        let context = ModelContext(container)
        var pairs: [Pair] = []
        for round in 0..<200 {
            if round % 4 == 0 {
                for i in 0..<10 {
                    let pair = Pair()
                    pair.key = "k\(round)-\(i)"
                    context.insert(pair)
                    pairs.append(pair)
                }
            }
            for pair in pairs {
                pair.a = round
                pair.b = round
            }
            try context.save()
        }
        stop.store(true, ordering: .relaxed)
        group.wait()
        #expect(violations.load(ordering: .relaxed) == 0)
        #expect(reads.load(ordering: .relaxed) > 0)
    }

    /// The unique, secondary and sorted indexes answer exactly what a scan answers, after small
    /// and bulk changes.
    @Test func indexesAgreeWithAScan() throws {
        let container = try ModelContainer(for: Pair.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        var rng = SystemRandomNumberGenerator()
        var pairs: [Pair] = []
        func check(_ label: String) { Self.checkIndexes(of: container, label) }
        // A bulk insert (rebuilds the sorted index), then small changes (patched in place).
        pairs = Self.insertPairs(2_000, into: context, using: &rng)
        try context.save()
        check("after bulk insert")
        for round in 0..<30 {
            let pair = pairs[Int.random(in: 0..<pairs.count, using: &rng)]
            switch round % 3 {
            case 0: pair.a = Int.random(in: 0..<60, using: &rng)
            case 1: pair.key = "renamed-\(round)"
            default:
                context.delete(pair)
                pairs.removeAll { $0 === pair }
            }
            try context.save()
            check("after change \(round)")
        }
    }

    /// Transactions large enough to rebuild a table's indexes at their end (an update of every
    /// row, a delete of a fifth), one large but small beside its table (patched row by row),
    /// then small ones; and the same store recovered from its log, where rebuilding waits for
    /// the end of the log.
    @Test func indexesAgreeWithAScanAfterLargeTransactionsAndRecovery() throws {
        let store = TemporaryStore()
        var configuration = ModelConfiguration(url: store.url, durability: .none, segmentSize: 1 << 20)
        configuration.maintenance = .manual
        var rng = SystemRandomNumberGenerator()
        do {
            let container = try ModelContainer(for: Pair.self, configurations: configuration)
            let context = ModelContext(container)
            var pairs = Self.insertPairs(5_000, into: context, using: &rng)
            try context.save()
            Self.checkIndexes(of: container, "after bulk insert")
            for pair in pairs { pair.a = Int.random(in: 0..<60, using: &rng) }
            try context.save()
            Self.checkIndexes(of: container, "after updating every row")
            // 600 changes to 5,000 rows: more than a merge's limit, less than an eighth.
            for pair in pairs.shuffled(using: &rng).prefix(600) { pair.a = Int.random(in: 0..<60, using: &rng) }
            try context.save()
            Self.checkIndexes(of: container, "after a large transaction patched row by row")
            for pair in pairs.suffix(1_000) { context.delete(pair) }
            pairs.removeLast(1_000)
            try context.save()
            Self.checkIndexes(of: container, "after deleting a fifth")
            for pair in pairs.prefix(5) {
                pair.a = 17
                try context.save()
            }
            Self.checkIndexes(of: container, "after small changes")
            container.close()
        }
        let reopened = try ModelContainer(for: Pair.self, configurations: configuration)
        Self.checkIndexes(of: reopened, "after recovery")
        let context = ModelContext(reopened)
        #expect(try context.fetchCount(FetchDescriptor<Pair>(predicate: #Predicate { $0.a == 17 })) >= 5)
        #expect(try context.explain(FetchDescriptor<Pair>(predicate: #Predicate { $0.a == 17 })).contains("index Pair.a"))
    }

    /// A large transaction leaves the hash index stale; small changes after it are not lost, and
    /// the first lookups (several readers at once, each through its own context) rebuild it and
    /// answer what a scan answers.
    @Test func staleHashIndexIsRebuiltByTheFirstLookups() throws {
        let container = try ModelContainer(for: Pair.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        var rng = SystemRandomNumberGenerator()
        let pairs = Self.insertPairs(3_000, into: context, using: &rng)
        try context.save()
        for pair in pairs { pair.a = Int.random(in: 0..<60, using: &rng) }
        try context.save()
        pairs[7].a = 1_000
        try context.save()
        let entity = container.schema.entity(named: "Pair")!
        let aIndex = entity.attribute(named: "a")!.index
        let expected: [Int: Set<String>] = Dictionary(grouping: pairs, by: \.a).mapValues { Set($0.map(\.key)) }
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { reader in
            let readerContext = ModelContext(container)
            for value in [1_000] + Array(stride(from: reader, to: 60, by: 8)) {
                let found = (try? readerContext.fetch(FetchDescriptor<Pair>(predicate: #Predicate { $0.a == value }))) ?? []
                if Set(found.map(\.key)) != expected[value, default: []] { failures.withLock { $0.append("a == \(value)") } }
            }
        }
        #expect(failures.value.isEmpty)
        container.graph.read { view in #expect(view.table(entity.index).secondary[aIndex]!.rowCount == pairs.count) }
        #expect(try context.explain(FetchDescriptor<Pair>(predicate: #Predicate { $0.a == 1_000 })).contains("index Pair.a"))
    }

    /// A to-many list holds a member once however often its link is applied; a link to another
    /// target moves the member, both sides in step (with a to-one inverse, membership is read
    /// off the member's own pointer); a list without a to-one inverse also holds a member once.
    @Test func repeatedAndMovedLinksKeepBothSidesInStep() throws {
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let schema = container.schema
        let airport = schema.entity(named: "Airport")!, flight = schema.entity(named: "Flight")!, airline = schema.entity(named: "Airline")!
        let flightsFrom = airport.relationships.first { $0.name == "flightsFrom" }!, origin = flight.relationships.first { $0.name == "origin" }!
        let flights = airline.relationships.first { $0.name == "flights" }!
        func insert(_ entity: Schema.Entity, _ row: UInt64) -> LogOperation { .insert(entity: entity.number, row: row, values: []) }
        var number: UInt64 = 0
        func apply(_ operations: [LogOperation]) {
            number += 1
            container.graph.apply(operations, number: number)
        }
        apply([insert(airport, 1), insert(airport, 2), insert(flight, 1), insert(flight, 2), insert(airline, 1)])
        let link = LogOperation.link(relationship: flightsFrom.number, source: 1, target: 1)
        apply([link, link, .link(relationship: flightsFrom.number, source: 1, target: 2)])
        apply([link])
        container.graph.read { view in
            #expect(view.toMany(entity: airport.index, row: 1, relationship: flightsFrom.index) == [1, 2])
            #expect(view.toOne(entity: flight.index, row: 1, relationship: origin.index) == 1)
        }
        apply([.link(relationship: flightsFrom.number, source: 2, target: 1)])
        container.graph.read { view in
            #expect(view.toMany(entity: airport.index, row: 1, relationship: flightsFrom.index) == [2])
            #expect(view.toMany(entity: airport.index, row: 2, relationship: flightsFrom.index) == [1])
            #expect(view.toOne(entity: flight.index, row: 1, relationship: origin.index) == 2)
        }
        let airlineLink = LogOperation.link(relationship: flights.number, source: 1, target: 2)
        apply([airlineLink, airlineLink])
        apply([airlineLink])
        container.graph.read { view in
            #expect(view.toMany(entity: airline.index, row: 1, relationship: flights.index) == [2])
        }
    }

    /// A link written from a to-one's side puts the member in the inverse list as one written
    /// from the list's side does, and moves it out of the list it was in.
    @Test func linksFromTheToOneSideKeepTheListInStep() throws {
        let routes = try OriginsGraph(flights: 4)
        let (container, airport, flight, flightsFrom, origin) = (routes.container, routes.airport, routes.flight, routes.flightsFrom, routes.origin)
        container.graph.apply([.link(relationship: origin.number, source: 2, target: 2), .link(relationship: origin.number, source: 3, target: 1),
                               .unlink(relationship: origin.number, source: 4, target: 1)], number: 3)
        container.graph.read { view in
            #expect(view.toMany(entity: airport.index, row: 1, relationship: flightsFrom.index) == [1, 3])
            #expect(view.toMany(entity: airport.index, row: 2, relationship: flightsFrom.index) == [2])
            #expect(view.toOne(entity: flight.index, row: 4, relationship: origin.index) == nil)
        }
    }

    /// An unlink naming a row that is not there — row 0, one past 32 bits, a deleted or never
    /// inserted row, on either side — changes nothing (a damaged record's, read back from the log).
    @Test func unlinksOfRowsThatAreNotThereChangeNothing() throws {
        let routes = try OriginsGraph(flights: 3)
        let (container, airport, flight, flightsFrom, origin) = (routes.container, routes.airport, routes.flight, routes.flightsFrom, routes.origin)
        container.graph.apply([.delete(entity: flight.number, row: 3)], number: 3)
        let beyond = UInt64(UInt32.max) + 2
        var number: UInt64 = 4
        for relationship in [origin.number, flightsFrom.number] {
            for (source, target) in [(1, 0), (0, 1), (1, beyond), (beyond, 1), (beyond, beyond), (3, 1), (1, 3), (9, 1), (1, 9)] as [(UInt64, UInt64)] {
                container.graph.apply([.unlink(relationship: relationship, source: source, target: target)], number: number)
                number += 1
            }
        }
        container.graph.read { view in
            #expect(view.toMany(entity: airport.index, row: 1, relationship: flightsFrom.index) == [1, 2])
            #expect(view.toOne(entity: flight.index, row: 1, relationship: origin.index) == 1)
            #expect(view.toOne(entity: flight.index, row: 2, relationship: origin.index) == 1)
        }
        // A real unlink still unlinks.
        container.graph.apply([.unlink(relationship: flightsFrom.number, source: 1, target: 2)], number: number)
        container.graph.read { view in
            #expect(view.toMany(entity: airport.index, row: 1, relationship: flightsFrom.index) == [1])
            #expect(view.toOne(entity: flight.index, row: 2, relationship: origin.index) == nil)
        }
    }

    /// An airport's flights through saves that delete and move them from anywhere in its list,
    /// a checkpoint, and the log after it: each context, and each reopening, reads the lists a
    /// plain array kept alongside says, in link order.
    @Test func listsKeepTheirOrderThroughRemovalsCheckpointsAndReopening() throws {
        let store = TemporaryStore()
        let types: [any PersistentModel.Type] = [Airport.self, Airline.self, Flight.self]
        var expected: [String: [String]] = ["A": [], "B": []]
        var random = SplitMix64(seed: 7)
        func check(_ container: ModelContainer, _ label: String) throws {
            let context = ModelContext(container)
            for airport in try context.fetch(FetchDescriptor<Airport>()) {
                #expect(airport.flightsFrom.map(\.ident) == expected[airport.icao], "\(label): \(airport.icao)")
            }
        }
        func round(_ container: ModelContainer, _ number: Int) throws {
            let context = ModelContext(container)
            let airports = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Airport>()).map { ($0.icao, $0) })
            for i in 0..<40 {
                let flight = Flight(ident: "F\(number)-\(i)")
                context.insert(flight)
                let icao = i % 3 == 0 ? "B" : "A"
                flight.origin = airports[icao]
                expected[icao]!.append(flight.ident)
            }
            try context.save()
            for _ in 0..<25 {
                let icao = random.next() % 4 == 0 ? "B" : "A"
                guard !expected[icao]!.isEmpty else { continue }
                let ident = expected[icao]!.remove(at: Int(random.next() % UInt64(expected[icao]!.count)))
                let flight = try #require(context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident })).first)
                if random.next() % 2 == 0 {
                    context.delete(flight)
                } else {
                    let other = icao == "A" ? "B" : "A"
                    flight.origin = airports[other]
                    expected[other]!.append(ident)
                }
                try context.save()
            }
            try check(container, "round \(number)")
        }
        do {
            let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            let context = ModelContext(container)
            context.insert(Airport(icao: "A"))
            context.insert(Airport(icao: "B"))
            try context.save()
            try round(container, 1)
            try container.checkpoint()
            try round(container, 2)
            container.close()
        }
        do {
            let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
            try check(container, "reopened")
            // Removals from lists the checkpoint restored, by positions rebuilt on opening.
            try round(container, 3)
            try container.checkpoint()
            container.close()
        }
        let container = try ModelContainer(for: types, configurations: maintainedConfiguration(store.url))
        try check(container, "reopened from the second checkpoint")
    }

    /// `count` new pairs keyed key-0… with random `a` values, inserted (unsaved).
    static func insertPairs(_ count: Int, into context: ModelContext, using rng: inout SystemRandomNumberGenerator) -> [Pair] {
        (0..<count).map { i in
            let pair = Pair()
            pair.key = "key-\(i)"
            pair.a = Int.random(in: 0..<60, using: &rng)
            context.insert(pair)
            return pair
        }
    }

    /// Every index of a `Pair` container answers what a scan of the rows answers.
    static func checkIndexes(of container: ModelContainer, _ label: String) {
        let entity = container.schema.entity(named: "Pair")!
        let aIndex = entity.attribute(named: "a")!.index, keyIndex = entity.attribute(named: "key")!.index
        container.graph.read { view in
            let table = view.table(entity.index)
            let rows = table.liveRows
            for row in rows {
                let key = view.value(entity: entity.index, row: row, attribute: keyIndex)
                #expect(view.row(entity: entity.index, uniqueAttribute: keyIndex, value: key) == row, "\(label)")
            }
            #expect(table.unique[keyIndex]!.count == rows.count, "\(label)")
            #expect(table.secondary[aIndex]!.rowCount == rows.count, "\(label)")
            for probe in [0, 5, 17, 50] {
                let expected = rows.filter { view.value(entity: entity.index, row: $0, attribute: aIndex) == .int(Int64(probe)) }
                #expect(Set(table.secondary[aIndex]!.rows(for: [.int(Int64(probe))])).map(UInt64.init).sorted() == expected, "\(label)")
            }
            let sorted = table.sorted[aIndex]!
            #expect(!sorted.isStale)
            let inRange = sorted.rows(from: .int(10), includingLower: true, to: .int(40), includingUpper: false, column: table.columns[aIndex])
            let expected = rows.filter {
                guard case let .int(v) = view.value(entity: entity.index, row: $0, attribute: aIndex) else { return false }
                return v >= 10 && v < 40
            }
            #expect(Set(inRange.map(UInt64.init)) == Set(expected), "\(label)")
            let values = inRange.map { view.value(entity: entity.index, row: UInt64($0), attribute: aIndex) }
            #expect(zip(values, values.dropFirst()).allSatisfy { !Value.ordered($1, $0) }, "\(label): range in order")
        }
    }
}

/// An in-memory Enroute graph of airports 1 and 2 and `flights` flights, each flight's origin
/// airport 1 (transactions 1 and 2), written to the graph directly as the log's operations.
private struct OriginsGraph {
    let container: ModelContainer
    let airport: Schema.Entity, flight: Schema.Entity
    let flightsFrom: Schema.Relationship, origin: Schema.Relationship

    init(flights: UInt64) throws {
        container = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        airport = container.schema.entity(named: "Airport")!
        flight = container.schema.entity(named: "Flight")!
        flightsFrom = airport.relationships.first { $0.name == "flightsFrom" }!
        origin = flight.relationships.first { $0.name == "origin" }!
        let (airport, flight) = (airport, flight)
        func insert(_ entity: Schema.Entity, _ row: UInt64) -> LogOperation { .insert(entity: entity.number, row: row, values: []) }
        container.graph.apply([insert(airport, 1), insert(airport, 2)] + (1...flights).map { insert(flight, $0) }, number: 1)
        container.graph.apply((1...flights).map { [origin] in .link(relationship: origin.number, source: $0, target: 1) }, number: 2)
    }
}
