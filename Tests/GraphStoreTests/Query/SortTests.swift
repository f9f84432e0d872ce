import Foundation
import GraphStoreModelTestSupport
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
        ]
        for sortBy in orders {
            let fetched = try context.fetch(FetchDescriptor<Flight>(sortBy: sortBy)).map(\.ident)
            #expect(fetched == unsorted.sorted(using: sortBy).map(\.ident), "\(sortBy)")
        }
    }
}
