import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Contexts follow Swift concurrency: a context belongs to the task (or actor) that holds it,
/// which may resume on any thread after an `await`. Every write made that way is stored.
@Suite struct ContextAcrossAwaitsTests {
    /// Eight tasks, each with its own context made in a nonisolated async function, inserting and
    /// updating their own flights across 90 awaits each (yields and sleeps, so the tasks resume on
    /// whichever thread is free): after reopening the store, every flight has every write.
    @Test func eightTasksAcrossManyAwaitsKeepEveryWrite() async throws {
        let store = TemporaryStore()
        let threads = ThreadLog()  // (how often they moved depends on what else runs: see the next test)
        do {
            let container = try store.container(Flight.self)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask { try await importAndUpdate(container, worker: worker, flights: 30, threads: threads) }
                }
                try await group.waitForAll()
            }
            container.close()
        }
        try expectImported(workers: 0..<8, flights: 30, in: store)
    }

    /// The same import on a task executor that runs each of the task's turns on the other of two
    /// threads: every await moves the context to another thread, and every write is stored.
    @Test func everyAwaitOnAnotherThreadKeepsEveryWrite() async throws {
        let store = TemporaryStore()
        let threads = ThreadLog()
        let executor = AlternatingThreadsExecutor()
        defer { executor.stop() }
        do {
            let container = try store.container(Flight.self)
            try await withTaskExecutorPreference(executor) {
                try await importAndUpdate(container, worker: 0, flights: 30, threads: threads)
            }
            container.close()
        }
        #expect(threads.hops == 1 && threads.threads(of: 0) == 2)
        try expectImported(workers: 0..<1, flights: 30, in: store)
    }

    /// `Task.detached` and `async let`, each with a context of its own.
    @Test func detachedTasksAndAsyncLetKeepEveryWrite() async throws {
        let store = TemporaryStore()
        let threads = ThreadLog()
        do {
            let container = try store.container(Flight.self)
            let detached = Task.detached { try await importAndUpdate(container, worker: 0, flights: 12, threads: threads) }
            async let first: Void = importAndUpdate(container, worker: 1, flights: 12, threads: threads)
            async let second: Void = importAndUpdate(container, worker: 2, flights: 12, threads: threads)
            try await detached.value
            try await first
            try await second
            container.close()
        }
        try expectImported(workers: 0..<3, flights: 12, in: store)
    }

    /// A context with unsaved work handed on with `sending`: to a function, then to a child task
    /// of a group, then to a detached task. Its work is all there after the last one saves.
    @Test func aContextHandedOnWithSendingKeepsEveryWrite() async throws {
        let store = TemporaryStore()
        do {
            let container = try store.container(Flight.self)
            let context = ModelContext(container)
            for i in 0..<10 { context.insert(Flight(ident: "S-\(i)")) }
            try await continueImport(context, from: 10)
            container.close()
        }
        let reopened = ModelContext(try store.container(Flight.self))
        let flights = try reopened.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.routeDistance)]))
        #expect(flights.map(\.ident) == (0..<30).map { "S-\($0)" })
        #expect(flights.map(\.routeDistance) == Array(0..<30))
    }

    /// A task cancelled in the middle of a batch: the batches it saved are there whole, the one
    /// it was inserting is not there at all.
    @Test func aCancelledTaskLeavesOnlyWholeSaves() async throws {
        let store = TemporaryStore()
        do {
            let container = try store.container(Flight.self)
            let (progress, reached) = AsyncStream<Int>.makeStream()
            let task = Task {
                let context = ModelContext(container)
                for batch in 0..<10 {
                    for i in 0..<10 {
                        context.insert(Flight(ident: "C\(batch)-\(i)"))
                        await Task.yield()
                        if batch == 2 && i == 5 {
                            reached.yield(batch)
                            try await Task.sleep(for: .seconds(600))  // ended by the cancel
                        }
                        try Task.checkCancellation()
                    }
                    try context.save()
                }
            }
            for await batch in progress where batch == 2 { break }
            task.cancel()
            let outcome = await task.result
            #expect(throws: CancellationError.self) { try outcome.get() }
            container.close()
        }
        let reopened = ModelContext(try store.container(Flight.self))
        let idents = try reopened.fetch(FetchDescriptor<Flight>()).map(\.ident)
        #expect(Set(idents) == Set((0..<2).flatMap { batch in (0..<10).map { "C\(batch)-\($0)" } }))
    }

    /// A context and its objects used on one thread, then on another (one at a time, as a task
    /// moves between threads): nothing is refused, nothing is dropped.
    @Test func aContextUsedOnAnotherThreadAfterwardsKeepsEveryWrite() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        try context.save()
        flight.origin = Airport(icao: "KSFO")
        let moved = UnsafeTransfer((context, flight))
        let done = DispatchSemaphore(value: 0)
        let failure = Locked<(any Error)?>(nil)
        Thread {
            let (context, flight) = moved.value
            do {
                context.insert(Flight(ident: "OFF1"))
                flight.routeDistance = 42
                _ = flight.origin?.icao
                try context.save()
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }.start()
        done.wait()
        #expect(failure.value == nil)
        #expect(context.lastMisuse == nil)
        let other = ModelContext(container)
        #expect(try other.fetchUnique(\Flight.ident, equals: "UAL1")?.routeDistance == 42)
        #expect(try other.fetchUnique(\Flight.ident, equals: "UAL1")?.origin?.icao == "KSFO")
        #expect(try other.fetchUnique(\Flight.ident, equals: "OFF1") != nil)
    }

    /// Off the main actor there is no main-queue turn to end undo's automatic group: a save or
    /// `processPendingChanges()` ends it.
    @Test func undoGroupsEndAtSaveAndProcessPendingChangesOffTheMainActor() async throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let undo = UndoManager()
        context.undoManager = undo
        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        flight.routeDistance = 1
        try context.save()
        await Task.yield()
        flight.routeDistance = 2
        flight.status = .enroute
        context.processPendingChanges()
        await Task.yield()
        flight.routeDistance = 3
        #expect(undo.undoCount == 2 && undo.canUndo)
        undo.undo()
        #expect(flight.routeDistance == 2 && flight.status == .enroute)
        undo.undo()
        #expect(flight.routeDistance == 1 && flight.status == .scheduled)
        undo.undo()  // the insert, saved since: undone as a delete
        #expect(flight.isDeleted && context.deletedModelsArray.count == 1)
    }
}

/// Two threads inside one context at the same moment (only possible by defeating the compiler)
/// are reported, never absorbed: throwing operations throw, the rest stop the program.
@Suite struct ConcurrentUseTests {
    @Test func throwingOperationsThrowWhileAnotherThreadIsInside() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Flight(ident: "UAL1"))
        try context.save()
        try whileAnotherThreadIsInside(context) {
            let refused = { (operation: String) in ModelContextError.concurrentUse(operation: operation, otherOperation: "transaction") }
            #expect(throws: refused("fetch")) { try context.fetch(FetchDescriptor<Flight>()) }
            #expect(throws: refused("fetchCount")) { try context.fetchCount(FetchDescriptor<Flight>()) }
            #expect(throws: refused("fetchUnique")) { try context.fetchUnique(\Flight.ident, equals: "UAL1") }
            #expect(throws: refused("delete(model:where:)")) { try context.delete(model: Flight.self) }
            #expect(throws: refused("enumerate")) { try context.enumerate(FetchDescriptor<Flight>()) { _ in } }
            #expect(throws: refused("save")) { try context.save() }
            #expect(context.lastMisuse == refused("save"))
        }
        // The other thread's transaction is whole; nothing of the refused calls happened.
        #expect(try context.fetch(FetchDescriptor<Flight>()).map(\.ident).sorted() == ["HELD", "UAL1"])
    }

    @Test func insertStopsTheProgramWhileAnotherThreadIsInside() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            let context = ModelContext(container)
            try whileAnotherThreadIsInside(context) { context.insert(Flight(ident: "RACE")) }
        }
        #expect(standardError(of: result).contains("insert was called on a ModelContext (or one of its models) while another thread was inside transaction"))
    }

    @Test func propertyAssignmentStopsTheProgramWhileAnotherThreadIsInside() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            let context = ModelContext(container)
            let flight = Flight(ident: "UAL1")
            context.insert(flight)
            try whileAnotherThreadIsInside(context) { flight.routeDistance = 7 }
        }
        #expect(standardError(of: result).contains("setting an attribute was called on a ModelContext (or one of its models) while another thread was inside transaction"))
    }

    @Test func propertyReadStopsTheProgramWhileAnotherThreadIsInside() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
            let context = ModelContext(container)
            let flight = Flight(ident: "UAL1")
            context.insert(flight)
            try whileAnotherThreadIsInside(context) { _ = flight.routeDistance }
        }
        #expect(standardError(of: result).contains("reading an attribute was called on a ModelContext (or one of its models) while another thread was inside transaction"))
    }

    /// Two threads hammering one context: every clash is reported (thrown here), and what was
    /// saved is exactly what the saves that succeeded carried.
    @Test func racingSavesAreReportedAndNothingIsHalfDone() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let shared = UnsafeTransfer(context)
        let outcomes = Locked<(saved: Int, refused: Int)>((0, 0))
        let group = DispatchGroup()
        for thread in 0..<2 {
            group.enter()
            Thread {
                for round in 0..<300 {
                    do {
                        // A transaction: the inserts and the save are one use of the context.
                        try shared.value.transaction { shared.value.insert(Flight(ident: "T\(thread)-\(round)")) }
                        outcomes.withLock { $0.saved += 1 }
                    } catch let error as ModelContextError {
                        if case .concurrentUse = error { outcomes.withLock { $0.refused += 1 } }
                    } catch {}
                }
                group.leave()
            }.start()
        }
        group.wait()
        let (saved, refused) = outcomes.value
        #expect(saved + refused == 600)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Flight>()) == saved)
    }
}

// MARK: Helpers

/// What an exit test's child process wrote to standard error.
func standardError(of result: ExitTest.Result?) -> String {
    String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}

/// What a SwiftData importer writes: a context of its own in a nonisolated async function,
/// used across awaits. Inserts `flights` flights, saves, updates them, saves, then looks each up
/// again by ident and updates it, and saves.
func importAndUpdate(_ container: ModelContainer, worker: Int, flights: Int, threads: ThreadLog) async throws {
    let context = ModelContext(container)
    var mine: [Flight] = []
    for i in 0..<flights {
        let flight = Flight(ident: "W\(worker)-\(i)")
        flight.routeDistance = i
        context.insert(flight)
        mine.append(flight)
        threads.note(worker)
        if i % 3 == 0 { try await Task.sleep(for: .microseconds(100)) } else { await Task.yield() }
    }
    try context.save()
    for (i, flight) in mine.enumerated() {
        flight.routeDistance = 10_000 * worker + i
        await Task.yield()
        flight.status = .enroute
        threads.note(worker)
    }
    try context.save()
    for i in 0..<flights {
        try await Task.sleep(for: .microseconds(50))
        let flight = try #require(try context.fetchUnique(\Flight.ident, equals: "W\(worker)-\(i)"))
        flight.routeDistance += 1
        threads.note(worker)
    }
    try context.save()
}

/// Every flight `importAndUpdate` wrote, with its last values, after reopening the store.
func expectImported(workers: Range<Int>, flights: Int, in store: TemporaryStore) throws {
    let context = ModelContext(try store.container(Flight.self))
    let stored = try context.fetch(FetchDescriptor<Flight>())
    #expect(stored.count == workers.count * flights)
    var expected: [String: Int] = [:]
    for worker in workers { for i in 0..<flights { expected["W\(worker)-\(i)"] = 10_000 * worker + i + 1 } }
    #expect(Dictionary(uniqueKeysWithValues: stored.map { ($0.ident, $0.routeDistance) }) == expected)
    #expect(stored.allSatisfy { $0.status == .enroute })
}

/// Goes on with an import in other tasks: the context is handed on with `sending` each time,
/// to a child task (`async let`) and from there to a detached task, which saves.
func continueImport(_ context: sending ModelContext, from start: Int) async throws {
    for i in start..<start + 10 {
        context.insert(Flight(ident: "S-\(i)"))
        await Task.yield()
    }
    async let child: Void = finishImport(context, from: start + 10)
    try await child
}

func finishImport(_ context: sending ModelContext, from start: Int) async throws {
    for i in start..<start + 10 {
        context.insert(Flight(ident: "S-\(i)"))
        try await Task.sleep(for: .microseconds(100))
    }
    try await Task.detached { [context] in
        for flight in context.insertedModelsArray.compactMap({ $0 as? Flight }) {
            flight.routeDistance = Int(flight.ident.dropFirst(2))!
            await Task.yield()
        }
        try context.save()
    }.value
}

/// Runs `body` on this thread while another thread is inside `context` (in a transaction that
/// inserts a flight "HELD" and waits for `body` to finish).
func whileAnotherThreadIsInside(_ context: ModelContext, _ body: () throws -> Void) throws {
    let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
    let shared = UnsafeTransfer(context)
    Thread {
        try? shared.value.transaction {
            shared.value.insert(Flight(ident: "HELD"))
            inside.signal()
            release.wait()
        }
        done.signal()
    }.start()
    inside.wait()
    defer {
        release.signal()
        done.wait()
    }
    try body()
}

/// The threads each task ran on, to show that the tasks really moved between threads. (Locked,
/// not Synchronization's Mutex: ThreadSanitizer sees a pthread mutex, not Mutex's futex.)
final class ThreadLog: Sendable {
    private let seen = Locked<[Int: Set<UInt>]>([:])

    func note(_ task: Int) {
        #if canImport(Darwin)
        let thread = UInt(bitPattern: pthread_self())
        #else
        let thread = UInt(pthread_self())
        #endif
        seen.withLock { _ = $0[task, default: []].insert(thread) }
    }

    /// How many tasks ran on more than one thread.
    var hops: Int { seen.withLock { $0.values.filter { $0.count > 1 }.count } }

    /// How many threads `task` ran on.
    func threads(of task: Int) -> Int { seen.withLock { $0[task]?.count ?? 0 } }
}

/// A task executor with two threads that runs each job it is given on the other thread than the
/// last: a task preferring it changes threads at every await.
final class AlternatingThreadsExecutor: TaskExecutor, @unchecked Sendable {
    private final class Lane: @unchecked Sendable {
        let lock = NSLock()
        var jobs: [UnownedJob?] = []  // nil: stop
        let ready = DispatchSemaphore(value: 0)

        func push(_ job: UnownedJob?) {
            lock.withLock { jobs.append(job) }
            ready.signal()
        }

        func run(on executor: UnownedTaskExecutor) {
            while true {
                ready.wait()
                guard let job = lock.withLock({ jobs.removeFirst() }) else { return }
                job.runSynchronously(on: executor)
            }
        }
    }

    private let lanes = [Lane(), Lane()]
    private let turns = Locked(0)

    init() {
        for lane in lanes {
            let executor = UnsafeTransfer(self)
            Thread { lane.run(on: executor.value.asUnownedTaskExecutor()) }.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let turn = turns.withLock { turns in
            turns += 1
            return turns
        }
        lanes[turn % 2].push(UnownedJob(job))
    }

    func stop() { for lane in lanes { lane.push(nil) } }
}
