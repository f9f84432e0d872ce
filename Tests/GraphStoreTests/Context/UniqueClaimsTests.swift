import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@_spi(GraphStoreInternals) import GraphStoreCore

/// A save's claims of unique keys: found by key (whatever the hashes), the latest claimant of
/// a key in place of an earlier one, rules and entities apart.
@Suite struct UniqueClaimsTests {
    @Test func findsEachKeyByItsClaimantsKey() {
        var keys: [ObjectIdentifier: RuleKey] = [:]
        let keyOf = { (backing: ModelBacking) in keys[ObjectIdentifier(backing)] }
        var claims = UniqueClaims()
        var flights: [Flight] = []
        for i in 0..<1_000 {
            let flight = Flight(ident: "F\(i)")
            flight.persistentBacking.row = UInt64(i + 1)
            let key = RuleKey.single(.string("F\(i)"))
            keys[ObjectIdentifier(flight)] = key
            // Every fourth key under one hash: candidates of other keys are passed over.
            let hash = i % 4 == 0 ? 7 : HashedPositions.hash(key)
            claims.claim(entity: 0, rule: 0, key: key, hash: hash, by: flight.persistentBacking, keyOf: keyOf)
            flights.append(flight)
        }
        for i in 0..<1_000 {
            let key = RuleKey.single(.string("F\(i)"))
            let hash = i % 4 == 0 ? 7 : HashedPositions.hash(key)
            #expect(claims.row(entity: 0, rule: 0, key: key, hash: hash, keyOf: keyOf) == UInt64(i + 1))
            #expect(claims.row(entity: 0, rule: 1, key: key, hash: hash, keyOf: keyOf) == nil)
            #expect(claims.row(entity: 1, rule: 0, key: key, hash: hash, keyOf: keyOf) == nil)
        }
        #expect(claims.row(entity: 0, rule: 0, key: .single(.string("none")), hash: 7, keyOf: keyOf) == nil)
        // A later claimant of a key takes its place.
        let later = Flight(ident: "F8")
        later.persistentBacking.row = 5_000
        keys[ObjectIdentifier(later)] = .single(.string("F8"))
        claims.claim(entity: 0, rule: 0, key: .single(.string("F8")), hash: 7, by: later.persistentBacking, keyOf: keyOf)
        #expect(claims.row(entity: 0, rule: 0, key: .single(.string("F8")), hash: 7, keyOf: keyOf) == 5_000)
        #expect(claims.row(entity: 0, rule: 0, key: .single(.string("F4")), hash: 7, keyOf: keyOf) == 5)
    }
}
