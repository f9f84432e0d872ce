import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore

/// Long random sessions through the public API, checked against plain Swift values: inserts,
/// deletes, attribute changes and moves of flights between airports and airlines; saves of a
/// few changes at a time (more of them than a sorted index's patch limit, so its patches are
/// consolidated), rollbacks, and now and then the container closed and the store reopened —
/// from its log, after a checkpoint, or after a compaction. After every few steps, with unsaved
/// changes or without, the answers — `#Predicate` fetches (an index, a relationship, a top ten
/// with a limit), counts, unique lookups and the to-many inverses — must be what the values
/// say. `GRAPHSTORE_RANDOM_SESSION_STEPS` runs longer sessions (default 1,500 steps).
@Suite struct RandomSessionTests {
    static let steps = Int(ProcessInfo.processInfo.environment["GRAPHSTORE_RANDOM_SESSION_STEPS"] ?? "") ?? 1_500
    static let icaos = (0..<6).map { "K\($0)" }, codes = (0..<3).map { "A\($0)" }

    /// What a flight should hold.
    struct Expected: Equatable {
        var routeDistance = 0
        var status = FlightStatus.scheduled
        var actualOff: Date?
        var origin: String?
        var destination: String?
        var airline: String?
    }

    /// The open store: its container, a context, and its airports and airlines by code.
    struct Session {
        let container: ModelContainer
        let context: ModelContext
        let airports: [String: Airport]
        let airlines: [String: Airline]

        init(url: URL, creating: Bool) throws {
            container = try ModelContainer(for: Flight.self, Airline.self,
                                           configurations: ModelConfiguration(url: url, durability: .none, autosaveEnabled: false))
            context = ModelContext(container)
            if creating {
                for icao in RandomSessionTests.icaos { context.insert(Airport(icao: icao)) }
                for code in RandomSessionTests.codes { context.insert(Airline(code: code)) }
                try context.save()
            }
            airports = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Airport>()).map { ($0.icao, $0) })
            airlines = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<Airline>()).map { ($0.code, $0) })
        }

        func flight(_ ident: String) throws -> Flight? {
            try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident })).first
        }
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
        func pick(_ values: [String]) -> String { values[Int(rng.next() % UInt64(values.count))] }
        func maybe(_ values: [String]) -> String? { rng.next() % 5 == 0 ? nil : pick(values) }

        for step in 0..<Self.steps {
            let idents = pending.keys.sorted()
            let ident = idents.isEmpty ? nil : idents[Int(rng.next() % UInt64(idents.count))]
            switch (rng.next() % 10, ident) {
            case (0...2, _), (_, nil):
                // Zero-padded, so that the idents' order is the same to Swift and to
                // SortDescriptor's localized standard comparison.
                let flight = Flight(ident: String(format: "F%06d", nextIdent))
                nextIdent += 1
                session.context.insert(flight)
                var expected = Expected(routeDistance: Int(rng.next() % 40) * 100)
                flight.routeDistance = expected.routeDistance
                expected.destination = maybe(Self.icaos)
                flight.destination = expected.destination.map { session.airports[$0]! }
                expected.airline = maybe(Self.codes)
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
                let destination = maybe(Self.icaos), origin = maybe(Self.icaos)
                let flight = try #require(try session.flight(ident))
                flight.destination = destination.map { session.airports[$0]! }
                flight.origin = origin.map { session.airports[$0]! }
                pending[ident]!.destination = destination
                pending[ident]!.origin = origin
            case (7, let ident?):
                // From the to-many side: the flight's to-one follows.
                let code = pick(Self.codes), flight = try #require(try session.flight(ident))
                if pending[ident]!.airline != code {
                    session.airlines[code]!.flights.append(flight)
                    pending[ident]!.airline = code
                }
            case (8, _):
                if rng.next() % 6 == 0 {
                    session.context.rollback()
                    pending = saved
                } else {
                    try session.context.save()
                    saved = pending
                    saves += 1
                }
            default:
                if rng.next() % 12 != 0 {
                    try session.context.save()
                    saved = pending
                    saves += 1
                } else {
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

    /// The fetches, counts and relationships of `session` against `expected`.
    func check(_ session: Session, against expected: [String: Expected], _ rng: inout SplitMix64, _ label: String) throws {
        let context = session.context
        let all = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        #expect(all.map(\.ident) == expected.keys.sorted(), "\(label): every flight")
        for flight in all {
            let values = Expected(routeDistance: flight.routeDistance, status: flight.status, actualOff: flight.actualOff,
                                  origin: flight.origin?.icao, destination: flight.destination?.icao, airline: flight.airline?.code)
            #expect(values == expected[flight.ident], "\(label): \(flight.ident)")
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
