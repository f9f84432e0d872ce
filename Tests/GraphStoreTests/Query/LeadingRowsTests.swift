import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore
@_spi(GraphStoreInternals) import GraphStoreGraph
@testable import GraphStoreMacrosFree

/// A fetch with a limit makes objects only for the rows its first sort key puts first (and
/// their ties): its results are still exactly the first ones of the whole fetch in Foundation's
/// order, with an indexed first key (walked in the index) or not, forward or reverse, many ties
/// decided by later keys or by row order, nil and non-number keys (which go the whole way),
/// offsets, limits past the end, and with a predicate.
@Suite struct LeadingRowsTests {
    func stored() throws -> ModelContext {
        let container = try ModelContainer(for: Flight.self, Everything.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let loader = ModelContext(container)
        var random = SplitMix64(seed: 5)
        for i in 0..<600 {
            let flight = Flight(ident: "F\(random.next() % 100_000)-\(i)")
            loader.insert(flight)
            flight.routeDistance = Int(random.next() % 40) - 5     // ties, negatives
            flight.status = FlightStatus.allCases[Int(random.next() % 3)]
            flight.actualOff = i % 7 == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(random.next() % 30) * 60)
            let everything = Everything()
            loader.insert(everything)
            everything.int = Int(random.next() % 25)
            everything.double = Double(random.next() % 50) / 4 - 3
            everything.date = Date(timeIntervalSince1970: Double(random.next() % 20) * 3_600)
            // Mixed case and digits: the string comparators order these differently.
            everything.string = "\(random.next() % 2 == 0 ? "s" : "S")\(random.next() % 12)"
            everything.priority = random.next() % 2 == 0 ? .low : .high
            everything.optionalInt = i % 5 == 0 ? nil : Int(random.next() % 3)
            everything.optionalString = i % 4 == 0 ? nil : "o\(random.next() % 3)"
            everything.uint8 = UInt8(random.next() % 200)
        }
        try loader.save()
        // A later save moves some rows in the index (and some to the front or back).
        for flight in try loader.fetch(FetchDescriptor<Flight>()).prefix(50) { flight.routeDistance = flight.routeDistance % 3 == 0 ? -100 : 1_000 }
        try loader.save()
        return ModelContext(container)
    }

    func expectFirstResults<T: PersistentModel>(_ sortBy: [SortDescriptor<T>], predicate: Predicate<T>? = nil,
                                                in context: ModelContext) throws {
        let all = try context.fetch(FetchDescriptor<T>(predicate: predicate)).sorted(using: sortBy)
        for (offset, limit) in [(0, 1), (0, 7), (3, 10), (0, 64), (590, 20), (0, 2_000), (20, 0)] {
            var descriptor = FetchDescriptor<T>(predicate: predicate, sortBy: sortBy)
            descriptor.fetchOffset = offset == 0 ? nil : offset
            descriptor.fetchLimit = limit
            let expected = all[min(offset, all.count)..<min(all.count, offset + limit)].map(\.persistentModelID)
            #expect(try context.fetch(descriptor).map(\.persistentModelID) == expected, "offset \(offset) limit \(limit): \(sortBy)")
        }
    }

    @Test func anIndexedFirstKeyWalkedFromEitherEnd() throws {
        let context = try stored()
        try expectFirstResults([SortDescriptor(\Flight.routeDistance)], in: context)
        try expectFirstResults([SortDescriptor(\Flight.routeDistance, order: .reverse)], in: context)
        try expectFirstResults([SortDescriptor(\Flight.routeDistance), SortDescriptor(\Flight.ident, order: .reverse)], in: context)
        try expectFirstResults([SortDescriptor(\Flight.routeDistance, order: .reverse), SortDescriptor(\Flight.ident)], in: context)
    }

    @Test func firstKeysReadFromTheirColumns() throws {
        let context = try stored()
        try expectFirstResults([SortDescriptor(\Everything.int)], in: context)
        try expectFirstResults([SortDescriptor(\Everything.int, order: .reverse), SortDescriptor(\Everything.string)], in: context)
        try expectFirstResults([SortDescriptor(\Everything.double), SortDescriptor(\Everything.date, order: .reverse)], in: context)
        try expectFirstResults([SortDescriptor(\Everything.date, order: .reverse)], in: context)
        try expectFirstResults([SortDescriptor(\Everything.uint8, order: .reverse)], in: context)
        // Keys the rows cannot order: every object, as before.
        try expectFirstResults([SortDescriptor(\Everything.string), SortDescriptor(\Everything.int)], in: context)
        try expectFirstResults([SortDescriptor(\Flight.actualOff), SortDescriptor(\Flight.ident)], in: context)
        try expectFirstResults([SortDescriptor(\Flight.actualOff, order: .reverse)], in: context)
    }

    @Test func aPredicatesMatchesWithALimit() throws {
        let context = try stored()
        let near = #Predicate<Flight> { $0.routeDistance < 20 }
        try expectFirstResults([SortDescriptor(\Flight.routeDistance, order: .reverse)], predicate: near, in: context)
        try expectFirstResults([SortDescriptor(\Flight.actualOff), SortDescriptor(\Flight.ident)], predicate: near, in: context)
        let late = #Predicate<Everything> { $0.int > 3 }
        try expectFirstResults([SortDescriptor(\Everything.double), SortDescriptor(\Everything.int, order: .reverse)], predicate: late, in: context)
        try expectFirstResults([SortDescriptor(\Everything.date)], predicate: late, in: context)
    }

    /// Ties on the first key are narrowed by the later keys read from stored values (strings
    /// as the descriptor's comparator orders them), up to the first key that is not stored or
    /// holds a nil; the results stay Foundation's.
    @Test func laterKeysNarrowTheTies() throws {
        let context = try stored()
        try expectFirstResults([SortDescriptor(\Everything.int), SortDescriptor(\Everything.string),
                                SortDescriptor(\Everything.double, order: .reverse)], in: context)
        try expectFirstResults([SortDescriptor(\Everything.int, order: .reverse),
                                SortDescriptor(\Everything.string, comparator: .lexical, order: .reverse)], in: context)
        try expectFirstResults([SortDescriptor(\Everything.int), SortDescriptor(\Everything.string, comparator: .lexical),
                                SortDescriptor(\Everything.date)], in: context)
        // A nil among the ties stops the narrowing at that key; the keys before it still narrow.
        try expectFirstResults([SortDescriptor(\Everything.int), SortDescriptor(\Everything.optionalInt), SortDescriptor(\Everything.string)], in: context)
        try expectFirstResults([SortDescriptor(\Everything.int), SortDescriptor(\Everything.double),
                                SortDescriptor(\Everything.optionalString, order: .reverse)], in: context)
        let late = #Predicate<Everything> { $0.int > 3 }
        try expectFirstResults([SortDescriptor(\Everything.int), SortDescriptor(\Everything.string, order: .reverse)], predicate: late, in: context)
        // Enums stored by raw value but ordered by their own `Comparable`: first or later keys,
        // they are left to the objects.
        try expectFirstResults([SortDescriptor(\Everything.priority), SortDescriptor(\Everything.int)], in: context)
        try expectFirstResults([SortDescriptor(\Everything.int), SortDescriptor(\Everything.priority, order: .reverse),
                                SortDescriptor(\Everything.string)], in: context)
        try expectFirstResults([SortDescriptor(\Flight.status), SortDescriptor(\Flight.ident)], in: context)
        try expectFirstResults([SortDescriptor(\Flight.routeDistance), SortDescriptor(\Flight.status)], in: context)
        try expectFirstResults([SortDescriptor(\Flight.status, order: .reverse), SortDescriptor(\Flight.routeDistance)],
                               predicate: #Predicate<Flight> { $0.routeDistance < 20 }, in: context)
        try expectFirstResults([SortDescriptor(\Flight.routeDistance, order: .reverse), SortDescriptor(\Flight.ident)],
                               predicate: #Predicate<Flight> { $0.routeDistance < 20 }, in: context)
    }

    /// With every key stored, the rows that lead are exactly the page's: a top ten of hundreds
    /// tied on the first key reads ten rows' objects, and with no later key the row order
    /// decides. A key holding a nil leaves every row tied on the keys before it.
    @Test func onlyThePagesRowsLeadWhenEveryKeyIsStored() throws {
        let container = try ModelContainer(for: Everything.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let loader = ModelContext(container)
        for i in 0..<500 {
            let everything = Everything()
            loader.insert(everything)
            everything.int = i < 300 ? 7 : i
            everything.string = "s\(999 - i)"
            everything.optionalInt = i % 2 == 0 ? nil : 1
        }
        try loader.save()
        let context = ModelContext(container)
        let entity = try #require(context.schema.entity(for: Everything.self))
        func leading(_ sortBy: [SortDescriptor<Everything>], count: Int) -> LeadingRows.Found? {
            context.graph.read { LeadingRows.ofAll(by: sortBy, count: count, entity: entity, in: $0) }
        }
        // Rows 1...300 share int 7 and have strings s999 down to s700: by string descending the
        // first ten are rows 1...10, ascending rows 300 down to 291, in the fetch's order.
        let descending = try #require(leading([SortDescriptor(\.int), SortDescriptor(\.string, order: .reverse)], count: 10))
        #expect(descending.rows == Array(1...10) && descending.inOrder)
        #expect(leading([SortDescriptor(\.int), SortDescriptor(\.string)], count: 10)?.rows == Array((291...300).reversed()))
        // With no later key the row order decides.
        #expect(leading([SortDescriptor(\.int)], count: 10)?.rows == Array(1...10))
        #expect(leading([SortDescriptor(\.int, order: .reverse)], count: 210)?.rows == Array((301...500).reversed()) + Array(1...10))
        // A key holding nils: all 300 tied rows can lead, in row order, for their objects to be sorted.
        let withNils = try #require(leading([SortDescriptor(\.int), SortDescriptor(\.optionalInt), SortDescriptor(\.string)], count: 10))
        #expect(withNils.rows == Array(1...300) && !withNils.inOrder)
    }

    /// With unsaved changes the objects decide (a changed key may move any of them).
    @Test func unsavedChangesAreSortedOnObjects() throws {
        let context = try stored()
        let flights = try context.fetch(FetchDescriptor<Flight>())
        flights[10].routeDistance = -1_000
        flights[20].routeDistance = 5_000
        try expectFirstResults([SortDescriptor(\Flight.routeDistance)], in: context)
        try expectFirstResults([SortDescriptor(\Flight.routeDistance, order: .reverse)], in: context)
    }
}
