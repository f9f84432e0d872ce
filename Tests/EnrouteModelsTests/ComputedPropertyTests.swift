import Foundation
import Testing
@testable import EnrouteModels
@testable import GraphStore

/// Sorting by and filtering on a computed property (`arrival`, `departure`, `isEnroute`,
/// `shortStatus`, `airlineCode`) answers as Swift does on the objects: a computed property is
/// never taken for a stored one it reads, whether it reads one or several of them.
@Suite struct ComputedPropertyTests {
    /// Landed, airborne and scheduled flights whose arrival order is not their estimated order.
    private func context() throws -> ModelContext {
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                           configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for i in 0..<12 {
            let flight = Flight(ident: ["UAL", "DAL", "SWA"][i % 3] + "\(100 + i)")
            context.insert(flight)
            flight.estimatedOff = Date(timeIntervalSince1970: Double(100 + i))
            flight.estimatedOn = Date(timeIntervalSince1970: Double(1_000 + i))
            if i % 2 == 0 { flight.actualOff = Date(timeIntervalSince1970: Double(500 - i)) }
            if i % 4 == 0 { flight.actualOn = Date(timeIntervalSince1970: Double(2_000 - i)) }
            flight.status = i % 3 == 0 ? "Arrived / Delayed" : "En Route / On Time"
        }
        try context.save()
        return context
    }

    @Test func sortingByAComputedPropertyIsSwiftsOrder() throws {
        let context = try context()
        let all = try context.fetch(FetchDescriptor<Flight>())
        let byArrival = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.arrival), SortDescriptor(\.ident)]))
        #expect(byArrival.map(\.ident) == all.sorted { ($0.arrival, $0.ident) < ($1.arrival, $1.ident) }.map(\.ident))
        let byDeparture = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.departure, order: .reverse)]))
        #expect(byDeparture.map(\.ident) == all.sorted { $0.departure > $1.departure }.map(\.ident))
        let byCode = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.airlineCode), SortDescriptor(\.ident)]))
        #expect(byCode.map(\.ident) == all.sorted { ($0.airlineCode, $0.ident) < ($1.airlineCode, $1.ident) }.map(\.ident))
    }

    @Test func aPredicateOnAComputedPropertyIsSwiftsAnswer() throws {
        let context = try context()
        let all = try context.fetch(FetchDescriptor<Flight>())
        let cutoff = Date(timeIntervalSince1970: 1_500), status = "Arrived", code = "UAL"
        let checks: [(String, Predicate<Flight>, (Flight) -> Bool)] = [
            ("arrival", #Predicate { $0.arrival > cutoff }, { $0.arrival > cutoff }),
            ("isEnroute", #Predicate { $0.isEnroute }, { $0.isEnroute }),
            ("shortStatus", #Predicate { $0.shortStatus == status }, { $0.shortStatus == status }),
            ("airlineCode", #Predicate { $0.airlineCode == code }, { $0.airlineCode == code }),
        ]
        for (name, predicate, expected) in checks {
            let found = try context.fetch(FetchDescriptor(predicate: predicate)).map(\.ident).sorted()
            let swift = all.filter(expected).map(\.ident).sorted()
            #expect(found == swift, "\(name)")
            #expect(!swift.isEmpty && swift.count < all.count, "\(name) tells flights apart")
        }
    }

    /// A stored property's key path still names it: lookups, indexes and row reads use it.
    @Test func aStoredPropertysKeyPathNamesIt() throws {
        let context = try context()
        let entity = try #require(context.schema.entity(for: Flight.self))
        #expect(entity.property(for: \Flight.ident) != nil)
        #expect(entity.property(for: \Flight.estimatedOn) != nil)
        #expect(entity.property(for: \Flight.destination) != nil)
        for computed: AnyKeyPath in [\Flight.arrival, \Flight.departure, \Flight.isEnroute, \Flight.shortStatus, \Flight.airlineCode] {
            #expect(entity.property(for: computed) == nil, "\(computed)")
        }
        #expect(try context.fetchUnique(\Flight.ident, equals: "UAL100") != nil)
    }
}
