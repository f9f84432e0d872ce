import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// An ad-hoc fetch finds its compiled query by its predicate's expression type and signature.
/// Predicates of one type that differ in a key path, an operator or a Bool must never share one.
@Suite struct PredicateSignatureTests {
    /// Signed as a fetch signs it: through the expression's type, the value where it lies.
    private func signed(_ predicate: Predicate<Flight>) throws -> (PredicateSignature, SlotValues) {
        func signed<E: StandardPredicateExpression<Bool>>(_ expression: E) throws -> (PredicateSignature, SlotValues) {
            try #require(PredicateExpressionType.of(E.self).signer).sign(expression)
        }
        return try signed(predicate.expression)
    }

    /// The constants a signature collects are the shape's slot values, in the shape's order, in
    /// the stored form a conversion of each gives.
    @Test func aSignaturesConstantsAreTheShapesSlotValues() throws {
        let d = 100, icao = "K1", other: String? = nil, on = true, off = false, idents = ["A", "B"]
        let cutoff = Date(timeIntervalSince1970: 5), maybe: Bool? = true, status = FlightStatus.landed
        let predicates: [Predicate<Flight>] = [
            #Predicate { $0.status == status && ($0.actualOff == cutoff || maybe == true) },
            #Predicate { $0.routeDistance > d && $0.destination?.icao == icao },
            #Predicate { on || ($0.routeDistance > d && off) },
            #Predicate { !($0.actualOff == nil) && ($0.origin?.icao ?? "none") != icao && $0.origin?.icao == other },
            #Predicate { idents.contains($0.ident) || $0.routeDistance == 7 || ($0.actualOff ?? cutoff) < cutoff },
            #Predicate { _ in true },
        ]
        for (i, predicate) in predicates.enumerated() {
            let (_, constants) = try signed(predicate)
            let shaped = QueryShape.fingerprint(of: PredicateNode(predicate.expression)).constants
            #expect(constants.given.map { "\($0)" } == shaped.map { "\($0)" }, "\(i)")
            let converted = QueryPlanner.storedValues(shaped)
            #expect(constants.stored == converted.stored && constants.storedComplete == converted.complete, "\(i)")
        }
    }

    @Test func predicatesOfOneTypeDifferingInAKeyPathOperatorOrBoolAreToldApart() throws {
        let d = 100, icao = "K1", on = true, off = false
        let pairs: [(Predicate<Flight>, Predicate<Flight>)] = [
            (#Predicate { $0.origin?.icao == icao }, #Predicate { $0.destination?.icao == icao }),
            (#Predicate { $0.routeDistance < d }, #Predicate { $0.routeDistance > d }),
            (#Predicate { on || $0.routeDistance > d }, #Predicate { off || $0.routeDistance > d }),
        ]
        for (i, (a, b)) in pairs.enumerated() {
            #expect(type(of: a.expression) == type(of: b.expression), "\(i): one expression type")
            #expect(try signed(a).0 != signed(b).0, "\(i)")
        }
        // Written alike with other constants: one signature.
        func longer(_ d: Int) -> Predicate<Flight> { #Predicate { $0.routeDistance > d } }
        #expect(try signed(longer(1)).0 == signed(longer(2)).0)
    }

    /// Fetches of one expression type with other key paths, operators and Bools each get their
    /// own compiled query and answer as scans; written alike, they share one.
    @Test func fetchesOfOneTypeAnswerAsScans() throws {
        let (context, _, _) = try PlannerTests().randomGraph(seed: 21)
        for icao in ["K1", "K2", "K5"] {
            for (name, predicate) in [("origin", #Predicate<Flight> { $0.origin?.icao == icao }),
                                      ("destination", #Predicate<Flight> { $0.destination?.icao == icao })] {
                let (planned, scanned) = try PlannerTests().fetchBoth(context, FetchDescriptor(predicate: predicate))
                #expect(planned == scanned, "\(name) \(icao)")
                #expect(!planned.isEmpty)
            }
        }
        #expect(context.compiledQueriesBySignature.count == 2)
        for distance in [0, 150, 300] {
            for (name, predicate) in [("<", #Predicate<Flight> { $0.routeDistance < distance }),
                                      (">", #Predicate<Flight> { $0.routeDistance > distance })] {
                let (planned, scanned) = try PlannerTests().fetchBoth(context, FetchDescriptor(predicate: predicate,
                                                                                               sortBy: [SortDescriptor(\.ident)]))
                #expect(planned == scanned, "\(name) \(distance)")
            }
        }
        #expect(context.compiledQueriesBySignature.count == 4)
        for anyDistance in [true, false, true] {
            let distance = 200
            let predicate = #Predicate<Flight> { anyDistance || $0.routeDistance == distance }
            let (planned, scanned) = try PlannerTests().fetchBoth(context, FetchDescriptor(predicate: predicate))
            #expect(planned == scanned, "\(anyDistance)")
        }
        #expect(context.compiledQueriesBySignature.count == 6)
    }

    /// A predicate whose tree does not convert statically (a string function in it) is found
    /// by shape alone, and answers as a scan.
    @Test func aPredicateThatDoesNotConvertStaticallyIsFoundByShape() throws {
        let (context, _, _) = try PlannerTests().randomGraph(seed: 22)
        let prefix = "F1"
        let predicate = #Predicate<Flight> { $0.ident.starts(with: prefix) && $0.routeDistance > 100 }
        #expect(!(predicate.expression is any PredicateNodeConvertible))
        let (planned, scanned) = try PlannerTests().fetchBoth(context, FetchDescriptor(predicate: predicate))
        #expect(planned == scanned)
        #expect(!planned.isEmpty)
        #expect(context.compiledQueriesBySignature.count == 0)
    }
}
