import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// A fetch's order is exactly the one Foundation's `sorted(using:)` gives the same objects with
/// the same descriptors, whichever keys the fetch reads once per object (numbers, dates,
/// strings by the descriptor's own comparator) and whichever it leaves to the descriptor.
@Suite struct SortTests {
    static let idents = ["f10", "F9", "f9", "É1", "e2", "UAL10", "UAL9", "ual9b", "a", "B", "10", "9", "Zz", "zz", "b", "", "ual 9"]

    func stored() throws -> (ModelContext, [Flight]) {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let loader = ModelContext(container)
        for (i, ident) in Self.idents.enumerated() {
            let flight = Flight(ident: ident)
            loader.insert(flight)
            flight.routeDistance = i % 3  // many ties
            flight.actualOff = i % 4 == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(i % 2) * 60)
            if i % 5 == 0 { flight.origin = Airport(icao: "K\(i)", name: i % 2 == 0 ? "Zürich" : "zurich") }
        }
        try loader.save()
        let context = ModelContext(container)
        return (context, try context.fetch(FetchDescriptor<Flight>()))
    }

    @Test func fetchedOrderIsFoundationsOrder() throws {
        let (context, unsorted) = try stored()
        let orders: [[SortDescriptor<Flight>]] = [
            [SortDescriptor(\.ident)],
            [SortDescriptor(\.ident, order: .reverse)],
            [SortDescriptor(\.ident, comparator: .lexical)],
            [SortDescriptor(\.ident, comparator: .lexical, order: .reverse)],
            [SortDescriptor(\.routeDistance), SortDescriptor(\.ident)],
            [SortDescriptor(\.routeDistance, order: .reverse), SortDescriptor(\.ident, order: .reverse)],
            [SortDescriptor(\.actualOff), SortDescriptor(\.ident)],  // nil dates: through the descriptor
            [SortDescriptor(\.origin?.name), SortDescriptor(\.ident)],  // optional strings, some nil
            // Ties of the first key ordered by the second (through the descriptor), then the third.
            [SortDescriptor(\.routeDistance), SortDescriptor(\.actualOff), SortDescriptor(\.ident, order: .reverse)],
        ]
        for sortBy in orders {
            let fetched = try context.fetch(FetchDescriptor<Flight>(sortBy: sortBy)).map(\.ident)
            #expect(fetched == unsorted.sorted(using: sortBy).map(\.ident), "\(sortBy)")
        }
    }

    /// A sort whose first key is a number goes by the keys' bits (by radix from
    /// `radixThreshold` objects): the same order as comparing, negatives, -0 beside 0, ties
    /// (kept in fetch order, or ordered by the next keys) and both directions included.
    @Test(arguments: [SortKeys.radixThreshold / 2, 2 * SortKeys.radixThreshold])
    func oneNumberKeySortsAsComparisonsDo(count: Int) throws {
        let container = try ModelContainer(for: Airport.self, Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let loader = ModelContext(container)
        var random = SplitMix64(seed: 7)
        let specials: [Double] = [0, -0.0, -1, 1, -1e300, 1e300, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 1e15, -1e15]
        for i in 0..<count {
            let airport = Airport(icao: "A\(i)")
            airport.latitude = i < specials.count ? specials[i] : Double(Int(random.next() % 41) - 20) / 2
            loader.insert(airport)
            let flight = Flight(ident: "F\(i)")
            flight.routeDistance = Int(random.next() % 50) - 25
            loader.insert(flight)
        }
        try loader.save()
        let context = ModelContext(container)
        let airports = try context.fetch(FetchDescriptor<Airport>())
        let flights = try context.fetch(FetchDescriptor<Flight>())
        #expect(airports.count == count)
        for order in [SortOrder.forward, .reverse] {
            func precedes(_ a: (offset: Int, element: Double), _ b: (offset: Int, element: Double)) -> Bool {
                a.element != b.element ? (order == .forward) == (a.element < b.element) : a.offset < b.offset
            }
            let byLatitude = try context.fetch(FetchDescriptor<Airport>(sortBy: [SortDescriptor(\.latitude, order: order)]))
            #expect(byLatitude.map(\.icao) == airports.map(\.latitude).enumerated().sorted(by: precedes).map { airports[$0.offset].icao })
            let byDistance = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.routeDistance, order: order)]))
            #expect(byDistance.map(\.ident)
                    == flights.map { Double($0.routeDistance) }.enumerated().sorted(by: precedes).map { flights[$0.offset].ident })
            // Ties of the number key go by the next keys, as Foundation's sort of the same objects.
            let thenByIdent = [SortDescriptor(\Flight.routeDistance, order: order), SortDescriptor(\Flight.ident, order: order)]
            #expect(try context.fetch(FetchDescriptor<Flight>(sortBy: thenByIdent)).map(\.ident)
                    == flights.sorted(using: thenByIdent).map(\.ident))
            let thenByLatitude = [SortDescriptor(\Airport.latitude, order: order), SortDescriptor(\Airport.icao)]
            #expect(try context.fetch(FetchDescriptor<Airport>(sortBy: thenByLatitude)).map(\.icao)
                    == airports.sorted(using: thenByLatitude).map(\.icao))
        }
    }

    /// Keys read from the rows (a context without unsaved changes) follow another context's
    /// saves, and with unsaved changes the objects' own values decide; a Double key and a row
    /// deleted elsewhere too. Always Foundation's order of the same objects.
    @Test func orderFollowsSavesElsewhereAndUnsavedChanges() throws {
        let (context, _) = try stored()
        let orders: [[SortDescriptor<Flight>]] = [
            [SortDescriptor(\.routeDistance), SortDescriptor(\.ident)],
            [SortDescriptor(\.actualOff, order: .reverse), SortDescriptor(\.ident)],
        ]
        func check(_ note: String) throws {
            for sortBy in orders {
                let objects = try context.fetch(FetchDescriptor<Flight>())
                let fetched = try context.fetch(FetchDescriptor<Flight>(sortBy: sortBy)).map(\.ident)
                #expect(fetched == objects.sorted(using: sortBy).map(\.ident), "\(note): \(sortBy)")
            }
        }
        try check("stored")
        let other = ModelContext(context.container)
        for flight in try other.fetch(FetchDescriptor<Flight>()) where flight.ident.lowercased().hasPrefix("f") {
            flight.routeDistance = 7
            flight.actualOff = Date(timeIntervalSinceReferenceDate: 30)
        }
        try other.save()
        try check("saved elsewhere")
        let flights = try context.fetch(FetchDescriptor<Flight>())
        flights[0].routeDistance = -1
        flights[1].actualOff = Date(timeIntervalSinceReferenceDate: 1e6)
        try check("unsaved changes")
        context.insert(Flight(ident: "new"))
        try check("unsaved insert")
        try context.save()
        try check("saved")

        let airports = try context.fetch(FetchDescriptor<Airport>())
        for (i, airport) in airports.enumerated() { airport.latitude = Double(i % 2) - 0.5 }
        try context.save()
        let byLatitude = [SortDescriptor(\Airport.latitude), SortDescriptor(\Airport.icao, order: .reverse)]
        #expect(try context.fetch(FetchDescriptor<Airport>(sortBy: byLatitude)).map(\.icao)
                == airports.sorted(using: byLatitude).map(\.icao))
        // A row another context deletes: its object, still in hand, reads its initial values.
        let kept = try context.fetch(FetchDescriptor<Flight>())
        let doomed = try other.fetch(FetchDescriptor<Flight>()).first { $0.ident == "zz" }
        try #require(doomed != nil)
        other.delete(doomed!)
        try other.save()
        #expect(try context.stableSorted(kept, by: orders[0]).map(\.ident) == kept.sorted(using: orders[0]).map(\.ident))
    }

    /// Putting a sort's result in order moves each object once: every position ends where the
    /// order says, whether the array is shared or not, and no object is retained or released
    /// one time too many (each lives while an array holds it, and dies after).
    @Test(arguments: [0, 1, 2, 1_000])
    func permutingMovesEachItemOnce(count: Int) {
        final class Item {
            let number: Int
            init(_ number: Int) { self.number = number }
        }
        var rng = SystemRandomNumberGenerator()
        let order = Array(0..<count).shuffled(using: &rng)
        weak var sample: Item?
        do {
            var items = (0..<count).map(Item.init)
            sample = items.last
            let shared = items
            ModelContext.permute(&items, into: order)
            #expect(items.map(\.number) == order)
            #expect(shared.map(\.number) == Array(0..<count), "the shared copy keeps its order")
            var unshared = (0..<count).map(Item.init)
            ModelContext.permute(&unshared, into: order)
            #expect(unshared.map(\.number) == order)
            #expect(count == 0 || sample != nil)
        }
        #expect(sample == nil)
    }
}
