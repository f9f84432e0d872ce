import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStoreMacrosFree

/// An undo puts back this context's own change to a list and nothing else: what other contexts
/// saved to the list between the change and the undo stays, before and after this context's
/// save, and so does what they saved after the undo.
@Suite struct UndoAcrossContextsTests {
    /// `GRAPHSTORE_RANDOM_UNDO_SEEDS` (a count) and `GRAPHSTORE_RANDOM_SESSION_STEPS` run more
    /// and longer random sessions; `GRAPHSTORE_RANDOM_UNDO_FLIGHTS` fewer or more flights.
    static let environment = ProcessInfo.processInfo.environment
    static let seeds = environment["GRAPHSTORE_RANDOM_UNDO_SEEDS"].flatMap { Int($0) }.map { (1...UInt64($0)).map { $0 } } ?? [5, 17, 29]
    static let steps = environment["GRAPHSTORE_RANDOM_SESSION_STEPS"].flatMap { Int($0) } ?? 1_000
    static let flights = environment["GRAPHSTORE_RANDOM_UNDO_FLIGHTS"].flatMap { Int($0) } ?? 10

    /// How `b` changes its airline's list.
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        case appendThroughTheArray, setTheFlightsAirline, removeThroughTheArray, setANewOrder
        var testDescription: String { rawValue }
    }

    /// An airline saved with flights "KEEP" and "GONE", a saved flight "SPARE" with no airline,
    /// and a second context `b`, recording undo, holding them.
    struct Fixture {
        let a: ModelContext, b: ModelContext, undo: UndoManager
        let airline: Airline, keep: Flight
        let mine: Airline, spare: Flight

        init() throws {
            let container = try ModelContainer(for: Flight.self, Airline.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            a = ModelContext(container)
            b = ModelContext(container)
            airline = Airline(code: "UAL")
            keep = Flight(ident: "KEEP")
            a.insert(airline)
            a.insert(Flight(ident: "SPARE"))
            airline.flights = [keep, Flight(ident: "GONE")]
            try a.save()
            undo = UndoManager()
            undo.groupsByEvent = false
            b.undoManager = undo
            mine = try #require(b.model(for: airline.persistentModelID) as? Airline)
            spare = try #require(b.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "SPARE" })).first)
        }

        /// `change`, made in `b` as one undo group.
        func make(_ change: Change) {
            switch change {
            case .appendThroughTheArray: mine.flights.append(spare)
            case .setTheFlightsAirline: spare.airline = mine
            case .removeThroughTheArray: mine.flights.removeAll { $0.ident == "GONE" }
            case .setANewOrder: mine.flights = mine.flights.reversed()
            }
            b.processPendingChanges()
        }

        /// `a` saves a new flight "THEIRS" to the airline.
        func saveAnAdditionInA() throws -> Flight {
            let theirs = Flight(ident: "THEIRS")
            a.insert(theirs)
            theirs.airline = airline
            try a.save()
            return theirs
        }

        /// The airline's flights and SPARE's airline as a new context reads them.
        func stored() throws -> (flights: [String], spareAirline: String?) {
            let fresh = ModelContext(a.container)
            let flights = try #require(fresh.model(for: airline.persistentModelID) as? Airline).flights.map(\.ident)
            let spare = try #require(fresh.model(for: spare.persistentModelID) as? Flight)
            return (flights, spare.airline?.code)
        }
    }

    /// `b` changes the list, `a` saves an addition, `b` undoes: the list is as it was, with
    /// `a`'s flight, in `b` and in the store after `b`'s save.
    @Test(arguments: Change.allCases)
    func anUndoKeepsAnAdditionSavedInBetween(change: Change) throws {
        let f = try Fixture()
        f.make(change)
        let theirs = try f.saveAnAdditionInA()
        f.undo.undo()
        #expect(f.mine.flights.map(\.ident) == ["KEEP", "GONE", "THEIRS"])
        #expect(f.spare.airline == nil)
        try f.b.save()
        let stored = try f.stored()
        #expect(stored.flights == ["KEEP", "GONE", "THEIRS"])
        #expect(stored.spareAirline == nil)
        let fresh = ModelContext(f.a.container)
        #expect(try #require(fresh.model(for: theirs.persistentModelID) as? Flight).airline?.code == "UAL")
    }

    /// As above, with `a` also deleting KEEP: the undo does not bring KEEP back to the list.
    @Test(arguments: Change.allCases)
    func anUndoKeepsARemovalSavedInBetween(change: Change) throws {
        let f = try Fixture()
        f.make(change)
        f.a.delete(f.keep)
        _ = try f.saveAnAdditionInA()
        f.undo.undo()
        #expect(Set(f.mine.flights.map(\.ident)) == ["GONE", "THEIRS"])
        try f.b.save()
        #expect(Set(try f.stored().flights) == ["GONE", "THEIRS"])
    }

    /// `b` changes the list and saves, `a` saves an addition, `b` undoes and saves, then redoes
    /// and saves: each time only `b`'s own change goes and comes back.
    @Test(arguments: Change.allCases)
    func anUndoAndRedoAfterASaveKeepAnotherContextsAddition(change: Change) throws {
        let f = try Fixture()
        f.make(change)
        try f.b.save()
        let changed = try f.stored()
        _ = try f.saveAnAdditionInA()
        f.undo.undo()
        try f.b.save()
        #expect(try f.stored().flights == ["KEEP", "GONE", "THEIRS"])
        #expect(try f.stored().spareAirline == nil)
        f.undo.redo()
        try f.b.save()
        let redone = try f.stored()
        #expect(Set(redone.flights) == Set(changed.flights + ["THEIRS"]))
        #expect(redone.flights.filter { $0 != "THEIRS" } == changed.flights)
        #expect(redone.spareAirline == changed.spareAirline)
    }

    /// `b` moves three flights to AAL, F0 last; `a` then saves two of the moves otherwise (F1
    /// into AAL too, F2 into UAL); `b` undoes F0's move: F0 goes back to UAL, and F2 stays in AAL
    /// where `b`'s own unsaved move put it, though UAL's list showed it (from `a`'s save)
    /// when F0 went back in.
    @Test func anUndoLeavesOtherMembersWhereTheirToOnesSay() throws {
        let container = try ModelContainer(for: Flight.self, Airline.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let a = ModelContext(container), b = ModelContext(container)
        let airlines = ["UAL", "DAL", "AAL"].map { Airline(code: $0) }
        for airline in airlines { a.insert(airline) }
        let flights = (0..<3).map { Flight(ident: "F\($0)") }
        for (flight, airline) in zip(flights, [airlines[0], airlines[1], airlines[1]]) {
            a.insert(flight)
            flight.airline = airline
        }
        try a.save()
        let undo = UndoManager()
        undo.groupsByEvent = false
        b.undoManager = undo
        let flightsInB = try b.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        let aal = try #require(b.model(for: airlines[2].persistentModelID) as? Airline)
        for flight in [flightsInB[1], flightsInB[2], flightsInB[0]] {
            flight.airline = aal
            b.processPendingChanges()
        }
        flights[1].airline = airlines[2]
        flights[2].airline = airlines[0]
        try a.save()
        undo.undo()
        #expect(flightsInB.map { $0.airline?.code } == ["UAL", "AAL", "AAL"])
        try b.save()
        let fresh = ModelContext(container)
        let stored = try fresh.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        #expect(stored.map { $0.airline?.code } == ["UAL", "AAL", "AAL"])
        #expect(try fresh.fetch(FetchDescriptor<Airline>(sortBy: [SortDescriptor(\.code)])).map { $0.flights.map(\.ident).sorted() }
                == [["F1", "F2"], [], ["F0"]])
    }

    /// Random sessions of two contexts of one container: `a` moves flights between airlines and
    /// saves each move; `b` moves them too (through the to-one, by appends, removals and new
    /// orders of the arrays), undoes, redoes, saves and rolls back. Checked against plain values
    /// after every step: each flight's airline as `b` reads it is `b`'s own latest change, undone
    /// and redone as `b` says, or else what was saved last; after each of `b`'s saves, the store
    /// holds every flight where its last saved change put it, `a`'s moves included, with every
    /// airline's list in step with the flights' airlines, and `b` reads the lists as the store has them.
    @Test(arguments: Self.seeds)
    func randomUndosKeepAnotherContextsSaves(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let container = try ModelContainer(for: Flight.self, Airline.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let a = ModelContext(container), b = ModelContext(container)
        let codes = ["UAL", "DAL", "AAL"], idents = (0..<Self.flights).map { "F\($0)" }.sorted()
        var saved: [String: String?] = [:]   // each flight's airline as last saved
        let airlinesInA = codes.map { Airline(code: $0) }
        for airline in airlinesInA { a.insert(airline) }
        for ident in idents {
            let flight = Flight(ident: ident)
            a.insert(flight)
            let code = codes.randomElement(using: &rng)!
            flight.airline = airlinesInA.first { $0.code == code }
            saved[ident] = code
        }
        try a.save()
        let flightsInA = try a.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        let undo = UndoManager()
        undo.groupsByEvent = false
        b.undoManager = undo
        let flightsInB = try b.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)]))
        let airlinesInB = try b.fetch(FetchDescriptor<Airline>(sortBy: [SortDescriptor(\.code)]))
        func airlineInB(_ code: String?) -> Airline? { airlinesInB.first { $0.code == code } }
        func airlineInA(_ code: String?) -> Airline? { airlinesInA.first { $0.code == code } }

        /// Each flight's airline as `b` reads it.
        func readInB() -> [String: String?] {
            Dictionary(uniqueKeysWithValues: flightsInB.map { ($0.ident, $0.airline?.code) })
        }
        var unsaved: [String: String?] = [:]   // `b`'s own unsaved changes
        // What undo and redo put back: each group's flights and the airlines they go back to.
        var undoable: [[String: String?]] = [], redoable: [[String: String?]] = []
        var log: [String] = []

        /// Puts `values` back as `b`'s changes, over what `b` read before (`now`); returns what
        /// they replace, for the way back.
        func putBack(_ values: [String: String?], over now: [String: String?]) -> [String: String?] {
            var replaced: [String: String?] = [:]
            for (ident, code) in values {
                replaced[ident] = now[ident]!
                unsaved[ident] = code
            }
            return replaced
        }

        func checkTheStore(_ step: Int) throws {
            let fresh = ModelContext(container)
            var members: [String: Set<String>] = [:]
            for flight in try fresh.fetch(FetchDescriptor<Flight>()) {
                #expect(flight.airline?.code == saved[flight.ident]!, "seed \(seed) step \(step) \(flight.ident) \(log.suffix(8))")
                if let code = flight.airline?.code { members[code, default: []].insert(flight.ident) }
            }
            for airline in try fresh.fetch(FetchDescriptor<Airline>()) {
                let list = airline.flights.map(\.ident)
                #expect(list.count == Set(list).count && Set(list) == members[airline.code] ?? [],
                        "seed \(seed) step \(step) \(airline.code) \(list) \(log.suffix(8))")
                #expect(airlineInB(airline.code)!.flights.map(\.ident) == list, "seed \(seed) step \(step) \(airline.code) in b")
            }
        }

        var kinds: [String: Int] = [:]
        /// Undoes (or redoes) `b`'s latest group, whose values then wait on the other stack.
        func undoOrRedo(redoing: Bool) {
            let group = redoing ? redoable.removeLast() : undoable.removeLast()
            let now = readInB()
            if redoing { undo.redo() } else { undo.undo() }
            let back = putBack(group, over: now)
            if redoing { undoable.append(back) } else { redoable.append(back) }
            log.append(redoing ? "b: redo" : "b: undo")
            kinds[redoing ? "redo" : "undo", default: 0] += 1
        }
        for step in 0..<Self.steps {
            let choice = rng.next() % 100
            let flight = Int(rng.next() % UInt64(idents.count)), ident = idents[flight]
            let code = rng.next() % 4 == 0 ? nil : codes.randomElement(using: &rng)
            if choice < 25 {
                // `a` moves a flight and saves.
                let mine = flightsInA[flight]
                if rng.next() % 3 == 0, let airline = airlineInA(code), !airline.flights.contains(where: { $0 === mine }) {
                    airline.flights.append(mine)
                } else {
                    mine.airline = airlineInA(code)
                }
                try a.save()
                saved[ident] = code
                log.append("a: \(ident) -> \(code ?? "-")")
            } else if choice < 60 {
                // `b` changes something, as one undo group.
                let before = readInB(), groups = undo.undoCount
                let airline = airlineInB(code) ?? airlinesInB[Int(rng.next() % 3)]
                switch rng.next() % 4 {
                case 0:
                    flightsInB[flight].airline = airlineInB(code)
                    log.append("b: \(ident) -> \(code ?? "-")")
                case 1:
                    if !airline.flights.contains(where: { $0 === flightsInB[flight] }) { airline.flights.append(flightsInB[flight]) }
                    log.append("b: append \(ident) to \(airline.code)")
                case 2:
                    let gone = Set(idents.filter { _ in rng.next() % 3 == 0 })
                    airline.flights.removeAll { gone.contains($0.ident) }
                    log.append("b: remove \(gone.sorted()) from \(airline.code)")
                default:
                    airline.flights = airline.flights.shuffled(using: &rng)
                    log.append("b: new order of \(airline.code)")
                }
                b.processPendingChanges()
                let after = readInB()
                let moved = before.filter { after[$0.key]! != $0.value }
                for ident in moved.keys { unsaved[ident] = after[ident]! }
                if undo.undoCount > groups {
                    undoable.append(moved)
                    redoable = []
                } else {
                    #expect(moved.isEmpty, "seed \(seed) step \(step): moves with no undo group")
                }
            } else if choice < 75, !undoable.isEmpty {
                undoOrRedo(redoing: false)
            } else if choice < 83, !redoable.isEmpty {
                undoOrRedo(redoing: true)
            } else if choice < 97 {
                try b.save()
                for (ident, code) in unsaved { saved[ident] = code }
                unsaved = [:]
                log.append("b: save")
                try checkTheStore(step)
            } else {
                b.rollback()
                unsaved = [:]
                undoable = []
                redoable = []
                log.append("b: rollback")
            }
            let expected = saved.merging(unsaved) { $1 }
            let seen = readInB()
            #expect(seen == expected, "seed \(seed) step \(step): \(expected.keys.sorted().filter { seen[$0]! != expected[$0]! }.map { "\($0) is \(seen[$0]! ?? "-"), not \(expected[$0]! ?? "-")" }) after \(log.suffix(12))")
            if seen != expected { break }  // what follows would only repeat it
        }
        try b.save()
        for (ident, code) in unsaved { saved[ident] = code }
        try checkTheStore(Self.steps)
        #expect(kinds["undo", default: 0] > 20 && kinds["redo", default: 0] > 5)
    }
}
