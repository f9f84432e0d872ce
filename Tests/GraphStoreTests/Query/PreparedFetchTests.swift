import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// A prepared fetch run with values answers as a `FetchDescriptor` with those values as
/// constants, and as a scan: on random graphs, for every way a parameter can be compared (a
/// unique key, a to-one target's key that names a row, no row or nil, a range, a Bool that
/// switches a filter off, IN), sorted and paged, with and without unsaved changes.
@Suite struct PreparedFetchTests {
    struct Route {
        var icao: String?
        var distance: Int
    }

    struct OptionalFilter {
        var anyDestination: Bool
        var icao: String?
    }

    static let byDestination = PreparedFetch<Flight, String?>(predicate: #Predicate { flight, icao in flight.destination?.icao == icao })
    static let byIdent = PreparedFetch<Flight, String>(predicate: #Predicate { flight, ident in flight.ident == ident })
    static let notToDestination = PreparedFetch<Flight, String?>(predicate: #Predicate { flight, icao in flight.destination?.icao != icao })
    static let routePredicate = #Predicate<Flight, Route> { flight, route in
        flight.destination?.icao == route.icao && flight.routeDistance > route.distance
    }
    static let byRoute = PreparedFetch(predicate: routePredicate)
    static let pairPredicate = #Predicate<Flight, (String?, String?)> { flight, pair in
        flight.destination?.icao == pair.0 && flight.origin?.icao == pair.1
    }
    static let byPair = PreparedFetch(predicate: pairPredicate)
    static let filterPredicate = #Predicate<Flight, OptionalFilter> { flight, filter in
        filter.anyDestination || flight.destination?.icao == filter.icao
    }
    static let optionalFilter = PreparedFetch(predicate: filterPredicate)
    static let byDistance = PreparedFetch<Flight, Int>(predicate: #Predicate { flight, distance in flight.routeDistance == distance })
    static let fromK1Predicate = #Predicate<Flight, String?> { flight, icao in
        flight.origin?.icao == "K1" && flight.destination?.icao == icao && flight.actualOff != nil
    }
    static let fromK1 = PreparedFetch(predicate: fromK1Predicate)
    /// An enum parameter: no typed reader (not `Storable` itself), read through `Any`.
    static let byStatus = PreparedFetch<Flight, FlightStatus>(predicate: #Predicate { flight, status in flight.status == status })
    static let oneOf = PreparedFetch<Flight, [String]>(predicate: #Predicate { flight, idents in idents.contains(flight.ident) })

    /// The prepared run, the bound descriptor's planned fetch and its scan, as identifiers.
    func runs<P>(_ context: ModelContext, _ prepared: PreparedFetch<Flight, P>, _ values: P)
        throws -> (prepared: [PersistentIdentifier], planned: [PersistentIdentifier], scanned: [PersistentIdentifier]) {
        let fromPrepared = try context.fetch(prepared, values).map(\.persistentModelID)
        let planned = try context.fetch(prepared.descriptor(values)).map(\.persistentModelID)
        context.plansQueries = false
        defer { context.plansQueries = true }
        let scanned = try context.fetch(prepared.descriptor(values)).map(\.persistentModelID)
        return (fromPrepared, planned, scanned)
    }

    func check<P>(_ context: ModelContext, _ name: String, _ prepared: PreparedFetch<Flight, P>, _ values: P,
                  against constants: FetchDescriptor<Flight>) throws {
        // By a stored number, forward and reverse (sorted as rows when no two share it), and by a string.
        let sorts: [[SortDescriptor<Flight>]] = [[], [SortDescriptor(\.routeDistance, order: .reverse), SortDescriptor(\.ident)],
                                                 [SortDescriptor(\.routeDistance)], [SortDescriptor(\.ident, order: .reverse)]]
        for sortBy in sorts {
            for (offset, limit) in [(nil, nil), (2, 5)] as [(Int?, Int?)] {
                var prepared = prepared, constants = constants
                prepared.sortBy = sortBy
                constants.sortBy = sortBy
                prepared.fetchOffset = offset
                constants.fetchOffset = offset
                prepared.fetchLimit = limit
                constants.fetchLimit = limit
                let (fromPrepared, planned, scanned) = try runs(context, prepared, values)
                let expected = try context.fetch(constants).map(\.persistentModelID)
                #expect(fromPrepared == expected, "\(name) \(values), sorted by \(sortBy.count), offset \(offset ?? 0)")
                #expect(planned == expected, "\(name) \(values): the bound descriptor")
                #expect(scanned == expected, "\(name) \(values): the bound descriptor, scanned")
                #expect(try context.fetchIdentifiers(prepared, values) == expected)
                #expect(try context.fetchCount(prepared, values) == expected.count)
            }
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func preparedRunsAnswerAsTheirDescriptors(seed: UInt64) throws {
        var (context, airports, rng) = try PlannerTests().randomGraph(seed: seed)
        for round in 0..<3 {
            if round >= 1 {
                // Unsaved changes: the run is the bound descriptor's fetch, which sees them.
                let flights = try context.fetch(FetchDescriptor<Flight>())
                for _ in 0..<20 {
                    let flight = flights[Int(rng.next() % UInt64(flights.count))]
                    if rng.next() % 2 == 0 { flight.destination = airports[Int(rng.next() % 8)] } else { flight.routeDistance += 10 }
                }
                #expect(context.hasChanges)
            }
            if round == 2 {
                // Saved relinks and deletions: runs on the graph again, whose link columns and
                // inverse sets (which two inverse sets intersect through) have moved.
                let flights = try context.fetch(FetchDescriptor<Flight>())
                for _ in 0..<5 { context.delete(flights[Int(rng.next() % UInt64(flights.count))]) }
                try context.save()
                #expect(!context.hasChanges)
            }
            // K8 names no airport; nil matches flights without a destination.
            for icao in ["K0", "K3", "K8", nil] as [String?] {
                try check(context, "destination", Self.byDestination, icao,
                          against: FetchDescriptor(predicate: #Predicate { $0.destination?.icao == icao }))
                try check(context, "not to destination", Self.notToDestination, icao,
                          against: FetchDescriptor(predicate: #Predicate { $0.destination?.icao != icao }))
                let distance = Int(rng.next() % 50) * 10
                try check(context, "route", Self.byRoute, Route(icao: icao, distance: distance),
                          against: FetchDescriptor(predicate: #Predicate { $0.destination?.icao == icao && $0.routeDistance > distance }))
                try check(context, "from K1", Self.fromK1, icao,
                          against: FetchDescriptor(predicate: #Predicate { $0.origin?.icao == "K1" && $0.destination?.icao == icao && $0.actualOff != nil }))
                let origin: String? = "K\(rng.next() % 9)"
                try check(context, "pair", Self.byPair, (icao, origin),
                          against: FetchDescriptor(predicate: #Predicate { $0.destination?.icao == icao && $0.origin?.icao == origin }))
                for any in [false, true] {
                    try check(context, "optional filter", Self.optionalFilter, OptionalFilter(anyDestination: any, icao: icao),
                              against: FetchDescriptor(predicate: #Predicate { any || $0.destination?.icao == icao }))
                }
            }
            for _ in 0..<5 {
                let ident = "F\(rng.next() % 220)", other = "F\(rng.next() % 220)"
                try check(context, "ident", Self.byIdent, ident, against: FetchDescriptor(predicate: #Predicate { $0.ident == ident }))
                let distance = Int(rng.next() % 50) * 10
                try check(context, "distance", Self.byDistance, distance,
                          against: FetchDescriptor(predicate: #Predicate { $0.routeDistance == distance }))
                let status = FlightStatus.allCases[Int(rng.next() % UInt64(FlightStatus.allCases.count))]
                try check(context, "status", Self.byStatus, status, against: FetchDescriptor(predicate: #Predicate { $0.status == status }))
                try check(context, "IN", Self.oneOf, [ident, other],
                          against: FetchDescriptor(predicate: #Predicate { [ident, other].contains($0.ident) }))
            }
        }
    }

    /// On a context without unsaved changes a run filters rows with the condition compiled on
    /// its first run there, not through the descriptor (which the differential test also checks).
    @Test func cleanContextsRunTheCompiledCondition() throws {
        let (context, _, _) = try PlannerTests().randomGraph(seed: 8)
        for fetch in [Self.byDestination, Self.notToDestination] { _ = try context.fetch(fetch, "K1") }
        _ = try context.fetch(Self.byRoute, Route(icao: "K1", distance: 10))
        for prepared in [Self.byDestination.prepared, Self.notToDestination.prepared, Self.byRoute.prepared] {
            #expect(context.compiledPreparedFetches[ObjectIdentifier(prepared)]?.condition != nil)
        }
        // IN over a parameter array runs on objects: compiled without a condition.
        _ = try context.fetch(Self.oneOf, ["F1"])
        #expect(context.compiledPreparedFetches[ObjectIdentifier(Self.oneOf.prepared)]?.condition == nil)
    }

    /// Runs after a save see it: nothing a run binds or resolves outlives the run.
    @Test func runsSeeSavesBetweenThem() throws {
        let (context, airports, _) = try PlannerTests().randomGraph(seed: 5)
        let before = try context.fetch(Self.byDestination, "K2").count
        let moved = try context.fetch(Self.byDestination, "K3")
        for flight in moved { flight.destination = airports[2] }
        try context.save()
        #expect(try context.fetch(Self.byDestination, "K2").count == before + moved.count)
        #expect(try context.fetch(Self.byDestination, "K3").isEmpty)
        // Another context's save, merged into the graph this context reads.
        let other = ModelContext(context.container)
        for flight in try other.fetch(Self.byDestination, "K2") { other.delete(flight) }
        try other.save()
        #expect(try context.fetch(Self.byDestination, "K2").isEmpty)
    }

    @Test func explainShowsTheBoundPlan() throws {
        let (context, _, _) = try PlannerTests().randomGraph(seed: 6)
        let plan = try context.explain(Self.byRoute, Route(icao: "K1", distance: 100))
        #expect(plan.contains(#"inverse set of Airport.icao = "K1" through Flight.destination"#), "\(plan)")
        #expect(try context.explain(Self.byIdent, "F7").contains(#"unique index Flight.ident = "F7""#))
    }

    @Test func theBoundPredicateEvaluatesAndRefusesArchiving() throws {
        let (context, _, _) = try PlannerTests().randomGraph(seed: 7)
        let flight = try #require(try context.fetch(Self.byIdent, "F3").first)
        let predicate = try #require(Self.byIdent.descriptor("F3").predicate)
        #expect(try predicate.evaluate(flight))
        #expect(try !(#require(Self.byIdent.descriptor("F4").predicate)).evaluate(flight))
        struct Archived: Encodable {
            let expression: any Encodable
            func encode(to encoder: any Encoder) throws { try expression.encode(to: encoder) }
        }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Archived(expression: predicate.expression)) }
    }
}
