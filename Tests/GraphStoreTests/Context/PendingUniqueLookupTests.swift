import Foundation
import GraphStoreMacrosFree
@testable import GraphStore
import GraphStoreModelTestSupport
import Testing
@_spi(GraphStoreInternals) import GraphStoreLog

/// `#Predicate { $0.ident == x }` with unsaved changes is answered through the context's map of
/// pending unique values. It must give exactly what evaluating the predicate over every object
/// gives, whatever the pending changes are.
@Suite struct PendingUniqueLookupTests {
    /// What the fast path answers, and what the general path answers for the same condition
    /// (a disjunction of the same equality is not a unique-key lookup).
    func both(_ context: ModelContext, _ ident: String) throws -> (fast: [String], general: [String]) {
        let fast = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident }))
        let general = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident || $0.ident == ident }))
        func describe(_ flights: [Flight]) -> [String] { flights.map { "\($0.ident)#\($0.routeDistance)" } }
        return (describe(fast), describe(general))
    }

    /// A context lists its pending unique values only once a lookup needs them: everything
    /// inserted, renamed and deleted before the first lookup after a save is found as it would
    /// be after it, two unsaved objects of one value included; and again after the next save.
    @Test func theFirstLookupAfterASaveSeesWhatCameBeforeIt() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.autosaveEnabled = false
        for round in 0..<2 {
            for i in 0..<10 { context.insert(Flight(ident: "R\(round)F\(i)")) }
            let twin = Flight(ident: "R\(round)TWIN"), other = Flight(ident: "R\(round)TWIN")
            context.insert(twin)
            context.insert(other)
            if round == 1 { try #require(try context.fetchUnique(\Flight.ident, equals: "R0F2")).ident = "R1MOVED" }
            context.delete(try #require(context.insertedModelsArray.compactMap { $0 as? Flight }.first { $0.ident == "R\(round)F5" }))
            for ident in ["R\(round)F1", "R\(round)F5", "R\(round)TWIN", "R1MOVED", "R0F2", "R0F7", "NONE"] {
                let (fast, general) = try both(context, ident)
                #expect(fast == general, "round \(round): \(ident)")
            }
            #expect(try both(context, "R\(round)TWIN").fast.count == 2)
            #expect(try context.fetchUnique(\Flight.ident, equals: "R\(round)F9")?.ident == "R\(round)F9")
            #expect(try context.fetchUnique(\Flight.ident, equals: "R\(round)F5") == nil)
            context.delete(other)
            try context.save()
        }
        #expect(try context.fetchUnique(\Flight.ident, equals: "R1MOVED") != nil)
        #expect(try context.fetchUnique(\Flight.ident, equals: "R0F2") == nil)
    }

    /// A save lets go of the map before it writes: when the write fails, the next lookup lists
    /// the unsaved objects again and finds each by its value, changes made after included.
    @Test func lookupsAfterASaveThatFailedFindTheUnsavedObjects() throws {
        let store = TemporaryStore()
        let faulty = FaultInjectingFileIO(base: PosixFileIO(), plan: FaultPlan())
        let container = try store.container(Flight.self, durability: .full, fileIO: faulty)
        let context = ModelContext(container)
        context.autosaveEnabled = false
        let flights = (0..<20).map { Flight(ident: "F\($0)") }
        for flight in flights { context.insert(flight) }
        #expect(try context.fetchUnique(\Flight.ident, equals: "F3") === flights[3])
        faulty.setPlan(FaultPlan(failWrite: (index: faulty.writeCount, errno: 28)))
        #expect(throws: StorageError.self) { try context.save() }
        flights[4].ident = "RENAMED"
        for i in [0, 3, 19] { #expect(try context.fetchUnique(\Flight.ident, equals: "F\(i)") === flights[i]) }
        #expect(try context.fetchUnique(\Flight.ident, equals: "RENAMED") === flights[4])
        #expect(try context.fetchUnique(\Flight.ident, equals: "F4") == nil)
        let (fast, general) = try both(context, "F7")
        #expect(fast == general && fast == ["F7#0"])
    }

    /// Renaming an unsaved object again and again keeps one listing of it, under its last
    /// value; a deleted insert is found by no value.
    @Test func renamesReplaceTheirListing() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.autosaveEnabled = false
        let flight = Flight(ident: "A0"), gone = Flight(ident: "GONE")
        context.insert(flight)
        context.insert(gone)
        #expect(try context.fetchUnique(\Flight.ident, equals: "A0") === flight)
        for i in 1...1_000 { flight.ident = "A\(i)" }
        #expect(context.pendingUnique.values.reduce(0) { $0 + $1.count } == 2)
        #expect(try context.fetchUnique(\Flight.ident, equals: "A1000") === flight)
        #expect(try context.fetchUnique(\Flight.ident, equals: "A999") == nil)
        context.delete(gone)
        #expect(try context.fetchUnique(\Flight.ident, equals: "GONE") == nil)
        #expect(try both(context, "GONE").fast == [])
        // Another object may take the value the deleted one had.
        let again = Flight(ident: "GONE")
        context.insert(again)
        #expect(try context.fetchUnique(\Flight.ident, equals: "GONE") === again)
        #expect(try both(context, "GONE").fast == ["GONE#0"])
    }

    /// A lookup by key is counted, offset and limited as the general path does it, before and
    /// after a save and with unsaved changes; a type the container does not store (nor any type
    /// related to its types) is an error in each case.
    @Test func countsPagesAndUnknownTypesAgreeWithTheGeneralPath() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.autosaveEnabled = false
        for i in 0..<5 { context.insert(Flight(ident: "F\(i)")) }
        func check(_ label: String) throws {
            for ident in ["F1", "F4", "NONE"] {
                let key = #Predicate<Flight> { $0.ident == ident }, general = #Predicate<Flight> { $0.ident == ident || $0.ident == ident }
                #expect(try context.fetchCount(FetchDescriptor(predicate: key)) == context.fetchCount(FetchDescriptor(predicate: general)),
                        "\(label) \(ident)")
                for (offset, limit) in [(nil, nil), (1, nil), (nil, 0), (0, 1)] as [(Int?, Int?)] {
                    var fast = FetchDescriptor(predicate: key), slow = FetchDescriptor(predicate: general)
                    (fast.fetchOffset, fast.fetchLimit, slow.fetchOffset, slow.fetchLimit) = (offset, limit, offset, limit)
                    #expect(try context.fetch(fast).map(\.ident) == context.fetch(slow).map(\.ident), "\(label) \(ident) \(offset ?? -1) \(limit ?? -1)")
                    #expect(try context.fetchCount(fast) == context.fetch(slow).count)
                }
            }
            #expect(throws: ModelContextError.typeNotInSchema("Crew")) {
                try context.fetch(FetchDescriptor<Crew>(predicate: #Predicate { $0.name == "X" }))
            }
            #expect(throws: ModelContextError.typeNotInSchema("Crew")) {
                try context.fetchCount(FetchDescriptor<Crew>(predicate: #Predicate { $0.name == "X" }))
            }
        }
        try check("unsaved inserts")
        try context.save()
        try check("saved")
        try #require(try context.fetchUnique(\Flight.ident, equals: "F4")).ident = "F1"
        try check("a change that makes two objects share a value")
    }

    @Test func insertsChangesDeletesAndUndoAgreeWithEvaluation() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true, isUndoEnabled: true))
        let context = ModelContext(container)
        context.autosaveEnabled = false
        for i in 0..<20 {
            let flight = Flight(ident: "F\(i)")
            flight.routeDistance = i
            context.insert(flight)
        }
        try context.save()
        let stored = try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.routeDistance)]))

        // An unsaved insert is found; so is a committed flight given a new ident, and not by its old one.
        context.insert(Flight(ident: "NEW"))
        stored[3].ident = "RENAMED"
        context.delete(stored[4])
        for ident in ["NEW", "RENAMED", "F3", "F4", "F5", "MISSING"] {
            let (fast, general) = try both(context, ident)
            #expect(fast == general, "\(ident)")
        }
        #expect(try both(context, "RENAMED").fast == ["RENAMED#3"])
        #expect(try both(context, "F3").fast == [])
        #expect(try both(context, "F4").fast == [])

        // A rename moved on again, and back to its stored value.
        stored[3].ident = "AGAIN"
        #expect(try both(context, "RENAMED").fast == [])
        stored[3].ident = "F3"
        #expect(try both(context, "F3").fast == ["F3#3"])

        // Undo takes a rename back: the lookup follows.
        context.processPendingChanges()
        stored[6].ident = "UNDONE"
        context.processPendingChanges()
        #expect(try both(context, "UNDONE").fast == ["UNDONE#6"])
        context.undoManager?.undo()
        let afterUndo = try both(context, "UNDONE")
        #expect(afterUndo.fast == afterUndo.general)
        #expect(try both(context, "F6") == both(context, "F6"))

        // Two unsaved objects with one value: both are found, as evaluation finds them.
        context.insert(Flight(ident: "TWIN"))
        let twin = Flight(ident: "TWIN")
        twin.routeDistance = 99
        context.insert(twin)
        let twins = try both(context, "TWIN")
        #expect(twins.fast == twins.general && twins.fast.count == 2)

        try context.save()
        #expect(try both(context, "NEW").fast == ["NEW#0"])
    }

    @Test func randomPendingChangesAgreeWithEvaluation() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.autosaveEnabled = false
        var random = SystemRandomNumberGenerator()
        var live: [Flight] = []
        var renames = 0
        var insertsMade = 0
        // Renames take fresh idents (a committed flight renamed onto another's ident would fail
        // the save as a uniqueness violation); inserts mostly take fresh ones and sometimes reuse
        // one (an upsert at save, and two unsaved objects with one value until then).
        func anyIdent() -> String {
            switch Int.random(in: 0..<3, using: &random) {
            case 0 where renames > 0: return "R\(Int.random(in: 0..<renames, using: &random))"
            case 1 where insertsMade > 0: return "I\(Int.random(in: 0..<insertsMade, using: &random))"
            default: return "K\(Int.random(in: 0..<60, using: &random))"
            }
        }
        for round in 0..<6 {
            for step in 0..<150 {
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<4:
                    let reuse = Int.random(in: 0..<10, using: &random) == 0
                    let flight = Flight(ident: reuse ? "K\(Int.random(in: 0..<60, using: &random))" : "I\(insertsMade)")
                    insertsMade += 1
                    flight.routeDistance = round * 1_000 + step
                    context.insert(flight)
                    live.append(flight)
                case 4..<7 where !live.isEmpty:
                    live.randomElement(using: &random)!.ident = "R\(renames)"
                    renames += 1
                case 7 where !live.isEmpty:
                    let victim = live.remove(at: Int.random(in: 0..<live.count, using: &random))
                    context.delete(victim)
                default:
                    break
                }
                let probe = anyIdent()
                let (fast, general) = try both(context, probe)
                #expect(fast == general, "round \(round) step \(step) \(probe)")
            }
            // Saving merges duplicates (upsert); what is left must agree as well.
            try context.save()
            live = try context.fetch(FetchDescriptor<Flight>())
            for probe in (0..<60).map({ "K\($0)" }) + (0..<renames).map({ "R\($0)" }) + (0..<insertsMade).map({ "I\($0)" }) {
                let (fast, general) = try both(context, probe)
                #expect(fast == general)
            }
        }
    }
}
