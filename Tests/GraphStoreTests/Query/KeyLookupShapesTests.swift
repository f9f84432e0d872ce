import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// `$0.key == constant` is told from every other predicate by its type, once per type: each
/// call, first or later, gives the key path and this predicate's own constant, or nothing.
@Suite struct KeyLookupShapesTests {
    func parts(_ predicate: Predicate<Flight>) -> (AnyKeyPath, Any)? {
        KeyLookupShapes.parts(of: predicate.expression).map { ($0.keyPath, $0.constant) }
    }

    @Test func lookupsGiveTheirKeyAndConstantAndOthersNothing() throws {
        for round in 0..<3 {
            let ident = "F\(round)", distance = round * 10
            let byIdent = try #require(parts(#Predicate<Flight> { $0.ident == ident }))
            #expect(byIdent.0 == \Flight.ident && byIdent.1 as? String == ident)
            let byDistance = try #require(parts(#Predicate<Flight> { $0.routeDistance == distance }))
            #expect(byDistance.0 == \Flight.routeDistance && byDistance.1 as? Int == distance)
            #expect(parts(#Predicate<Flight> { $0.ident == ident || $0.ident == ident }) == nil)
            #expect(parts(#Predicate<Flight> { $0.routeDistance > distance }) == nil)
            #expect(parts(#Predicate<Flight> { $0.origin?.icao == ident }) == nil)
        }
    }
}
