import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// What a predicate's expression type is, found out once per type: `$0.key == constant` is told
/// from every other predicate, and a tree that converts statically from one that does not. Each
/// call, first or later, through a context's table or a new one, gives the same answers, and a
/// lookup gives this predicate's own constant.
@Suite struct PredicateExpressionTypesTests {
    private func parts(_ predicate: Predicate<Flight>, in types: inout PredicateExpressionTypes) -> (AnyKeyPath, Any)? {
        func parts<E: StandardPredicateExpression<Bool>>(_ expression: E) -> (AnyKeyPath, Any)? {
            guard let found = types.of(E.self).keyLookup?.parts(of: expression) else { return nil }
            return (found.keyPath, found.constant)
        }
        return parts(predicate.expression)
    }

    private func converts(_ predicate: Predicate<Flight>, in types: inout PredicateExpressionTypes) -> Bool {
        func converts<E: StandardPredicateExpression<Bool>>(_ expression: E) -> Bool { types.of(E.self).convertible != nil }
        return converts(predicate.expression)
    }

    @Test func lookupsGiveTheirKeyAndConstantAndOthersNothing() throws {
        var kept = PredicateExpressionTypes()
        for round in 0..<3 {
            var fresh = PredicateExpressionTypes()
            for types in [true, false] {
                func parts(_ predicate: Predicate<Flight>) -> (AnyKeyPath, Any)? {
                    types ? self.parts(predicate, in: &kept) : self.parts(predicate, in: &fresh)
                }
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

    /// A lookup whose constant is `Storable` gives the constant's stored form from its own
    /// conformance, the same as the run-time conversion of the constant gives; one whose
    /// constant is not (an enum, stored as its raw value) is a lookup all the same, converted
    /// at run time.
    @Test func aStorableConstantsStoredFormIsTheOneTheRunTimeConversionGives() throws {
        var types = PredicateExpressionTypes()
        func stored(_ predicate: Predicate<Flight>) -> (AnyKeyPath, Value, Value?)? {
            func stored<E: StandardPredicateExpression<Bool>>(_ expression: E) -> (AnyKeyPath, Value, Value?)? {
                let known = types.of(E.self)
                guard let storable = known.storableKeyLookup, let parts = known.keyLookup?.parts(of: expression) else { return nil }
                let direct = storable.storedParts(of: expression)
                #expect(direct.keyPath == parts.keyPath)
                return (direct.keyPath, direct.value, QueryPlanner.storedValue(parts.constant))
            }
            return stored(predicate.expression)
        }
        let ident = "F7", distance = 7, missing: Date? = nil, when: Date? = Date(timeIntervalSince1970: 1_000)
        for _ in 0..<2 {
            for (predicate, keyPath, value) in [
                (#Predicate<Flight> { $0.ident == ident }, \Flight.ident as AnyKeyPath, Value.string("F7")),
                (#Predicate<Flight> { $0.routeDistance == distance }, \Flight.routeDistance, .int(7)),
                (#Predicate<Flight> { $0.actualOff == when }, \Flight.actualOff, when!.storedValue),
                (#Predicate<Flight> { $0.actualOff == missing }, \Flight.actualOff, .null),
            ] {
                let found = try #require(stored(predicate))
                #expect(found.0 == keyPath && found.1 == value && found.2 == value)
            }
            let status = FlightStatus.scheduled
            #expect(stored(#Predicate<Flight> { $0.status == status }) == nil)
            #expect(parts(#Predicate<Flight> { $0.status == status }, in: &types).map { $0.1 as? FlightStatus } == status)
        }
    }

    /// A lookup whose constant is a String, an optional String or an Int is read where the
    /// expression holds it (`keyLookupLayout`), and gives the key path and stored constant its
    /// conformance gives; one with a constant of another type (a date) has no layout.
    @Test func lookupsReadInPlaceGiveWhatTheirConformanceGives() throws {
        var types = PredicateExpressionTypes()
        func parts<M: Model>(_ predicate: Predicate<M>) -> (inPlace: Bool, keyPath: AnyKeyPath, value: Value)? {
            func parts<E: StandardPredicateExpression<Bool>>(_ expression: E) -> (Bool, AnyKeyPath, Value)? {
                let known = types.of(E.self)
                guard let storable = known.storableKeyLookup else {
                    #expect(known.keyLookupLayout == nil)
                    return nil
                }
                let direct = storable.storedParts(of: expression)
                guard let layout = known.keyLookupLayout else { return (false, direct.keyPath, direct.value) }
                let inPlace = layout.parts(of: expression)
                #expect(inPlace.keyPath == direct.keyPath && inPlace.value == direct.value)
                return (true, inPlace.keyPath, inPlace.value)
            }
            return parts(predicate.expression)
        }
        for round in 0..<3 {
            let ident = "F\(round)", distance = round * 10, when: Date? = Date(timeIntervalSince1970: Double(round))
            let code: String? = "B\(round)", none: String? = nil
            let cases: [((Bool, AnyKeyPath, Value)?, Bool, AnyKeyPath, Value)] = [
                (parts(#Predicate<Flight> { $0.ident == ident }), true, \Flight.ident, .string(ident)),
                (parts(#Predicate<Flight> { $0.routeDistance == distance }), true, \Flight.routeDistance, .int(Int64(distance))),
                (parts(#Predicate<Badge> { $0.code == code }), true, \Badge.code, .string(code!)),
                (parts(#Predicate<Badge> { $0.code == none }), true, \Badge.code, .null),
                (parts(#Predicate<Flight> { $0.actualOff == when }), false, \Flight.actualOff, when!.storedValue),
            ]
            for (found, inPlace, keyPath, value) in cases {
                let found = try #require(found)
                #expect(found.0 == inPlace && found.1 == keyPath && found.2 == value)
            }
            #expect(parts(#Predicate<Flight> { $0.routeDistance > distance }) == nil)
            #expect(parts(#Predicate<Flight> { $0.ident == ident && $0.routeDistance == distance }) == nil)
        }
    }

    /// Trees whose every node has a static conversion convert; one with a node converted child by
    /// child (a string function) does not, and is found by shape instead.
    @Test func treesConvertStaticallyOnlyWhenEveryNodeDoes() {
        var types = PredicateExpressionTypes()
        let icao = "K1", distance = 5
        for _ in 0..<2 {
            #expect(converts(#Predicate<Flight> { $0.origin?.icao == icao && $0.routeDistance > distance }, in: &types))
            #expect(converts(#Predicate<Flight> { $0.ident == icao }, in: &types))
            #expect(!converts(#Predicate<Flight> { $0.ident.starts(with: icao) }, in: &types))
        }
    }
}

/// A model with an optional unique key, for lookups whose constant is an optional String.
final class Badge: Model {
    @Attribute(.unique) var code: String? = nil
    @Attribute(.unique) var number: Int = 0
}
