import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStoreMacrosFree

@Suite struct UndoTests {
    func undoableContext(_ container: ModelContainer? = nil) throws -> ModelContext {
        let context = ModelContext(try container ?? ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.undoManager = UndoManager()
        context.undoManager?.groupsByEvent = false
        return context
    }

    @Test func attributeInsertDeleteAndRelationshipChangesUndoAndRedo() throws {
        let context = try undoableContext()
        let undo = try #require(context.undoManager)
        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        context.processPendingChanges()
        flight.routeDistance = 500
        context.processPendingChanges()
        let sfo = Airport(icao: "KSFO")
        flight.destination = sfo
        context.processPendingChanges()
        #expect(sfo.flightsTo.map(\.ident) == ["UAL1"])

        undo.undo()   // the relationship
        #expect(flight.destination == nil && sfo.flightsTo.isEmpty)
        undo.undo()   // the attribute
        #expect(flight.routeDistance == 0)
        undo.undo()   // the insert
        #expect(flight.modelContext == nil && !context.hasChanges)
        #expect(!undo.canUndo && undo.canRedo)

        undo.redo()
        #expect(flight.modelContext === context && context.insertedModelsArray.count == 1)
        undo.redo()
        #expect(flight.routeDistance == 500)
        undo.redo()
        #expect(flight.destination === sfo && sfo.flightsTo.map(\.ident) == ["UAL1"])
        #expect(!undo.canRedo)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 1)
    }

    @Test func undoingACascadeDeleteBringsBackTheWholeSubgraph() throws {
        let context = try undoableContext()
        let undo = try #require(context.undoManager)
        let sfo = Airport(icao: "KSFO"), ord = Airport(icao: "KORD")
        context.insert(sfo)
        for i in 1...3 {
            let flight = Flight(ident: "UAL\(i)")
            context.insert(flight)
            flight.origin = sfo
            flight.destination = ord
        }
        try context.save()
        context.processPendingChanges()
        let ids = sfo.flightsFrom.map(\.persistentModelID)

        context.delete(sfo)  // Airport.flightsFrom cascades
        context.processPendingChanges()
        #expect(context.deletedModelsArray.count == 4 && ord.flightsTo.isEmpty)
        undo.undo()
        #expect(!context.hasChanges || context.deletedModelsArray.isEmpty)
        #expect(sfo.flightsFrom.map(\.ident) == ["UAL1", "UAL2", "UAL3"])
        #expect(ord.flightsTo.map(\.ident) == ["UAL1", "UAL2", "UAL3"])
        #expect(sfo.flightsFrom.allSatisfy { $0.origin === sfo && $0.destination === ord && !$0.isDeleted })

        // Delete, save, then undo: the rows come back with their identifiers, and a save stores them.
        undo.redo()
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 0)
        undo.undo()
        #expect(context.hasChanges)
        try context.save()
        let flights = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        #expect(flights.map(\.persistentModelID) == ids)
        #expect(flights.allSatisfy { $0.origin?.icao == "KSFO" && $0.destination?.icao == "KORD" })
        let other = ModelContext(context.container)
        let airport = try #require(try other.fetchUnique(\Airport.icao, equals: "KSFO"))
        #expect(airport.flightsFrom.map(\.ident) == ["UAL1", "UAL2", "UAL3"])
    }

    @Test func groupingNamesLevelsAndSwitchingOff() throws {
        let context = try undoableContext()
        let undo = try #require(context.undoManager)
        let flight = Flight(ident: "A")
        context.insert(flight)
        context.processPendingChanges()
        undo.beginUndoGrouping()
        flight.routeDistance = 1
        flight.status = .enroute
        undo.beginUndoGrouping()  // nested groups fold into the outer one
        flight.routeDistance = 2
        undo.endUndoGrouping()
        undo.setActionName("Take Off")
        undo.endUndoGrouping()
        #expect(undo.undoActionName == "Take Off")
        undo.undo()
        #expect(flight.routeDistance == 0 && flight.status == .scheduled)
        #expect(undo.redoActionName == "Take Off")
        undo.redo()
        #expect(flight.routeDistance == 2)

        undo.disableUndoRegistration()
        flight.routeDistance = 99
        undo.enableUndoRegistration()
        context.processPendingChanges()
        undo.undo()  // undoes the group before the unrecorded change
        #expect(flight.routeDistance == 0 || flight.routeDistance == 99)
        #expect(flight.status == .scheduled)

        undo.levelsOfUndo = 2
        for i in 1...5 {
            flight.routeDistance = 100 + i
            context.processPendingChanges()
        }
        #expect(undo.undoCount == 2)
        undo.undo()
        undo.undo()
        #expect(!undo.canUndo && flight.routeDistance == 103)
    }

    @Test func undoAfterSaveAndReopenPersistsTheUndoneState() throws {
        let store = TemporaryStore()
        do {
            let context = try undoableContext(try store.container(Flight.self))
            let flight = Flight(ident: "UAL1")
            context.insert(flight)
            flight.routeDistance = 100
            try context.save()
            context.processPendingChanges()
            flight.routeDistance = 200
            try context.save()
            context.processPendingChanges()
            context.undoManager?.undo()
            #expect(context.hasChanges && flight.routeDistance == 100)
            try context.save()
        }
        let context = ModelContext(try store.container(Flight.self))
        #expect(try context.fetch(FetchDescriptor<Flight>()).first?.routeDistance == 100)
    }

    @MainActor @Test func mainContextRecordsUndoWhenTheContainerSaysSo() throws {
        let on = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true, isUndoEnabled: true))
        #expect(on.mainContext.undoManager != nil)
        let off = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(off.mainContext.undoManager == nil)
    }

    /// Long random sequences of edits, undos and redos, checked after every step against the
    /// states recorded as the edits were made, with every inverse in step.
    @Test(arguments: [UInt64(11), 22, 33])
    func randomEditsUndosAndRedosMatchTheRecordedStates(seed: UInt64) throws {
        let context = try undoableContext()
        let undo = try #require(context.undoManager)
        var rng = SplitMix64(seed: seed)
        let airports = (0..<4).map { Airport(icao: "K\($0)") }
        for airport in airports { context.insert(airport) }
        try context.save()
        context.processPendingChanges()
        undo.removeAllActions()

        struct State: Equatable {
            var flights: [String: [String]]
            var airports: [String: [String]]
        }
        func snapshot() throws -> State {
            var flights: [String: [String]] = [:]
            for f in try context.fetch(FetchDescriptor<Flight>()) {
                flights[f.ident] = [String(f.routeDistance), f.origin?.icao ?? "-", f.destination?.icao ?? "-"]
                // Inverses in step, both ways.
                if let o = f.origin { #expect(o.flightsFrom.contains { $0 === f }, "\(f.ident) \(log.suffix(12))") }
                if let d = f.destination { #expect(d.flightsTo.contains { $0 === f }, "\(f.ident) \(log.suffix(12))") }
            }
            var ports: [String: [String]] = [:]
            for a in try context.fetch(FetchDescriptor<Airport>()) {
                ports[a.icao] = [a.name, a.flightsFrom.map(\.ident).joined(separator: ","), a.flightsTo.map(\.ident).joined(separator: ",")]
                for f in a.flightsFrom { #expect(f.origin === a) }
                for f in a.flightsTo { #expect(f.destination === a) }
            }
            return State(flights: flights, airports: ports)
        }
        var log: [String] = []
        var history = [try snapshot()]
        var position = 0
        var nextIdent = 0
        for step in 0..<300 {
            let live = try context.fetch(FetchDescriptor<Flight>())
            let choice = rng.next() % 100
            if choice < 15 && undo.canUndo {
                log.append("undo")
                undo.undo()
                position -= 1
            } else if choice < 25 && undo.canRedo {
                log.append("redo")
                undo.redo()
                position += 1
            } else if choice < 30 {
                log.append("save")
                try context.save()
                continue
            } else {
                let before = undo.undoCount
                switch rng.next() % 6 {
                case 0:
                    let flight = Flight(ident: "F\(nextIdent)")
                    nextIdent += 1
                    context.insert(flight)
                    let o = Int(rng.next() % 4), d = Int(rng.next() % 4)
                    flight.origin = airports[o]
                    flight.destination = airports[d]
                    log.append("insert \(flight.ident) K\(o)->K\(d)")
                case 1: if let f = live.randomElement(using: &rng) { log.append("delete \(f.ident)"); context.delete(f) }
                case 2: if let f = live.randomElement(using: &rng) { f.routeDistance = Int(rng.next() % 1000) }
                case 3: if let f = live.randomElement(using: &rng) { let o = Int(rng.next() % 4); log.append("origin \(f.ident) K\(o)"); f.origin = airports[o] }
                case 4: if let f = live.randomElement(using: &rng) { let d = Int(rng.next() % 4); log.append("append \(f.ident) to K\(d).flightsTo"); airports[d].flightsTo.append(f) }
                default: airports[Int(rng.next() % 4)].name = "N\(step)"
                }
                context.processPendingChanges()
                guard undo.undoCount > before else { continue }
                history.removeSubrange((position + 1)...)
                history.append(try snapshot())
                position += 1
                continue
            }
            #expect(try snapshot() == history[position], "seed \(seed) step \(step)")
        }
        // Whatever the sequence, what is saved is what is shown.
        try context.save()
        let shown = try snapshot()
        let fresh = ModelContext(context.container)
        let stored = try fresh.fetch(FetchDescriptor<Flight>()).reduce(into: [String: [String]]()) {
            $0[$1.ident] = [String($1.routeDistance), $1.origin?.icao ?? "-", $1.destination?.icao ?? "-"]
        }
        #expect(stored == shown.flights)
    }
}


@Suite struct UndoEventGroupingTests {
    /// Without explicit groups, everything done in one turn of the main queue is one group.
    @MainActor @Test func oneAutomaticGroupPerMainQueueTurn() async throws {
        // Autosave off: a save in between would turn undoing the insert into a delete.
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(
            isStoredInMemoryOnly: true, autosaveEnabled: false, isUndoEnabled: true))
        let context = container.mainContext
        let undo = try #require(context.undoManager)
        let flight = Flight(ident: "A")
        context.insert(flight)
        flight.routeDistance = 1
        await nextMainQueueTurn()
        flight.routeDistance = 2
        flight.status = .enroute
        await nextMainQueueTurn()
        #expect(undo.undoCount == 2)
        undo.undo()
        #expect(flight.routeDistance == 1 && flight.status == .scheduled)
        undo.undo()
        #expect(flight.modelContext == nil)
    }

    func nextMainQueueTurn() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async { continuation.resume() }
        }
    }
}
