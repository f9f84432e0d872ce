import Foundation
import GraphStoreModelTestSupport
import Observation
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

@Suite struct NotificationAndMergeTests {
    func memory() throws -> ModelContainer {
        try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func willSaveAndDidSaveCarryTheIdentifiers() throws {
        let context = ModelContext(try memory())
        context.author = "importer"
        var received: [SaveNotification] = []
        let will = context.onWillSave { received.append($0) }
        let did = context.onDidSave { received.append($0) }
        let posted = Locked<[Notification]>([])
        let center = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: context, queue: nil) { note in
            posted.withLock { $0.append(note) }
        }
        defer { NotificationCenter.default.removeObserver(center) }
        // The posted willSave carries nothing, as SwiftData's: the callback has the identifiers.
        let postedWillSave = Locked<[Notification]>([])
        let willCenter = NotificationCenter.default.addObserver(forName: ModelContext.willSave, object: context, queue: nil) { note in
            postedWillSave.withLock { $0.append(note) }
        }
        defer { NotificationCenter.default.removeObserver(willCenter) }

        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        try context.save()
        #expect(received.map(\.phase) == [.willSave, .didSave])
        #expect(received[0].transaction == nil && received[1].transaction != nil)
        #expect(received[1].inserted == [flight.persistentModelID] && received[1].author == "importer")
        #expect(received[0].inserted == [flight.persistentModelID])
        #expect(postedWillSave.value.count == 1 && postedWillSave.value[0].userInfo == nil)
        flight.routeDistance = 9
        try context.save()
        #expect(received.last?.updated == [flight.persistentModelID])
        context.delete(flight)
        try context.save()
        #expect(received.last?.deleted == [flight.persistentModelID])
        // Each posted didSave lists its own save's identifiers under every key.
        let infos = posted.value.suffix(3).compactMap(\.userInfo)
        #expect(infos.count == 3 && infos.allSatisfy { $0.count == 4 })
        func identifiers(_ info: [AnyHashable: Any], _ key: ModelContext.NotificationKey) -> [PersistentIdentifier]? {
            info[key.rawValue] as? [PersistentIdentifier]
        }
        #expect(identifiers(infos[0], .insertedIdentifiers) == [flight.persistentModelID] && identifiers(infos[0], .updatedIdentifiers) == [])
        #expect(identifiers(infos[1], .updatedIdentifiers) == [flight.persistentModelID] && identifiers(infos[1], .insertedIdentifiers) == [])
        #expect(identifiers(infos[1], .deletedIdentifiers) == [] && identifiers(infos[2], .updatedIdentifiers) == [])
        #expect(infos[0][ModelContext.NotificationKey.queryGeneration.rawValue] as? UInt64 == received[1].transaction)
        let userInfo = try #require(posted.value.last?.userInfo)
        #expect(userInfo[ModelContext.NotificationKey.deletedIdentifiers.rawValue] as? [PersistentIdentifier] == [flight.persistentModelID])
        #expect(userInfo[ModelContext.NotificationKey.queryGeneration.rawValue] as? UInt64 == received.last?.transaction)
        #expect(userInfo[ModelContext.NotificationKey.invalidatedAllIdentifiers.rawValue] == nil)
        will.cancel()
        did.cancel()
        context.insert(Flight(ident: "UAL2"))
        try context.save()
        #expect(received.count == 6)
    }

    @Test func saveNotificationsAreAnAsyncSequence() async throws {
        let container = try memory()
        let stream: AsyncStream<SaveNotification>
        let id: PersistentIdentifier
        do {
            let context = ModelContext(container)
            stream = context.saveNotifications
            let flight = Flight(ident: "A1")
            context.insert(flight)
            try context.save()
            id = flight.persistentModelID
        }
        var phases: [SaveNotification.Phase] = []
        for await notification in stream {
            phases.append(notification.phase)
            if notification.phase == .didSave {
                #expect(notification.inserted == [id])
                break
            }
        }
        #expect(phases == [.willSave, .didSave])
    }

    /// A flight saved by context `a`, and the same flight in context `b` with `policy`.
    func twoContexts(_ policy: MergePolicy) throws -> (a: ModelContext, flight: Flight, b: ModelContext, mine: Flight) {
        let container = try memory()
        let a = ModelContext(container)
        let flight = Flight(ident: "UAL1")
        a.insert(flight)
        try a.save()
        let b = ModelContext(container)
        b.mergePolicy = policy
        return (a, flight, b, try #require(b.model(for: flight.persistentModelID) as? Flight))
    }

    func conflict(_ policy: MergePolicy) throws -> (ModelContext, Flight, ModelContext) {
        let (a, flight, b, mine) = try twoContexts(policy)
        mine.routeDistance = 111      // b's unsaved edit
        mine.status = .landed         // an edit nobody else touches
        flight.routeDistance = 222    // a saves a different value
        try a.save()
        #expect(mine.routeDistance == 111)  // b keeps its unsaved edit until it saves
        return (a, mine, b)
    }

    @Test func localWinsSavesThisContextsValue() throws {
        let (a, mine, b) = try conflict(.localWins)
        try b.save()
        let seen = try #require(try a.fetch(FetchDescriptor<Flight>()).first)
        #expect(seen.routeDistance == 111 && seen.status == .landed && mine.routeDistance == 111)
    }

    @Test func storeWinsKeepsTheOtherContextsValue() throws {
        let (a, mine, b) = try conflict(.storeWins)
        try b.save()
        let seen = try #require(try a.fetch(FetchDescriptor<Flight>()).first)
        #expect(seen.routeDistance == 222 && mine.routeDistance == 222)
        #expect(seen.status == .landed)  // edits without a conflict still save
    }

    @Test func errorPolicyNamesTheConflict() throws {
        let (_, mine, b) = try conflict(.error)
        #expect(throws: ModelContextError.mergeConflict(model: mine.persistentModelID, properties: ["routeDistance"])) {
            try b.save()
        }
    }

    /// A save made before this context's edit cannot clash with it: only commits made while a
    /// context has edits are kept for its merge policy (so a context that never edits does not
    /// hold every other context's commits, an import's among them).
    @Test func aSaveBeforeTheEditIsNoConflictAndTheInboxEmptiesWithTheEdits() throws {
        let (a, flight, b, mine) = try twoContexts(.error)
        flight.routeDistance = 222    // a saves before b edits
        try a.save()
        #expect(b.pendingMergeCount == 0)
        mine.routeDistance = 111
        try b.save()                  // no conflict: b's edit came after a's save
        #expect(try a.fetch(FetchDescriptor<Flight>()).first?.routeDistance == 111)

        mine.routeDistance = 333      // b edits again; a saves during the edit: kept, and a conflict
        flight.routeDistance = 444
        try a.save()
        #expect(b.pendingMergeCount == 1)
        // Kept for later, a commit's summary is worked out at once and keeps no operations.
        #expect(b.link.pendingMergesAreSettled)
        #expect(throws: ModelContextError.mergeConflict(model: mine.persistentModelID, properties: ["routeDistance"])) {
            try b.save()
        }
        b.rollback()                  // no edits left: what was kept goes
        #expect(b.pendingMergeCount == 0)
    }

    /// `.localWins` never consults other contexts' commits, so an editing context keeps none of
    /// them (with many writers, each would otherwise queue every other's commits); switching to
    /// a policy that consults them keeps them from then on.
    @Test func localWinsKeepsNoInboxAndAStricterPolicyStartsOne() throws {
        let (a, flight, b, mine) = try twoContexts(.localWins)
        mine.routeDistance = 111
        flight.routeDistance = 222
        try a.save()
        #expect(b.pendingMergeCount == 0)
        b.mergePolicy = .error          // while b still has its edit
        flight.routeDistance = 333
        try a.save()
        #expect(b.pendingMergeCount == 1)
        // Kept for later, a commit's summary is worked out at once and keeps no operations.
        #expect(b.link.pendingMergesAreSettled)
        #expect(throws: ModelContextError.mergeConflict(model: mine.persistentModelID, properties: ["routeDistance"])) {
            try b.save()
        }
        b.mergePolicy = .localWins      // back: what was kept goes, and b's value is saved
        #expect(b.pendingMergeCount == 0)
        try b.save()
        #expect(try ModelContext(a.container).fetch(FetchDescriptor<Flight>()).first?.routeDistance == 111)
    }

    /// The cheap check a merge asks first never misses a row the summary lists: updates,
    /// deletes, and both sides of links and unlinks; rows the transaction does not touch are
    /// answered false.
    @Test func mayChangeAnswersForEveryRowTheSummaryLists() throws {
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                           configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let schema = container.schema
        let flight = try #require(schema.entity(named: "Flight")), airport = try #require(schema.entity(named: "Airport"))
        let distance = try #require(flight.attribute(named: "routeDistance"))
        let destination = try #require(flight.relationship(named: "destination"))
        let operations: [LogOperation] = [
            .insert(entity: flight.number, row: 9, values: []),
            .update(entity: flight.number, row: 1, values: [PropertyValue(distance.number, .int(5))]),
            .delete(entity: flight.number, row: 2),
            .link(relationship: destination.number, source: 3, target: 4),
            .unlink(relationship: destination.number, source: 5, target: 6),
        ]
        let listed = ChangeSummary(operations: operations, schema: schema).changes
        #expect(Set(listed.keys) == [flight.index, airport.index])
        // The identifiers alone, worked out without the names, are the whole summary's.
        // (An update of the row deleted here, which counts as deleted only.)
        let withLateUpdate = operations + [.update(entity: flight.number, row: 2, values: [PropertyValue(distance.number, .int(6))])]
        let identifiersOnly = ChangeSummary(operations: withLateUpdate, schema: schema)
        let whole = ChangeSummary(operations: withLateUpdate, schema: schema).settled
        #expect(identifiersOnly.updated == whole.updated && identifiersOnly.deleted == whole.deleted && identifiersOnly.inserted == whole.inserted)
        #expect(!identifiersOnly.isSettled && whole.updated.count == 5 && whole.deleted.count == 1)
        let together = identifiersOnly.identifiers
        #expect(together.inserted == whole.inserted && together.updated == whole.updated && together.deleted == whole.deleted)
        for (entity, rows) in listed {
            for row in rows.keys {
                let fresh = ChangeSummary(operations: operations, schema: schema)
                #expect(fresh.mayChange { $0 == entity && $1 == row }, "entity \(entity) row \(row)")
                #expect(!fresh.isSettled, "answered without working the summary out")
            }
        }
        let untouched = [(flight.index, UInt64(4)), (airport.index, 3), (flight.index, 7), (airport.index, 1)]
        for (entity, row) in untouched {
            #expect(!ChangeSummary(operations: operations, schema: schema).mayChange { $0 == entity && $1 == row })
            #expect(!ChangeSummary(operations: operations, schema: schema).settled.mayChange { $0 == entity && $1 == row })
        }
    }

    /// One commit's summary is asked by every other context at once, from their threads: the
    /// check, the identifiers and the whole summary, in any order, give the same answers.
    @Test func oneSummaryAskedFromManyThreadsAnswersAlike() throws {
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                           configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let schema = container.schema
        let flight = try #require(schema.entity(named: "Flight"))
        let distance = try #require(flight.attribute(named: "routeDistance"))
        let operations: [LogOperation] = (1...64).map { .update(entity: flight.number, row: UInt64($0), values: [PropertyValue(distance.number, .int($0))]) }
        let expected = ChangeSummary(operations: operations, schema: schema).settled
        for _ in 0..<20 {
            let summary = ChangeSummary(operations: operations, schema: schema)
            let wrong = Locked(0)
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for row in UInt64(1)...64 {
                    var agrees = summary.mayChange { $0 == flight.index && $1 == row } && !summary.mayChange { $0 == flight.index && $1 == row + 64 }
                    switch (Int(row) + thread) % 3 {
                    case 0: agrees = agrees && summary.identifiers.updated == expected.updated
                    case 1: agrees = agrees && summary.changes[flight.index]?[row] == ["routeDistance"]
                    default: agrees = agrees && summary.inserted.isEmpty && summary.deleted.isEmpty
                    }
                    if !agrees { wrong.withLock { $0 += 1 } }
                }
            }
            #expect(wrong.value == 0)
            #expect(summary.isSettled)
        }
    }

    /// A save is summarised row by row only for whoever needs it: a context holding none of its
    /// rows, with no live query or kept merges, and a saver nobody listens to leave it unworked;
    /// a context holding a changed row works it out and its object hears of the change.
    @Test func mergesIntoContextsHoldingNoneOfTheRowsWorkNothingOut() throws {
        let container = try memory()
        let a = ModelContext(container)
        let mine = Flight(ident: "UAL1"), other = Flight(ident: "UAL2")
        a.insert(mine)
        a.insert(other)
        try a.save()
        let b = ModelContext(container)
        let held = try #require(b.model(for: other.persistentModelID) as? Flight)
        let entity = try #require(container.schema.entity(named: "Flight"))
        let distance = try #require(entity.attribute(named: "routeDistance"))
        func update(_ flight: Flight) throws -> ChangeSummary {
            try container.commit(from: a, author: "") {
                [.update(entity: entity.number, row: flight.persistentBacking.row, values: [PropertyValue(distance.number, .int(7))])]
            }.1
        }
        #expect(!(try update(mine)).isSettled)
        let heard = Locked(false)
        withObservationTracking { _ = held.routeDistance } onChange: { heard.withLock { $0 = true } }
        #expect(try update(other).isSettled)
        #expect(heard.value)
    }
}

/// To-many relationships always merge: a list changed through its array in one context keeps
/// what another context saved to it meanwhile, in what the context reads and in what its save
/// writes.
@Suite struct ToManyMergeTests {
    /// An airline saved with flights "KEEP" and "GONE"; a second context holding it.
    func airline() throws -> (a: ModelContext, airline: Airline, keep: Flight, gone: Flight, b: ModelContext, mine: Airline) {
        let container = try ModelContainer(for: Flight.self, Airline.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let a = ModelContext(container), b = ModelContext(container)
        let airline = Airline(code: "UAL"), keep = Flight(ident: "KEEP"), gone = Flight(ident: "GONE")
        a.insert(airline)
        airline.flights = [keep, gone]
        try a.save()
        let mine = try #require(b.model(for: airline.persistentModelID) as? Airline)
        #expect(mine.flights.map(\.ident) == ["KEEP", "GONE"])
        return (a, airline, keep, gone, b, mine)
    }

    /// The airline's flights as a new context reads them.
    func idents(_ context: ModelContext, _ id: PersistentIdentifier) throws -> [String] {
        let fresh = ModelContext(context.container)
        return try #require(fresh.model(for: id) as? Airline).flights.map(\.ident)
    }

    /// `b` appends through the array while `a` saves another flight to the airline (through the
    /// array or the flight's to-one): both flights are there before and after `b`'s save.
    @Test(arguments: [false, true])
    func anAppendKeepsAnotherContextsAddition(othersThroughTheArray: Bool) throws {
        let (a, airline, _, _, b, mine) = try airline()
        let added = Flight(ident: "MINE")
        b.insert(added)
        mine.flights.append(added)
        let theirs = Flight(ident: "THEIRS")
        a.insert(theirs)
        if othersThroughTheArray { airline.flights.append(theirs) } else { theirs.airline = airline }
        try a.save()
        #expect(mine.flights.map(\.ident) == ["KEEP", "GONE", "THEIRS", "MINE"])
        try b.save()
        #expect(try idents(b, mine.persistentModelID) == ["KEEP", "GONE", "THEIRS", "MINE"])
        let fresh = ModelContext(b.container)
        #expect(try #require(fresh.model(for: theirs.persistentModelID) as? Flight).airline?.code == "UAL")
    }

    /// `b` takes a flight out through the array, and puts one back at the end, while `a`
    /// saves an addition: only `b`'s removal and move happen.
    @Test func aRemovalAndAMoveToTheEndKeepAnotherContextsAddition() throws {
        let (a, airline, _, _, b, mine) = try airline()
        mine.flights.removeAll { $0.ident == "GONE" }
        mine.flights.removeAll { $0.ident == "KEEP" }
        let keep = try #require(b.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "KEEP" })).first)
        mine.flights.append(keep)
        let theirs = Flight(ident: "THEIRS")
        a.insert(theirs)
        theirs.airline = airline
        try a.save()
        #expect(mine.flights.map(\.ident) == ["THEIRS", "KEEP"])
        try b.save()
        #expect(try idents(b, mine.persistentModelID) == ["THEIRS", "KEEP"])
    }

    /// `b` sets a new order while `a` saves an addition and a removal: `b`'s order, without
    /// what `a` took out, then what `a` added.
    @Test func aNewOrderKeepsAnotherContextsAdditionAndRemoval() throws {
        let (a, airline, _, gone, b, mine) = try airline()
        let added = Flight(ident: "MINE")
        b.insert(added)
        mine.flights = [added] + mine.flights.reversed()
        let theirs = Flight(ident: "THEIRS")
        a.insert(theirs)
        airline.flights.append(theirs)
        a.delete(gone)
        try a.save()
        #expect(mine.flights.map(\.ident) == ["MINE", "KEEP", "THEIRS"])
        try b.save()
        #expect(try idents(b, mine.persistentModelID) == ["MINE", "KEEP", "THEIRS"])
    }

    /// Three airlines in `a`, and `b` holding them and flight "F" (saved with UAL).
    func twoAirlinesAndAFlight() throws -> (a: ModelContext, f: Flight, dal: Airline, b: ModelContext, mine: Flight, ual: Airline, dalInB: Airline) {
        let container = try ModelContainer(for: Flight.self, Airline.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let a = ModelContext(container), b = ModelContext(container)
        let ual = Airline(code: "UAL"), dal = Airline(code: "DAL"), f = Flight(ident: "F")
        a.insert(ual)
        a.insert(dal)
        a.insert(f)
        f.airline = ual
        try a.save()
        return (a, f, dal, b, try #require(b.model(for: f.persistentModelID) as? Flight),
                try #require(b.model(for: ual.persistentModelID) as? Airline), try #require(b.model(for: dal.persistentModelID) as? Airline))
    }

    enum Clearing: String, CaseIterable, CustomTestStringConvertible {
        case theToOne, throughTheArray, afterSettingAnother
        var testDescription: String { rawValue }
    }

    /// `b` takes F off its airline, `a` saves F moved to DAL, `b` saves: F has no airline, as
    /// `b` read it (its change of F's airline is saved over `a`'s, as for any property).
    @Test(arguments: Clearing.allCases)
    func aClearedToOneIsSavedOverAnotherContextsMove(clearing: Clearing) throws {
        let (a, f, dal, b, mine, ual, dalInB) = try twoAirlinesAndAFlight()
        switch clearing {
        case .theToOne: mine.airline = nil
        case .throughTheArray: ual.flights.removeAll()
        case .afterSettingAnother: mine.airline = dalInB; mine.airline = nil
        }
        f.airline = dal
        try a.save()
        #expect(mine.airline == nil)
        try b.save()
        #expect(mine.airline == nil && dalInB.flights.isEmpty)
        let fresh = ModelContext(a.container)
        #expect(try #require(fresh.model(for: f.persistentModelID) as? Flight).airline == nil)
        #expect(try #require(fresh.model(for: dal.persistentModelID) as? Airline).flights.isEmpty)
    }

    /// `b` moves F to DAL, `a` saves the same move: `b` reads F in DAL's list once, and saves it once.
    @Test func aMoveBothContextsMadeShowsOnce() throws {
        let (a, f, dal, b, mine, _, dalInB) = try twoAirlinesAndAFlight()
        mine.airline = dalInB
        f.airline = dal
        try a.save()
        #expect(dalInB.flights.map(\.ident) == ["F"])
        try b.save()
        let fresh = ModelContext(a.container)
        #expect(try #require(fresh.model(for: dal.persistentModelID) as? Airline).flights.map(\.ident) == ["F"])
    }

    /// `b` takes F off its airline and sets a new order of DAL's list; `a` saves F moved to
    /// DAL; `b` sets DAL's order again and saves: F is in neither list, as `b` read it (the
    /// whole list does not take in what `b`'s own to-one of F puts elsewhere).
    @Test(arguments: [false, true])
    func aNewOrderLeavesOutAMemberThisContextTookOff(reorderingAgain: Bool) throws {
        let (a, f, dal, b, mine, ual, dalInB) = try twoAirlinesAndAFlight()
        let d1 = Flight(ident: "D1"), d2 = Flight(ident: "D2")
        a.insert(d1)
        a.insert(d2)
        dal.flights = [d1, d2]
        try a.save()
        ual.flights.removeAll()
        dalInB.flights = dalInB.flights.reversed()
        f.airline = dal
        try a.save()
        #expect(mine.airline == nil && dalInB.flights.map(\.ident) == ["D2", "D1"])
        if reorderingAgain { dalInB.flights = dalInB.flights.reversed() }
        try b.save()
        let fresh = ModelContext(a.container)
        #expect(try #require(fresh.model(for: f.persistentModelID) as? Flight).airline == nil)
        #expect(try #require(fresh.model(for: dal.persistentModelID) as? Airline).flights.map(\.ident) == (reorderingAgain ? ["D1", "D2"] : ["D2", "D1"]))
    }
}
