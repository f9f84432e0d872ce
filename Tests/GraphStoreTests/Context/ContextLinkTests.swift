import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// Contexts are reached from other threads only through their links (ContextLink): merges never
/// take a reference to another context, and the link of a freed context hands nothing out.
@Suite struct ContextLinkTests {
    @Test func contextsMadeAndFreedWhileOthersCommit() async throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let loader = ModelContext(container)
        let flights = (0..<32).map { Flight(ident: "F\($0)") }
        flights.forEach(loader.insert)
        try loader.save()
        let ids = flights.map(\.persistentModelID)
        var edited = 0
        try await whileCommittingElsewhere(in: container, edit: { context, round in
            for id in ids.prefix(4) { (context.model(for: id) as? Flight)?.routeDistance = round }
        }) {
            for round in 0..<registryRaceRounds {
                // A context with objects, edits (so it wants other commits) and a live query, dropped.
                let context = ModelContext(container)
                let mine = ids.compactMap { context.model(for: $0) as? Flight }
                mine[round % mine.count].status = .landed
                let live = LiveQuery(FetchDescriptor<Flight>(), in: context)
                edited += live.results.count == 32 && context.hasChanges ? 1 : 0
            }
        }
        #expect(edited == registryRaceRounds)
        // Only the loader's link is left (the writer's context ended with its thread).
        #expect(container.registeredContextCount == 1)
    }

    @Test func theLinkOfAFreedContextHandsNothingOut() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        var context: ModelContext? = ModelContext(container)
        let link = try #require(context?.link)
        #expect(link.context === context)
        context = nil
        #expect(link.context == nil && !link.contextIsAlive)
        #expect(container.registeredContextCount == 0)
    }

    /// An assignment reaches its context through the link, unretained: once the context is
    /// gone there is none to reach, and the object keeps the value itself.
    @Test func anAssignmentAfterItsContextIsGoneStaysWithTheObject() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let loader = ModelContext(container)
        let saved = Flight(ident: "F1")
        loader.insert(saved)
        try loader.save()
        var context: ModelContext? = ModelContext(container)
        let flight = try #require(context?.model(for: saved.persistentModelID) as? Flight)
        let link = try #require(context?.link)
        #expect(link.withContext { _ in true } == true)
        context = nil
        #expect(link.withContext { _ in true } == nil)
        flight.routeDistance = 42
        flight.status = .landed
        #expect(flight.routeDistance == 42 && flight.status == .landed && flight.ident == "F1")
        // Nothing reached the store.
        #expect(try loader.fetch(FetchDescriptor<Flight>()).first?.routeDistance == 0)
    }
}
