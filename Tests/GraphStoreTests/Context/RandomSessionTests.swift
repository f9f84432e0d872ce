import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore
@_spi(GraphStoreInternals) import GraphStoreLog

/// Long random sessions through the public API, checked against plain Swift values: inserts,
/// deletes, attribute changes and moves of flights between airports and airlines; saves of a
/// few changes at a time (more of them than a sorted index's patch limit, so its patches are
/// consolidated), rollbacks, and now and then the container closed and the store reopened —
/// from its log, after a checkpoint, or after a compaction. After every few steps, with unsaved
/// changes or without, the answers — `#Predicate` fetches (an index, a relationship, a top ten
/// with a limit), counts, unique lookups and the to-many inverses — must be what the values
/// say. The same sessions on a failing file system must lose nothing saved.
/// `GRAPHSTORE_RANDOM_SESSION_STEPS` runs longer sessions (default 1,500 steps).
@Suite struct RandomSessionTests {
    static let steps = Int(ProcessInfo.processInfo.environment["GRAPHSTORE_RANDOM_SESSION_STEPS"] ?? "") ?? 1_500
    // Two declarations: this compiler gives `static let a = f { … }, b = g { … }` the first's
    // closure for both.
    static let icaos = (0..<6).map { "K\($0)" }
    static let codes = (0..<3).map { "A\($0)" }

    /// What a flight should hold.
    struct Expected: Equatable {
        var routeDistance = 0
        var status = FlightStatus.scheduled
        var actualOff: Date?
        var origin: String?
        var destination: String?
        var airline: String?
    }

    /// What `flight` holds, as its context reads it.
    static func values(of flight: Flight) -> Expected {
        Expected(routeDistance: flight.routeDistance, status: flight.status, actualOff: flight.actualOff,
                 origin: flight.origin?.icao, destination: flight.destination?.icao, airline: flight.airline?.code)
    }

    /// The open store: its container, a context, and its airports and airlines by code.
    struct Session {
        let container: ModelContainer
        let context: ModelContext
        let airports: [String: Airport]
        let airlines: [String: Airline]

        init(url: URL, fileIO: (any FileIO)? = nil, creating: Bool) throws {
            let configuration = if let fileIO {
                // Small segments, so that sessions roll to new ones (and preallocate them).
                ModelConfiguration(url: url, durability: .full, autosaveEnabled: false, segmentSize: 1 << 16, fileIO: fileIO)
            } else {
                ModelConfiguration(url: url, durability: .none, autosaveEnabled: false)
            }
            container = try ModelContainer(for: Flight.self, Airline.self, configurations: configuration)
            context = ModelContext(container)
            if creating {
                for icao in RandomSessionTests.icaos { context.insert(Airport(icao: icao)) }
                for code in RandomSessionTests.codes { context.insert(Airline(code: code)) }
                try context.save()
            }
            (airports, airlines) = try Self.airportsAndAirlines(in: context)
        }

        /// Another context of the same container, with its own objects.
        init(sharing other: Session) throws {
            container = other.container
            context = ModelContext(container)
            (airports, airlines) = try Self.airportsAndAirlines(in: context)
        }

        static func airportsAndAirlines(in context: ModelContext) throws -> ([String: Airport], [String: Airline]) {
            (Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Airport>()).map { ($0.icao, $0) }),
             Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Airline>()).map { ($0.code, $0) }))
        }

        func flight(_ ident: String) throws -> Flight? {
            try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident })).first
        }
    }

    /// What a session step does to the store, as the step's dice say.
    enum Step {
        case changed, save, rollback, maintenance
    }

    /// One random step: a change of a flight (made in `session` and in `pending`), or a save, a
    /// rollback or maintenance for the caller to do.
    static func step(_ session: Session, _ pending: inout [String: Expected], _ nextIdent: inout Int, _ rng: inout SplitMix64,
                     prefix: String = "F") throws -> Step {
        func pick(_ values: [String]) -> String { values[Int(rng.next() % UInt64(values.count))] }
        func maybe(_ values: [String]) -> String? { rng.next() % 5 == 0 ? nil : pick(values) }
        let idents = pending.keys.sorted()
        let ident = idents.isEmpty ? nil : idents[Int(rng.next() % UInt64(idents.count))]
        switch (rng.next() % 13, ident) {
        case (0...2, _), (_, nil):
            // Zero-padded, so that the idents' order is the same to Swift and to
            // SortDescriptor's localized standard comparison.
            let flight = Flight(ident: prefix + String(format: "%06d", nextIdent))
            nextIdent += 1
            session.context.insert(flight)
            var expected = Expected(routeDistance: Int(rng.next() % 40) * 100)
            flight.routeDistance = expected.routeDistance
            expected.destination = maybe(icaos)
            flight.destination = expected.destination.map { session.airports[$0]! }
            expected.airline = maybe(codes)
            flight.airline = expected.airline.map { session.airlines[$0]! }
            pending[flight.ident] = expected
        case (3, let ident?):
            session.context.delete(try #require(try session.flight(ident)))
            pending[ident] = nil
        case (4, let ident?):
            let distance = Int(rng.next() % 40) * 100
            try #require(try session.flight(ident)).routeDistance = distance
            pending[ident]!.routeDistance = distance
        case (5, let ident?):
            let status = FlightStatus.allCases[Int(rng.next() % 3)], off = rng.next() % 2 == 0 ? nil : Date(timeIntervalSince1970: Double(rng.next() % 1_000))
            let flight = try #require(try session.flight(ident))
            flight.status = status
            flight.actualOff = off
            pending[ident]!.status = status
            pending[ident]!.actualOff = off
        case (6, let ident?):
            let destination = maybe(icaos), origin = maybe(icaos)
            let flight = try #require(try session.flight(ident))
            flight.destination = destination.map { session.airports[$0]! }
            flight.origin = origin.map { session.airports[$0]! }
            pending[ident]!.destination = destination
            pending[ident]!.origin = origin
        case (7, let ident?):
            // From the to-many side: the flight's to-one follows.
            let code = pick(codes), flight = try #require(try session.flight(ident))
            if pending[ident]!.airline != code {
                session.airlines[code]!.flights.append(flight)
                pending[ident]!.airline = code
            }
        case (10, let ident?):
            // A new order of the flight's airline's list (membership unchanged).
            if let code = pending[ident]!.airline {
                let airline = session.airlines[code]!
                airline.flights = airline.flights.reversed()
            }
        case (11, let ident?):
            // Taken out through the array.
            if let code = pending[ident]!.airline {
                session.airlines[code]!.flights.removeAll { $0.ident == ident }
                pending[ident]!.airline = nil
            }
        case (12, let ident?):
            // Appended to an airport's arrivals through the array.
            let icao = pick(icaos)
            if pending[ident]!.destination != icao {
                session.airports[icao]!.flightsTo.append(try #require(try session.flight(ident)))
                pending[ident]!.destination = icao
            }
        case (8, _):
            return rng.next() % 6 == 0 ? .rollback : .save
        default:
            return rng.next() % 12 == 0 ? .maintenance : .save
        }
        return .changed
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomSessionsAnswerAsTheirValuesSay(seed: UInt64) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("random-session-\(seed)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("store")
        var rng = SplitMix64(seed: seed)
        var session = try Session(url: url, creating: true)
        var saved: [String: Expected] = [:], pending: [String: Expected] = [:]
        var nextIdent = 0, saves = 0, reopens = 0, checks = 0

        for step in 0..<Self.steps {
            switch try Self.step(session, &pending, &nextIdent, &rng) {
            case .changed: break
            case .save:
                try session.context.save()
                saved = pending
                saves += 1
            case .rollback:
                session.context.rollback()
                pending = saved
            case .maintenance:
                // The unsaved changes go with the context; the store reopens to the saved state.
                switch rng.next() % 3 {
                case 0: _ = try session.container.checkpoint()
                case 1: _ = try session.container.compact()
                default: break
                }
                session.container.close()
                session = try Session(url: url, creating: false)
                pending = saved
                reopens += 1
            }
            if step % 7 == 0 {
                try check(session, against: pending, &rng, "seed \(seed), step \(step)")
                checks += 1
            }
        }
        try session.context.save()
        session.container.close()
        let reopened = try Session(url: url, creating: false)
        defer { reopened.container.close() }
        try check(reopened, against: pending, &rng, "seed \(seed), reopened at the end")
        #expect(saves > Self.steps / 10 && reopens > Self.steps / 500 && checks > Self.steps / 10,
                "seed \(seed): \(saves) saves, \(reopens) reopens, \(checks) checks")
    }

    /// The same sessions on a file system that fails: now and then a write or a sync fails (EIO,
    /// ENOSPC), a segment cannot be preallocated, or the process "dies" part of the way through
    /// a write, in a save, a checkpoint or a compaction. The failing call throws a
    /// `StorageError`; the store, opened again (after a "crash", with what was written by
    /// then), holds exactly what was saved before it or, where the failed save's record was
    /// written whole, exactly what that save wrote: never part of a save, never less.
    @Test(arguments: [UInt64(11), 12, 13])
    func faultsLoseNothingThatWasSaved(seed: UInt64) throws {
        let disk = MemoryFileIO(), url = URL(fileURLWithPath: "/faults/store")
        var rng = SplitMix64(seed: seed)
        var io = FaultInjectingFileIO(base: disk, plan: FaultPlan())
        var session = try Session(url: url, fileIO: io, creating: true)
        var saved: [String: Expected] = [:], pending: [String: Expected] = [:]
        var nextIdent = 0, faults = 0, landed = 0
        var armed: String?, kinds: [String: Int] = [:]

        for step in 0..<Self.steps / 2 {
            if armed == nil, rng.next() % 12 == 0 {
                let errno: Int32 = rng.next() % 2 == 0 ? 5 : 28
                switch rng.next() % 4 {
                case 0:
                    io.setPlan(FaultPlan(failWrite: (index: io.writeCount + Int(rng.next() % 3), errno: errno)))
                    armed = "write fails (\(errno))"
                case 1:
                    io.setPlan(FaultPlan(failSync: (index: io.syncCount + Int(rng.next() % 2), errno: 5)))
                    armed = "sync fails"
                case 2:
                    io.setPlan(FaultPlan(failPreallocate: 28))
                    armed = "preallocation fails"
                default:
                    io.setPlan(FaultPlan(crashAfterBytes: io.bytesWritten + Int(rng.next() % 600)))
                    armed = "crash"
                }
            }
            let failed: Bool
            do {
                switch try Self.step(session, &pending, &nextIdent, &rng) {
                case .changed: failed = false
                case .save:
                    try session.context.save()
                    saved = pending
                    failed = false
                case .rollback:
                    session.context.rollback()
                    pending = saved
                    failed = false
                case .maintenance:
                    if rng.next() % 2 == 0 { _ = try session.container.checkpoint() } else { _ = try session.container.compact() }
                    failed = false
                }
            } catch let error as StorageError {
                #expect(armed != nil, "seed \(seed), step \(step): \(error) with no fault armed")
                failed = true
            }
            guard failed else { continue }
            faults += 1
            // Nothing of a failed save is visible, even before the restart.
            let visible = try Self.state(of: ModelContext(session.container))
            let untouched = visible == saved
            #expect(untouched, "seed \(seed), step \(step), after \(armed ?? "no fault"), before restarting: \(Self.difference(visible, saved))")
            // Restarted: a file system that works, holding whatever was written.
            session.container.close()
            io = FaultInjectingFileIO(base: disk, plan: FaultPlan())
            session = try Session(url: url, fileIO: io, creating: false)
            let found = try Self.state(of: session.context)
            let whole = found == saved || found == pending
            #expect(whole, "seed \(seed), step \(step), after \(armed ?? "no fault"): \(Self.difference(found, saved))")
            if found == pending && found != saved { landed += 1 }
            try check(session, against: found, &rng, "seed \(seed), step \(step), reopened after \(armed ?? "no fault")")
            kinds[String((armed ?? "none").prefix { $0 != " " }), default: 0] += 1
            saved = found
            pending = found
            armed = nil
        }
        session.container.close()
        // Each kind of fault met, and failed saves both lost and landed.
        #expect(Set(kinds.keys) == ["write", "sync", "preallocation", "crash"] && landed > 0 && landed < faults,
                "seed \(seed): \(faults) faults, \(landed) landed, by kind \(kinds)")
    }

    /// Two contexts of one container, each changing flights of its own and saving now and
    /// then: each must read its own unsaved changes and the other's saves (merged into the
    /// objects it holds, its airports' and airlines' lists included), and after each rollback
    /// the other's saves still.
    @Test(arguments: [UInt64(21), 22])
    func twoContextsReadEachOthersSaves(seed: UInt64) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("two-contexts-\(seed)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var rng = SplitMix64(seed: seed)
        let first = try Session(url: directory.appendingPathComponent("store"), creating: true)
        defer { first.container.close() }
        let sessions = [first, try Session(sharing: first)], prefixes = ["A", "B"]
        var saved: [[String: Expected]] = [[:], [:]], pending: [[String: Expected]] = [[:], [:]]
        var nextIdent = 0, saves = [0, 0]
        for step in 0..<Self.steps / 2 {
            let i = Int(rng.next() % 2)
            switch try Self.step(sessions[i], &pending[i], &nextIdent, &rng, prefix: prefixes[i]) {
            case .changed: break
            case .save, .maintenance:
                try sessions[i].context.save()
                saved[i] = pending[i]
                saves[i] += 1
            case .rollback:
                sessions[i].context.rollback()
                pending[i] = saved[i]
            }
            if step % 5 == 0 {
                for j in 0..<2 {
                    let expected = pending[j].merging(saved[1 - j]) { mine, _ in mine }
                    try check(sessions[j], against: expected, &rng, "seed \(seed), step \(step), context \(prefixes[j])")
                }
            }
        }
        #expect(saves.allSatisfy { $0 > Self.steps / 50 }, "seed \(seed): saves \(saves)")
    }

    /// Every flight's values as `context` reads them.
    static func state(of context: ModelContext) throws -> [String: Expected] {
        Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Flight>()).map { ($0.ident, values(of: $0)) })
    }

    /// What differs between two states, briefly.
    static func difference(_ found: [String: Expected], _ saved: [String: Expected]) -> String {
        let changed = Set(found.keys).union(saved.keys).filter { found[$0] != saved[$0] }.sorted()
        return "\(changed.count) flights differ from the saved state: " + changed.prefix(5).map { "\($0) \(String(describing: found[$0])) against \(String(describing: saved[$0]))" }.joined(separator: "; ")
    }

    /// The fetches, counts and relationships of `session` against `expected`.
    func check(_ session: Session, against expected: [String: Expected], _ rng: inout SplitMix64, _ label: String) throws {
        let context = session.context
        let all = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        #expect(all.map(\.ident) == expected.keys.sorted(), "\(label): every flight")
        for flight in all {
            #expect(Self.values(of: flight) == expected[flight.ident], "\(label): \(flight.ident)")
        }

        let distance = Int(rng.next() % 40) * 100
        let longer = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance > distance },
                                                                sortBy: [SortDescriptor(\.routeDistance, order: .reverse), SortDescriptor(\.ident)]))
        let byDistance = expected.sorted { ($0.value.routeDistance, $1.key) > ($1.value.routeDistance, $0.key) }
        #expect(longer.map(\.ident) == byDistance.filter { $0.value.routeDistance > distance }.map(\.key), "\(label): distance > \(distance)")

        var topTen = FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.routeDistance, order: .reverse), SortDescriptor(\.ident)])
        topTen.fetchLimit = 10
        #expect(try context.fetch(topTen).map(\.ident) == byDistance.prefix(10).map(\.key), "\(label): top ten")

        let icao = Self.icaos[Int(rng.next() % UInt64(Self.icaos.count))]
        let arriving = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.destination?.icao == icao }, sortBy: [SortDescriptor(\.ident)]))
        let expectedArriving = expected.filter { $0.value.destination == icao }.keys.sorted()
        #expect(arriving.map(\.ident) == expectedArriving, "\(label): to \(icao)")
        #expect(try context.fetchCount(FetchDescriptor<Flight>(predicate: #Predicate { $0.destination?.icao == icao })) == expectedArriving.count,
                "\(label): count to \(icao)")

        for (icao, airport) in session.airports {
            #expect(airport.flightsTo.map(\.ident).sorted() == expected.filter { $0.value.destination == icao }.keys.sorted(), "\(label): \(icao)'s arrivals")
            #expect(airport.flightsFrom.map(\.ident).sorted() == expected.filter { $0.value.origin == icao }.keys.sorted(), "\(label): \(icao)'s departures")
        }
        for (code, airline) in session.airlines {
            #expect(airline.flights.map(\.ident).sorted() == expected.filter { $0.value.airline == code }.keys.sorted(), "\(label): \(code)'s flights")
        }
        let missing = "F9999999"
        #expect(try session.flight(missing) == nil, "\(label): a lookup of no flight")
    }
}
