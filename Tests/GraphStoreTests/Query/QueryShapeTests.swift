import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// A predicate's shape is planned and compiled once per context; each fetch binds its own
/// constants. Sharing must never change an answer.
@Suite struct QueryShapeTests {
    private func shape(_ predicate: Predicate<Flight>) -> (QueryShape, [Any]) {
        QueryShape.parameterizing(PredicateNode(predicate.expression))
    }

    @Test func predicatesWrittenAlikeHaveOneShapeAndTheirOwnConstants() {
        func byDistance(_ d: Int, _ icao: String) -> Predicate<Flight> {
            #Predicate { $0.routeDistance > d && $0.destination?.icao == icao }
        }
        let (a, aConstants) = shape(byDistance(100, "K1"))
        let (b, bConstants) = shape(byDistance(300, "K2"))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(aConstants.count == 2 && bConstants.count == 2)
        #expect(aConstants[0] as? Int == 100 && aConstants[1] as? String == "K1")
        #expect(bConstants[0] as? Int == 300 && bConstants[1] as? String == "K2")

        // Another key path, operator or Bool constant is another shape.
        let d = 100, on = true, off = false
        #expect(shape(#Predicate { $0.routeDistance < d }).0 != shape(#Predicate { $0.routeDistance > d }).0)
        #expect(shape(#Predicate { $0.routeDistance > d }).0 != shape(#Predicate { $0.origin?.icao == "d" }).0)
        #expect(shape(#Predicate { on || $0.routeDistance > d }).0 != shape(#Predicate { off || $0.routeDistance > d }).0)
        #expect(shape(#Predicate { on || $0.routeDistance > d }).1.count == 1)
    }

    /// A fetch finds its shape without making it: the fingerprint's hash and constants are the
    /// shape's, and `isShape(of:)` tells shapes apart as `==` does.
    @Test func aFingerprintIsTheShapesHashAndConstants() {
        let d = 100, icao = "K1", on = true, off = false, idents = ["A", "B"]
        let predicates: [Predicate<Flight>] = [
            #Predicate { $0.routeDistance > d && $0.destination?.icao == icao },
            #Predicate { $0.routeDistance < d && $0.destination?.icao == icao },
            #Predicate { on || $0.routeDistance > d },
            #Predicate { off || $0.routeDistance > d },
            #Predicate { !($0.actualOff == nil) && ($0.origin?.icao ?? "none") != icao },
            #Predicate { idents.contains($0.ident) || $0.routeDistance == 7 },
            #Predicate { _ in true },
        ]
        for (i, predicate) in predicates.enumerated() {
            let node = PredicateNode(predicate.expression)
            let (shape, constants) = QueryShape.parameterizing(node)
            let fingerprint = QueryShape.fingerprint(of: node)
            #expect(fingerprint.shapeHash == shape.shapeHash, "\(i)")
            #expect(fingerprint.constants.map { "\($0)" } == constants.map { "\($0)" }, "\(i)")
            for (j, other) in predicates.enumerated() {
                let otherShape = QueryShape.parameterizing(PredicateNode(other.expression)).shape
                #expect(otherShape.isShape(of: node) == (i == j), "\(i) against \(j)")
                #expect((otherShape == shape) == (i == j), "\(i) == \(j)")
            }
        }
    }

    /// Two shapes kept under one hash (a collision): each fetch finds its own.
    @Test func shapesUnderOneHashAreToldApart() throws {
        let (context, _, _) = try PlannerTests().randomGraph(seed: 15)
        let distance = 250
        let longer = FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance > distance })
        let shorter = FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance < distance })
        let entity = try #require(context.schema.entity(for: Flight.self))
        _ = try context.fetch(shorter)
        let kept = try #require(context.compiledQueries.values.first?.first)
        // The shorter shape's compiled query filed under the longer one's hash.
        let longerHash = QueryShape.fingerprint(of: PredicateNode(longer.predicate!.expression)).shapeHash
        context.compiledQueries = [CompiledQueryKey(entity: entity.index, shapeHash: longerHash): [kept]]
        let found = try context.fetch(longer)
        #expect(!found.isEmpty && found.allSatisfy { $0.routeDistance > distance })
        let (planned, scanned) = try PlannerTests().fetchBoth(context, longer)
        #expect(planned == scanned)
        #expect(context.compiledQueries.values.first?.count == 2)
    }

    @Test func fetchesOfOneShapeShareACompiledQueryAndAnswerAsScans() throws {
        let (context, _, _) = try PlannerTests().randomGraph(seed: 11)
        for distance in stride(from: 0, to: 500, by: 50) {
            for icao in ["K1", "K4", "K9"] {
                let predicate = #Predicate<Flight> { $0.routeDistance >= distance && $0.destination?.icao == icao }
                let (planned, scanned) = try PlannerTests().fetchBoth(context, FetchDescriptor(predicate: predicate))
                #expect(planned == scanned, "distance \(distance), \(icao)")
            }
        }
        #expect(context.compiledQueries.count == 1)
        // The optional-filter shape: each Bool is its own shape, each answering as a scan.
        for anyDistance in [true, false] {
            let distance = 200
            let predicate = #Predicate<Flight> { anyDistance || $0.routeDistance == distance }
            let (planned, scanned) = try PlannerTests().fetchBoth(context, FetchDescriptor(predicate: predicate))
            #expect(planned == scanned)
        }
        #expect(context.compiledQueries.count == 3)
    }

    @Test func oneShapeOverTwoEntitiesIsCompiledForEach() throws {
        let (context, airports, _) = try PlannerTests().randomGraph(seed: 12)
        #expect(try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { _ in true })).count == 200)
        #expect(try context.fetch(FetchDescriptor<Airport>(predicate: #Predicate { _ in true })).count == airports.count)
        #expect(context.compiledQueries.count == 2)
    }

    /// A shape whose constants differ in whether they have a stored form: the one without is
    /// filtered on objects, the other on rows, each correct.
    @Test func aConstantWithoutAStoredFormRunsOnObjects() throws {
        let (context, _, _) = try PlannerTests().randomGraph(seed: 13)
        let idents = ["F1", "F2", "F30"]
        let inList = FetchDescriptor<Flight>(predicate: #Predicate { idents.contains($0.ident) })
        #expect(try context.explain(inList).contains("filter by the predicate on objects"))
        #expect(try context.fetch(inList).map(\.ident).sorted() == idents.sorted())
    }

    /// What a fetch of a shape binds lasts only for that fetch: a save between two fetches of
    /// one shape, with another constant, is seen.
    @Test func aCachedShapeSeesSavesBetweenFetches() throws {
        let (context, airports, _) = try PlannerTests().randomGraph(seed: 14)
        func arriving(_ icao: String) throws -> [Flight] {
            try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.destination?.icao == icao && $0.routeDistance >= 0 }))
        }
        let toK2 = try arriving("K2").count, toK3 = try arriving("K3")
        for flight in toK3 { flight.destination = airports[2] }
        try context.save()
        #expect(try arriving("K2").count == toK2 + toK3.count)
        #expect(try arriving("K3").isEmpty)
        #expect(context.compiledQueries.count == 1)
    }
}
