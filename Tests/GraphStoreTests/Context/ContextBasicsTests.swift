import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

@Suite struct ContextBasicsTests {
    func seeded() throws -> (ModelContainer, ModelContext) {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for (ident, distance) in [("UAL1", 2_400), ("AAL2", 700), ("DAL3", 1_500), ("SWA4", 300)] {
            let flight = Flight(ident: ident)
            flight.routeDistance = distance
            context.insert(flight)
        }
        try context.save()
        return (container, context)
    }

    @Test func fetchFiltersSortsAndPages() throws {
        let (_, context) = try seeded()
        let long = try context.fetch(FetchDescriptor<Flight>(
            predicate: #Predicate { $0.routeDistance > 1000 },
            sortBy: [SortDescriptor(\.routeDistance, order: .reverse)]))
        #expect(long.map(\.ident) == ["UAL1", "DAL3"])
        var paged = FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.routeDistance)])
        paged.fetchOffset = 1
        paged.fetchLimit = 2
        #expect(try context.fetch(paged).map(\.ident) == ["AAL2", "DAL3"])
        #expect(try context.fetchCount(FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance < 1000 })) == 2)
        // Unsaved inserts count by default.
        context.insert(Flight(ident: "JBU5"))
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 5)
    }

    @Test func rollbackRestoresTheCommittedState() throws {
        let (_, context) = try seeded()
        let flight = try #require(try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "UAL1" })).first)
        flight.routeDistance = 1
        let added = Flight(ident: "NEW1")
        context.insert(added)
        #expect(context.hasChanges)
        #expect(context.changedModelsArray.count == 1 && context.insertedModelsArray.count == 1)
        context.rollback()
        #expect(!context.hasChanges)
        #expect(flight.routeDistance == 2_400)
        #expect(added.modelContext == nil)
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 4)
    }

    @Test func deleteRulesCascadeAndDeny() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let sfo = Airport(icao: "KSFO")
        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        flight.origin = sfo
        flight.destination = Airport(icao: "KORD")
        try context.save()
        // Airport.flightsFrom cascades: deleting SFO deletes its departures.
        context.delete(sfo)
        #expect(flight.isDeleted)
        #expect(context.deletedModelsArray.count == 2)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 0)
        let ord = try #require(try context.fetch(FetchDescriptor<Airport>()).first)
        #expect(ord.flightsTo.isEmpty)
    }
}

@Suite struct ObjectLifetimeTests {
    /// Objects hold their context weakly; their stored attributes stay readable after it is gone,
    /// from any thread (there is no owner left to refuse other threads).
    @Test func objectsReadStoredAttributesAfterTheirContextIsGone() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        do {
            let context = ModelContext(container)
            let flight = Flight(ident: "UAL9")
            flight.routeDistance = 321
            context.insert(flight)
            try context.save()
        }
        let flight = try #require(try ModelContext(container).fetch(FetchDescriptor<Flight>()).first)
        #expect(flight.modelContext == nil)
        #expect(flight.ident == "UAL9" && flight.routeDistance == 321)
        let read = Locked<Int>(-1)
        let unsafeFlight = UnsafeTransfer(flight)
        Thread { read.withLock { $0 = unsafeFlight.value.routeDistance } }.start()
        while read.value == -1 { Thread.sleep(forTimeInterval: 0.001) }
        #expect(read.value == 321)
    }

    /// A model object is its own backing: one object whose identity is its backing's, whose
    /// reflection (dump, test reports) shows its properties and stops at its context's link
    /// (whose registry holds objects without reference counts).
    @Test func aModelIsItsOwnBackingAndReflectsSafely() throws {
        let (_, context) = try ContextBasicsTests().seeded()
        let flight = try #require(try context.fetchUnique(\Flight.ident, equals: "UAL1"))
        #expect(flight.persistentBacking === flight)
        var text = ""
        dump(flight, to: &text)
        #expect(text.contains("_ident") && text.contains("_routeDistance"))
        #expect(text.contains("contextIsAlive: true"))
        #expect(!text.contains("registry"))
        // Freed with its backing: the context's identity map lets go of it.
        let registry = context.link.registry
        let before = registry.count
        do { #expect(try context.fetchUnique(\Flight.ident, equals: "SWA4") != nil) }
        #expect(registry.count == before)
        // One object per row while it lives, whether or not the registry held anything before
        // (an empty registry is not even looked in).
        #expect(try context.fetchUnique(\Flight.ident, equals: "UAL1") === flight)
        do {
            let first = try #require(try context.fetchUnique(\Flight.ident, equals: "DAL3"))
            #expect(try context.fetchUnique(\Flight.ident, equals: "DAL3") === first)
            #expect(registry.count == before + 1)
        }
        #expect(registry.count == before)
    }
}
