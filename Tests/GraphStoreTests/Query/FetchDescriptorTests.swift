import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// A descriptor keeps its predicate's expression beside the predicate: whichever way the
/// predicate is given (at init, set later, cleared, or changed on a copy), a fetch answers by
/// the predicate the descriptor holds, on committed rows and on unsaved objects alike.
@Suite struct FetchDescriptorTests {
    /// Three flights, saved or left unsaved.
    func context(in store: TemporaryStore, pending: Bool) throws -> ModelContext {
        let context = ModelContext(try store.container(Flight.self, Airport.self, Airline.self))
        for (ident, distance) in [("A1", 100), ("B2", 200), ("C3", 300)] {
            let flight = Flight(ident: ident)
            flight.routeDistance = distance
            context.insert(flight)
        }
        if !pending { try context.save() }
        return context
    }

    func idents(_ context: ModelContext, _ descriptor: FetchDescriptor<Flight>) throws -> [String] {
        try context.fetch(descriptor).map(\.ident).sorted()
    }

    @Test(arguments: [false, true])
    func fetchesFollowThePredicateTheDescriptorHolds(pending: Bool) throws {
        let store = TemporaryStore()
        let context = try context(in: store, pending: pending)
        let ident = "B2"
        var descriptor = FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident })
        #expect(try idents(context, descriptor) == ["B2"])

        // A copy changed apart: each answers by its own predicate.
        var copy = descriptor
        copy.predicate = #Predicate { $0.routeDistance > 150 }
        #expect(try idents(context, copy) == ["B2", "C3"])
        #expect(try idents(context, descriptor) == ["B2"])

        // Set after init, from a lookup by key to another lookup by key, then cleared.
        let other = "C3"
        descriptor.predicate = #Predicate { $0.ident == other }
        #expect(try idents(context, descriptor) == ["C3"])
        descriptor.predicate = nil
        #expect(try idents(context, descriptor) == ["A1", "B2", "C3"])
        #expect(try context.fetchCount(descriptor) == 3)

        // Made without one, then given one.
        var later = FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.routeDistance, order: .reverse)])
        #expect(try context.fetch(later).map(\.ident) == ["C3", "B2", "A1"])
        later.predicate = #Predicate { $0.routeDistance < 250 }
        #expect(try context.fetch(later).map(\.ident) == ["B2", "A1"])
        #expect(try context.fetchCount(later) == 2)
    }
}
