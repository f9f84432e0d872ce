import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStoreMacrosFree

@Suite struct RelationshipTests {
    @Test func toManyOrderIsTheOrderMembersWereAddedAndSurvivesReopen() throws {
        let store = TemporaryStore()
        let idents = ["UAL9", "AAL1", "DAL5", "SWA3", "UAL2"]  // deliberately not sorted
        do {
            let context = ModelContext(try store.container(Flight.self))
            let sfo = Airport(icao: "KSFO")
            context.insert(sfo)
            for ident in idents {
                let flight = Flight(ident: ident)
                context.insert(flight)
                flight.origin = sfo
            }
            #expect(sfo.flightsFrom.map(\.ident) == idents)
            try context.save()
            // Reorder explicitly: the new order is what persists.
            sfo.flightsFrom = sfo.flightsFrom.reversed()
            try context.save()
        }
        do {
            let context = ModelContext(try store.container(Flight.self))
            let sfo = try #require(try context.fetch(FetchDescriptor<Airport>()).first)
            #expect(sfo.flightsFrom.map(\.ident) == idents.reversed())
            // Appending keeps the order, and so does a later reopen.
            let late = Flight(ident: "JBU7")
            context.insert(late)
            sfo.flightsFrom.append(late)
            #expect(late.origin === sfo)
            try context.save()
        }
        let context = ModelContext(try store.container(Flight.self))
        let sfo = try #require(try context.fetch(FetchDescriptor<Airport>()).first)
        #expect(sfo.flightsFrom.map(\.ident) == idents.reversed() + ["JBU7"])
    }

    @Test func inversesStayInStepBeforeAndAfterSave() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let sfo = Airport(icao: "KSFO"), lax = Airport(icao: "KLAX")
        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        flight.destination = sfo  // sfo is inserted along with it
        #expect(sfo.modelContext === context)
        #expect(sfo.flightsTo.map(\.ident) == ["UAL1"])
        flight.destination = lax  // moving it
        #expect(sfo.flightsTo.isEmpty && lax.flightsTo.map(\.ident) == ["UAL1"])
        try context.save()
        lax.flightsTo.removeAll()
        #expect(flight.destination == nil)
        try context.save()
        let other = ModelContext(container)
        let fetched = try #require(try other.fetch(FetchDescriptor<Flight>()).first)
        #expect(fetched.destination == nil)
        #expect(try other.fetch(FetchDescriptor<Airport>()).allSatisfy { $0.flightsTo.isEmpty })
    }
}
