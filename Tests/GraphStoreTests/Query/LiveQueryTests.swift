import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Observation
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

@Suite struct LiveQueryTests {
    func seeded() throws -> (ModelContainer, ModelContext) {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for (ident, distance) in [("A", 100), ("B", 900), ("C", 500), ("D", 1_500)] {
            let f = Flight(ident: ident)
            f.routeDistance = distance
            context.insert(f)
        }
        try context.save()
        return (container, context)
    }

    @Test func liveResultsFollowInsertsUpdatesDeletesIncrementally() throws {
        let (_, context) = try seeded()
        let live = LiveQuery(FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance > 400 },
                                                     sortBy: [SortDescriptor(\.routeDistance)]), in: context)
        #expect(live.results.map(\.ident) == ["C", "B", "D"])
        let refetches = live.refetchCount
        let fired = Locked(0)
        withObservationTracking { _ = live.results } onChange: { fired.withLock { $0 += 1 } }

        let e = Flight(ident: "E")
        e.routeDistance = 700
        context.insert(e)
        try context.save()
        #expect(live.results.map(\.ident) == ["C", "E", "B", "D"])
        #expect(fired.value == 1)

        let a = try #require(try context.fetchUnique(\Flight.ident, equals: "A"))
        a.routeDistance = 2_000   // now matches, sorts last
        let b = try #require(try context.fetchUnique(\Flight.ident, equals: "B"))
        b.routeDistance = 10      // no longer matches
        try context.save()
        #expect(live.results.map(\.ident) == ["C", "E", "D", "A"])

        context.delete(e)
        try context.save()
        #expect(live.results.map(\.ident) == ["C", "D", "A"])
        #expect(live.refetchCount == refetches)  // every change so far was applied incrementally
    }

    /// An unsaved flight among the results whose save takes over the row its ident already had
    /// (an upsert) is a result once after the save, as fetching again shows; and saves of
    /// flights that are no result leave the results as they are, unannounced.
    @Test func anUnsavedResultThatUpsertsIsAResultOnce() throws {
        let (_, context) = try seeded()
        let live = LiveQuery(FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance > 400 },
                                                     sortBy: [SortDescriptor(\.routeDistance)]), in: context)
        let again = Flight(ident: "A")   // A's ident (A is no result): its save updates A's row
        again.routeDistance = 800
        context.insert(again)
        live.refetch()
        #expect(live.results.map(\.ident) == ["C", "A", "B", "D"])
        try context.save()
        let fetched = try context.fetch(live.descriptor)
        #expect(live.results.map(\.ident) == fetched.map(\.ident))
        #expect(live.results.map(\.ident) == ["C", "A", "B", "D"] && live.results.map(\.routeDistance) == [500, 800, 900, 1_500])

        let fired = Locked(0)
        withObservationTracking { _ = live.results } onChange: { fired.withLock { $0 += 1 } }
        let b = try #require(try context.fetchUnique(\Flight.ident, equals: "B"))
        b.routeDistance = 300   // leaves the results
        try context.save()
        #expect(live.results.map(\.ident) == ["C", "A", "D"])
        #expect(fired.value == 1)
        withObservationTracking { _ = live.results } onChange: { fired.withLock { $0 += 1 } }
        b.routeDistance = 200   // still no result
        try context.save()
        #expect(live.results.map(\.ident) == ["C", "A", "D"])
        #expect(fired.value == 1)
    }

    /// A sorted live query kept up to date save by save, from another context (rows joining,
    /// leaving and moving within the results, and saves that touch none of them), shows what
    /// fetching again shows; only saves that change the results are announced.
    @Test(arguments: [UInt64(1), 2, 3])
    func sortedResultsFollowRandomSaves(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container), holder = ModelContext(container)
        // Distinct distances, so that the order is one (ties are left in the order they come).
        var distances = Set<Int>()
        func freshDistance() -> Int {
            while true { let d = Int(random.next() % 100_000); if distances.insert(d).inserted { return d } }
        }
        for i in 0..<200 {
            let flight = Flight(ident: "F\(i)")
            flight.routeDistance = freshDistance()
            writer.insert(flight)
        }
        try writer.save()
        let descriptor = FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance < 50_000 }, sortBy: [SortDescriptor(\.routeDistance)])
        let live = LiveQuery(descriptor, in: holder)
        var next = 200
        for step in 0..<150 {
            let before = live.results.map(\.ident)
            let fired = Locked(false)
            withObservationTracking { _ = live.results } onChange: { fired.withLock { $0 = true } }
            let all = try writer.fetch(FetchDescriptor<Flight>())
            var touched = Set<String>()
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let flight = all[Int(random.next() % UInt64(all.count))]
                touched.insert(flight.ident)
                switch random.next() % 4 {
                case 0: flight.routeDistance = freshDistance()
                case 1: flight.status = FlightStatus.allCases[Int(random.next() % UInt64(FlightStatus.allCases.count))]
                case 2:
                    let added = Flight(ident: "F\(next)")
                    next += 1
                    added.routeDistance = freshDistance()
                    writer.insert(added)
                    touched.insert(added.ident)
                default: writer.delete(flight)
                }
            }
            try writer.save()
            let expected = try holder.fetch(descriptor).map(\.ident)
            #expect(live.results.map(\.ident) == expected, "step \(step)")
            if touched.isDisjoint(with: before), touched.isDisjoint(with: expected) {
                #expect(!fired.value, "step \(step): a save that touched no result was announced")
            }
        }
    }

    @Test func anotherContextsSaveUpdatesTheResults() throws {
        let (container, context) = try seeded()
        let live = LiveQuery(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]), in: context)
        let other = ModelContext(container)
        other.insert(Flight(ident: "AA"))
        try other.save()
        #expect(live.results.map(\.ident) == ["A", "AA", "B", "C", "D"])
    }

    @Test func predicateAndSortCanChangeAtRunTime() throws {
        let (_, context) = try seeded()
        let live = LiveQuery(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]), in: context)
        #expect(live.results.count == 4)
        let fired = Locked(false)
        withObservationTracking { _ = live.results } onChange: { fired.withLock { $0 = true } }
        live.descriptor.predicate = #Predicate { $0.routeDistance < 1_000 }
        #expect(fired.value)
        #expect(live.results.map(\.ident) == ["A", "B", "C"])
        live.descriptor.sortBy = [SortDescriptor(\.routeDistance, order: .reverse)]
        #expect(live.results.map(\.ident) == ["B", "C", "A"])
        live.descriptor.fetchLimit = 1
        #expect(live.results.map(\.ident) == ["B"])
    }

    @Test func excludingPendingChangesFiltersWhatIsCommitted() throws {
        let (_, context) = try seeded()
        let a = try #require(try context.fetchUnique(\Flight.ident, equals: "A"))
        a.routeDistance = 5_000            // unsaved: A would match
        context.insert(Flight(ident: "Z")) // unsaved insert
        var descriptor = FetchDescriptor<Flight>(predicate: #Predicate { $0.routeDistance > 400 }, sortBy: [SortDescriptor(\.routeDistance)])
        #expect(try context.fetch(descriptor).map(\.ident) == ["C", "B", "D", "A"])
        descriptor.includePendingChanges = false
        let committed = try context.fetch(descriptor)
        #expect(committed.map(\.ident) == ["C", "B", "D"])
        #expect(try context.fetchCount(descriptor) == 3)
        // The objects handed out are the context's own (with their unsaved values).
        #expect(committed.allSatisfy { $0.modelContext === context })
    }

    @Test func enumerateWalksInBatchesAndRefusesEscapingMutations() throws {
        let (_, context) = try seeded()
        var seen: [String] = []
        try context.enumerate(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]), batchSize: 3) { seen.append($0.ident) }
        #expect(seen == ["A", "B", "C", "D"])
        #expect(throws: ModelContextError.mutationDuringEnumeration) {
            try context.enumerate(FetchDescriptor<Flight>(), batchSize: 2) { $0.routeDistance += 1 }
        }
        context.rollback()
        try context.enumerate(FetchDescriptor<Flight>(), batchSize: 2, allowEscapingMutations: true) { $0.routeDistance += 1 }
        #expect(context.changedModelsArray.count == 4)
        context.insert(Flight(ident: "X"))
        #expect(throws: ModelContextError.mutationDuringEnumeration) {
            try context.enumerate(FetchDescriptor<Flight>()) { _ in }
        }
    }
}
