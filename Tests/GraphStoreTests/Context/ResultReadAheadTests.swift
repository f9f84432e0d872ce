import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// A large fetch's objects read in the order the fetch returned them load ahead
/// (ResultReadAhead): the reads are followed through the result, within a small window, and
/// loading early never changes an answer.
@Suite struct ResultReadAheadTests {
    /// 2,000 flights saved, each `routeDistance` its number, so a fetch sorted by distance
    /// descending visits the rows backwards.
    private func savedFlights(_ count: Int = 2_000) throws -> ModelContainer {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        for i in 0..<count {
            let flight = Flight(ident: "F\(i)")
            flight.routeDistance = i
            writer.insert(flight)
        }
        try writer.save()
        return container
    }

    private let byDistanceDescending = FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.routeDistance, order: .reverse)])

    @Test func readsInTheResultsOrderAreFollowed() throws {
        let container = try savedFlights()
        let reader = ModelContext(container)
        let cursor = reader.link.resultReadAhead
        let flights = try reader.fetch(byDistanceDescending)
        #expect(flights.count == 2_000)
        #expect(cursor.followedIndex == nil)
        #expect(flights[0].ident == "F1999")
        #expect(cursor.followedIndex == 0)
        #expect(flights[0].routeDistance == 1_999)  // the same object again: no move
        #expect(cursor.followedIndex == 0)
        #expect(flights[1].routeDistance == 1_998)
        #expect(cursor.followedIndex == 1)
        // Up to `window` places on still counts as in order (objects read elsewhere are skipped).
        #expect(ResultReadAhead.window == 4)
        #expect(flights[5].ident == "F1994")
        #expect(cursor.followedIndex == 5)
        // A jump further, or back, is not followed; reading on from where it was is.
        #expect(flights[100].ident == "F1899")
        #expect(flights[2].ident == "F1997")
        #expect(cursor.followedIndex == 5)
        #expect(flights[6].ident == "F1993")
        #expect(cursor.followedIndex == 6)
        // Every value reads as stored, in order, to the end (loading past it included).
        for (i, flight) in flights.enumerated() { #expect(flight.routeDistance == 1_999 - i) }
        #expect(cursor.followedIndex == 1_999)
    }

    @Test func smallResultsAndOtherEntitiesAreLeftAlone() throws {
        let container = try ModelContainer(for: Flight.self, Airport.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        for i in 0..<1_500 { writer.insert(Flight(ident: "F\(i)")) }
        for i in 0..<10 { writer.insert(Airport(icao: "K\(i)")) }
        try writer.save()
        let reader = ModelContext(container)
        let cursor = reader.link.resultReadAhead
        var few = FetchDescriptor<Flight>()
        few.fetchLimit = ResultReadAhead.minimumCount - 1
        let small = try reader.fetch(few)
        _ = small[0].ident
        #expect(cursor.followedIndex == nil && cursor.bufferCount == 0)
        // In row order: read in the order of memory, nothing to follow.
        let inRowOrder = try reader.fetch(FetchDescriptor<Flight>())
        _ = inRowOrder[0].ident
        #expect(cursor.followedIndex == nil && cursor.bufferCount == 0)
        let flights = try reader.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        let airports = try reader.fetch(FetchDescriptor<Airport>())
        _ = airports[0].icao                    // another entity: not followed
        #expect(cursor.followedIndex == nil)
        _ = flights[0].ident
        #expect(cursor.followedIndex == 0)
    }

    /// An unsaved insert among the results reads no committed value and is skipped over.
    @Test func unsavedInsertsInTheResultAreSkipped() throws {
        let container = try savedFlights(1_200)
        let context = ModelContext(container)
        let added = Flight(ident: "NEW")
        added.routeDistance = 1_198                 // sorts after F1198 (the stored one comes first)
        context.insert(added)
        let flights = try context.fetch(byDistanceDescending)
        let cursor = context.link.resultReadAhead
        #expect(flights[0].ident == "F1199" && flights[1].ident == "F1198")
        #expect(cursor.followedIndex == 1)
        #expect(flights[2].ident == "NEW")
        #expect(cursor.followedIndex == 1)
        #expect(flights[3].ident == "F1197")
        #expect(cursor.followedIndex == 3)
    }

    @Test func buffersAreReusedAndDoubled() throws {
        let container = try savedFlights(3_000)
        let reader = ModelContext(container)
        let cursor = reader.link.resultReadAhead
        var limited = byDistanceDescending
        limited.fetchLimit = 1_500
        _ = try reader.fetch(limited)
        #expect(cursor.bufferCount == 1)
        limited.fetchLimit = 1_200
        let fewer = try reader.fetch(limited)
        #expect(cursor.bufferCount == 1)      // the first one, reused
        _ = fewer[0].ident
        #expect(cursor.followedIndex == 0)
        let all = try reader.fetch(byDistanceDescending)
        #expect(cursor.bufferCount == 2)      // a new one, of twice the first's size at least
        _ = all[0].ident
        _ = all[1].ident
        #expect(cursor.followedIndex == 1)
    }
}
