import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// A to-many with counts, and its to-one inverse: a batch cannot keep the counts.
final class BatchLeg: Model {
    @Attribute(.unique) var ident: String = ""
    @Attribute(.indexed) var miles: Int = 0
    @Relationship(deleteRule: .cascade, minimumModelCount: 0, maximumModelCount: 3, inverse: \BatchStop.leg)
    var stops: [BatchStop] = []
}

final class BatchStop: Model {
    @Attribute var name: String = ""
    @Relationship var leg: BatchLeg?
}

/// An attribute kept in external storage, which a batch cannot write.
final class BatchAttachment: Model {
    @Attribute(.externalStorage) var three: Data = Data()
}

final class BatchBadge: Model {
    @Attribute(.unique) var code: String = ""
    @Attribute(.unique) var serial: Int = 0
    @Attribute var label: String? = nil
}

final class BatchPerson: Model {
    @Attribute(.unique) var name: String = ""
    @Relationship(inverse: \BatchPassport.holder) var passport: BatchPassport?
}

final class BatchPassport: Model {
    @Attribute(.unique) var number: String = ""
    @Relationship var holder: BatchPerson?
}

@Suite struct BatchInsertTests {
    private func makeContainer() throws -> ModelContainer {
        try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    /// A batch of rows each setting a string key and a number.
    static func keyedNumbers<Model: PersistentModel>(_ rows: [(String, Int)], _ key: ReferenceWritableKeyPath<Model, String>,
                                                    _ number: ReferenceWritableKeyPath<Model, Int>,
                                                    in container: ModelContainer) throws -> BatchInsert<Model> {
        var batch = try BatchInsert(Model.self, in: container)
        let keyAttribute = try batch.attribute(key), numberAttribute = try batch.attribute(number)
        for (name, value) in rows {
            batch.appendRow()
            batch.set(keyAttribute, name)
            batch.set(numberAttribute, value)
        }
        return batch
    }

    /// Flights by ident with a route distance each.
    static func distances(_ rows: [(String, Int)], in container: ModelContainer) throws -> BatchInsert<Flight> {
        try keyedNumbers(rows, \.ident, \.routeDistance, in: container)
    }

    /// Badges by code and serial.
    static func badges(_ rows: [(String, Int)], in container: ModelContainer) throws -> BatchInsert<BatchBadge> {
        try keyedNumbers(rows, \.code, \.serial, in: container)
    }

    @discardableResult
    private func importSample(into context: ModelContext, container: ModelContainer) throws -> BatchInsertResult {
        var airports = try BatchInsert(Airport.self, in: container)
        let icao = try airports.attribute(\.icao), name = try airports.attribute(\.name)
        for (code, title) in [("KORD", "O'Hare"), ("KSFO", "San Francisco"), ("KBOS", "Logan")] {
            airports.appendRow()
            airports.set(icao, code)
            airports.set(name, title)
        }
        var airlines = try BatchInsert(Airline.self, in: container)
        let code = try airlines.attribute(\.code)
        airlines.appendRow()
        airlines.set(code, "UAL")
        var flights = try BatchInsert(Flight.self, in: container)
        let ident = try flights.attribute(\.ident), distance = try flights.attribute(\.routeDistance)
        let off = try flights.attribute(\.actualOff)
        let origin = try flights.toOne(\.origin, by: \Airport.icao), destination = try flights.toOne(\.destination, by: \Airport.icao)
        let airline = try flights.toOne(\.airline, by: \Airline.code)
        flights.reserveCapacity(4)
        for (i, (from, to)) in [("KORD", "KSFO"), ("KSFO", "KORD"), ("KORD", "KBOS"), ("KBOS", nil)].enumerated() {
            flights.appendRow()
            flights.set(ident, "UA\(i)")
            flights.set(distance, 100 * (i + 1))
            flights.set(origin, from)
            flights.set(destination, to)
            if i < 3 { flights.set(airline, "UAL") }
            if i == 0 { flights.set(off, Date(timeIntervalSince1970: 1_000)) }
        }
        return try context.execute(airports, airlines, flights)
    }

    /// Airports, airlines and flights in one execute, flights linked by the others' codes:
    /// what the objects read back is what the rows said, unset attributes at their defaults,
    /// inverse lists in row order.
    @Test func rowsReadBackAsObjects() throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        let result = try importSample(into: context, container: container)
        #expect(result.inserted == 8 && result.updated == 0 && result.transaction > 0)
        let flights = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        #expect(flights.map(\.ident) == ["UA0", "UA1", "UA2", "UA3"])
        #expect(flights.map(\.routeDistance) == [100, 200, 300, 400])
        #expect(flights.map { $0.origin?.icao } == ["KORD", "KSFO", "KORD", "KBOS"])
        #expect(flights.map { $0.destination?.icao } == ["KSFO", "KORD", "KBOS", nil])
        #expect(flights.map { $0.airline?.code } == ["UAL", "UAL", "UAL", nil])
        #expect(flights[0].actualOff == Date(timeIntervalSince1970: 1_000) && flights[1].actualOff == nil)
        #expect(flights.allSatisfy { $0.status == .scheduled })  // unset: the declared initial value
        let ord = try #require(try context.fetchUnique(\Airport.icao, equals: "KORD"))
        #expect(ord.name == "O'Hare")
        #expect(ord.flightsFrom.map(\.ident) == ["UA0", "UA2"])
        #expect(ord.flightsTo.map(\.ident) == ["UA1"])
        // Indexes answer for the new rows.
        #expect(try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance == 300 })).map(\.ident) == ["UA2"])
        #expect(try context.fetchCount(FetchDescriptor<Flight>(predicate: #Predicate { $0.origin?.icao == "KORD" })) == 2)
    }

    /// Rows whose unique value is committed update that row: what they set changes, the rest
    /// stays; a moved relationship leaves its old target's inverse list; several rows for one
    /// key merge, the later winning.
    @Test func rowsWithACommittedKeyUpdateIt() throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        try importSample(into: context, container: container)
        var flights = try BatchInsert(Flight.self, in: container)
        let ident = try flights.attribute(\.ident), distance = try flights.attribute(\.routeDistance)
        let origin = try flights.toOne(\.origin, by: \Airport.icao)
        let off = try flights.attribute(\.actualOff)
        flights.appendRow()
        flights.set(ident, "UA0")
        flights.set(distance, 111)
        flights.set(off, nil)
        flights.appendRow()
        flights.set(ident, "UA2")
        flights.set(origin, "KSFO")
        flights.appendRow()
        flights.set(ident, "UA1")        // a committed row twice: later values win
        flights.set(distance, 1)
        flights.appendRow()
        flights.set(ident, "UA1")
        flights.set(distance, 2)
        flights.appendRow()
        flights.set(ident, "UA9")        // new
        flights.set(distance, 900)
        flights.appendRow()
        flights.set(ident, "UA9")        // the same new row again: later values win
        flights.set(distance, 999)
        flights.set(origin, "KBOS")
        let result = try context.execute(flights)
        #expect(result.inserted == 1 && result.updated == 3)
        let byIdent = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Flight>()).map { ($0.ident, $0) })
        #expect(byIdent.count == 5)
        #expect(byIdent["UA0"]?.routeDistance == 111 && byIdent["UA0"]?.actualOff == nil)
        #expect(byIdent["UA0"]?.origin?.icao == "KORD" && byIdent["UA0"]?.airline?.code == "UAL")  // not set: kept
        #expect(byIdent["UA2"]?.routeDistance == 300 && byIdent["UA2"]?.origin?.icao == "KSFO")
        #expect(byIdent["UA1"]?.routeDistance == 2)
        #expect(byIdent["UA9"]?.routeDistance == 999 && byIdent["UA9"]?.origin?.icao == "KBOS")
        let ord = try #require(try context.fetchUnique(\Airport.icao, equals: "KORD"))
        let sfo = try #require(try context.fetchUnique(\Airport.icao, equals: "KSFO"))
        #expect(ord.flightsFrom.map(\.ident) == ["UA0"])
        #expect(sfo.flightsFrom.map(\.ident) == ["UA1", "UA2"])
        #expect(try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance == 100 })).isEmpty)
    }

    /// Objects a context holds, and its live queries, see a batch as they see another context's save.
    @Test func contextsMergeTheTransaction() throws {
        let container = try makeContainer()
        let context = ModelContext(container)
        try importSample(into: context, container: container)
        let other = ModelContext(container)
        let held = try #require(try other.fetchUnique(\Flight.ident, equals: "UA1"))
        let ownHeld = try #require(try context.fetchUnique(\Flight.ident, equals: "UA1"))
        #expect(held.routeDistance == 200)
        let live = LiveQuery(FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance > 500 }), in: other)
        #expect(live.results.isEmpty)
        try context.execute(try Self.distances([("UA1", 222), ("UA7", 700)], in: container))
        #expect(held.routeDistance == 222 && ownHeld.routeDistance == 222)
        #expect(live.results.map(\.ident) == ["UA7"])
    }

    /// Bad rows: nothing of the transaction is written, and the error says what and where.
    @Test func failuresWriteNothing() throws {
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self, BatchBadge.self,
                                           configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        try importSample(into: context, container: container)
        let before = container.graph.lastTransaction
        func expectNothingWritten(_ label: String) throws {
            #expect(container.graph.lastTransaction == before, "\(label)")
            #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 4, "\(label)")
        }
        // A target key that no row has.
        var flights = try BatchInsert(Flight.self, in: container)
        let ident = try flights.attribute(\.ident), origin = try flights.toOne(\.origin, by: \Airport.icao)
        flights.appendRow()
        flights.set(ident, "NEW1")
        flights.appendRow()
        flights.set(ident, "NEW2")
        flights.set(origin, "ZZZZ")
        #expect(throws: ModelContextError.batchTargetNotFound(entity: "Flight", relationship: "origin", target: "Airport with icao \"ZZZZ\"")) {
            try context.execute(flights)
        }
        try expectNothingWritten("missing key")
        // A target identifier that names no committed row, one of another entity, a temporary one.
        var byID = try BatchInsert(Flight.self, in: container)
        let destination = try byID.toOne(\.destination)
        byID.appendRow()
        byID.set(destination, PersistentIdentifier(entityName: "Airport", row: 999))
        #expect(throws: ModelContextError.batchTargetNotFound(entity: "Flight", relationship: "destination", target: "Airport/999")) {
            try context.execute(byID)
        }
        var wrongEntity = try BatchInsert(Flight.self, in: container)
        wrongEntity.appendRow()
        wrongEntity.set(try wrongEntity.toOne(\.destination), PersistentIdentifier(entityName: "Airline", row: 1))
        #expect(throws: ModelContextError.batchInvalid(entity: "Flight", reason: "destination set to Airline/1, not a Airport")) {
            try context.execute(wrongEntity)
        }
        var temporary = try BatchInsert(Flight.self, in: container)
        temporary.appendRow()
        temporary.set(try temporary.toOne(\.destination), Airport(icao: "KLAX").persistentModelID)
        #expect(throws: ModelContextError.self) { try context.execute(temporary) }
        // A set before any row.
        var early = try BatchInsert(Flight.self, in: container)
        early.set(ident, "EARLY")
        #expect(throws: ModelContextError.batchInvalid(entity: "Flight", reason: "set before appendRow()")) { try context.execute(early) }
        // Two batches of one model in one execute.
        var one = try BatchInsert(Flight.self, in: container), two = try BatchInsert(Flight.self, in: container)
        one.appendRow()
        two.appendRow()
        #expect(throws: ModelContextError.batchInvalid(entity: "Flight", reason: "two batches of one model in one execute (make it one batch)")) {
            try context.execute(one, two)
        }
        try expectNothingWritten("misuse")
        // A unique value another committed row keeps (two unique attributes, two rows).
        try context.execute(try Self.badges([("A", 1), ("B", 2)], in: container))
        let badges = try BatchInsert(BatchBadge.self, in: container)
        let code = try badges.attribute(\.code), serial = try badges.attribute(\.serial)
        let afterBadges = container.graph.lastTransaction
        var clash = try BatchInsert(BatchBadge.self, in: container)
        clash.appendRow()
        clash.set(code, "A")   // row of A…
        clash.set(serial, 2)   // …taking B's serial
        #expect(throws: ModelContextError.uniqueConstraintViolation(entity: "BatchBadge", attribute: "serial", value: "2")) {
            try context.execute(clash)
        }
        #expect(container.graph.lastTransaction == afterBadges)
        #expect(try context.fetch(FetchDescriptor<BatchBadge>(sortBy: [SortDescriptor(\.code)])).map { "\($0.code)\($0.serial)" } == ["A1", "B2"])
        // Rows matching by either unique attribute are one row, as inserted objects are (upsert).
        #expect(try context.execute(try Self.badges([("C", 3), ("D", 3)], in: container)).inserted == 1)
        // A new row's unset unique attribute takes its default, which only one row may have.
        var unset = try BatchInsert(BatchBadge.self, in: container)
        unset.appendRow()
        unset.set(code, "E")       // serial left at 0
        #expect(try context.execute(unset).inserted == 1)
        var unsetAgain = try BatchInsert(BatchBadge.self, in: container)
        unsetAgain.appendRow()
        unsetAgain.set(code, "F")  // serial 0 again: E has it
        #expect(throws: ModelContextError.uniqueConstraintViolation(entity: "BatchBadge", attribute: "serial", value: "0")) {
            try context.execute(unsetAgain)
        }
        // A row merged into an earlier one leaves what it does not set to that row.
        var partial = try BatchInsert(BatchBadge.self, in: container)
        partial.appendRow()
        partial.set(code, "G")
        partial.set(serial, 7)
        partial.appendRow()
        partial.set(code, "G")     // serial unset: G keeps 7
        #expect(try context.execute(partial).inserted == 1)
        #expect(try context.fetchUnique(\BatchBadge.code, equals: "G")?.serial == 7)
        #expect(try context.fetch(FetchDescriptor<BatchBadge>(sortBy: [SortDescriptor(\.code)])).map { "\($0.code)\($0.serial)" } == ["A1", "B2", "D3", "E0", "G7"])
    }

    /// Properties a batch cannot set are refused when they are named, with the reason.
    @Test func unsupportedPropertiesAreRefused() throws {
        let container = try ModelContainer(for: BatchPerson.self, BatchPassport.self, BatchLeg.self, BatchStop.self, BatchAttachment.self,
                                           configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let passports = try BatchInsert(BatchPassport.self, in: container)
        #expect(throws: ModelContextError.batchPropertyUnsupported(entity: "BatchPassport", property: "holder",
                                                                   reason: "one-to-one (a batch cannot take the target from its other source)")) {
            try passports.toOne(\.holder)
        }
        let stops = try BatchInsert(BatchStop.self, in: container)
        #expect(throws: ModelContextError.batchPropertyUnsupported(entity: "BatchStop", property: "leg", reason: "stops has a minimum or maximum count")) {
            try stops.toOne(\.leg)
        }
        #expect(throws: ModelContextError.self) { try stops.toOne(\.leg, by: \BatchLeg.miles) }  // not unique
        let options = try BatchInsert(BatchAttachment.self, in: container)
        #expect(throws: ModelContextError.batchPropertyUnsupported(entity: "BatchAttachment", property: "three", reason: "kept in external storage")) {
            try options.attribute(\.three)
        }
        #expect(throws: ModelContextError.typeNotInSchema("Flight")) { try BatchInsert(Flight.self, in: container) }
    }

    /// A read-only container refuses; another thread's call is refused as misuse.
    @Test func readOnlyExecutesAreRefusedAndHandedContextsExecute() throws {
        let store = TemporaryStore()
        do {
            let writer = try store.container(Flight.self, Airport.self, Airline.self)
            let context = ModelContext(writer)
            try importSample(into: context, container: writer)
            writer.close()
        }
        let reader = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: ModelConfiguration(url: store.url, allowsSave: false))
        var flights = try BatchInsert(Flight.self, in: reader)
        flights.appendRow()
        flights.set(try flights.attribute(\.ident), "RO")
        #expect(throws: ModelContextError.readOnly) { try ModelContext(reader).execute(flights) }
        reader.close()

        // A context handed to another thread (used there alone) executes there.
        let container = try makeContainer()
        let context = ModelContext(container)
        var handed = try BatchInsert(Flight.self, in: container)
        handed.appendRow()
        handed.set(try handed.attribute(\.ident), "ELSEWHERE")
        let transfer = UnsafeTransfer(context), batch = UnsafeTransfer(handed)
        let outcome = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do { try transfer.value.execute(batch.value) } catch { outcome.withLock { $0 = error } }
            done.signal()
        }.start()
        done.wait()
        #expect(outcome.value == nil)
        #expect(try context.fetchUnique(\Flight.ident, equals: "ELSEWHERE") != nil)
    }

    /// A batch whose write fails (a full disk) throws the storage error; nothing of it is
    /// visible, in memory or after reopening.
    @Test func aFailedWriteLeavesNothingBehind() throws {
        let store = TemporaryStore()
        let faulty = FaultInjectingFileIO(base: PosixFileIO(), plan: FaultPlan())
        do {
            let container = try store.container(Flight.self, Airport.self, Airline.self, durability: .full, fileIO: faulty)
            let context = ModelContext(container)
            try importSample(into: context, container: container)
            faulty.setPlan(FaultPlan(failWrite: (index: faulty.writeCount, errno: 28)))
            let flights = try Self.distances([("UA0", 5), ("NEW", 6)], in: container)
            #expect(throws: StorageError.self) { try context.execute(flights) }
            #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 4)
            #expect(try context.fetchUnique(\Flight.ident, equals: "UA0")?.routeDistance == 100)
            container.close()
        }
        let reopened = try store.container(Flight.self, Airport.self, Airline.self)
        let context = ModelContext(reopened)
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 4)
        #expect(try context.fetchUnique(\Flight.ident, equals: "UA0")?.routeDistance == 100)
    }

    /// A background context's batches beside a main context's saves: every row of both lands.
    @Test func batchesBesideSavesOnAnotherThread() throws {
        let container = try makeContainer()
        let main = ModelContext(container)
        try importSample(into: main, container: container)
        let failure = Locked<(any Error)?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            do {
                let context = ModelContext(container)
                for round in 0..<20 {
                    var flights = try BatchInsert(Flight.self, in: container)
                    let ident = try flights.attribute(\.ident), origin = try flights.toOne(\.origin, by: \Airport.icao)
                    for i in 0..<50 {
                        flights.appendRow()
                        flights.set(ident, "BG\(round)-\(i)")
                        flights.set(origin, "KSFO")
                    }
                    try context.execute(flights)
                }
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }.start()
        for round in 0..<20 {
            let flight = Flight(ident: "FG\(round)")
            main.insert(flight)
            flight.origin = try main.fetchUnique(\Airport.icao, equals: "KSFO")
            try main.save()
        }
        done.wait()
        #expect(failure.value == nil)
        let expectedFlights = 4 + 20 * 50 + 20, expectedFromSFO = 1 + 20 * 50 + 20
        #expect(try main.fetchCount(FetchDescriptor<Flight>()) == expectedFlights)
        let sfo = try #require(try main.fetchUnique(\Airport.icao, equals: "KSFO"))
        #expect(sfo.flightsFrom.count == expectedFromSFO)
    }

    /// Written durably: a reopened store has every row, link and index.
    @Test func rowsSurviveReopening() throws {
        let store = TemporaryStore()
        do {
            let container = try store.container(Flight.self, Airport.self, Airline.self, durability: .full)
            try importSample(into: ModelContext(container), container: container)
            container.close()
        }
        let reopened = try store.container(Flight.self, Airport.self, Airline.self)
        let context = ModelContext(reopened)
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 4)
        #expect(try context.fetchUnique(\Airport.icao, equals: "KORD")?.flightsFrom.map(\.ident) == ["UA0", "UA2"])
        #expect(try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance >= 300 })).count == 2)
        // An empty batch writes an empty transaction and nothing else.
        let empty = try context.execute(try BatchInsert(Flight.self, in: reopened))
        #expect(empty.inserted == 0 && empty.updated == 0)
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 4)
    }
}
