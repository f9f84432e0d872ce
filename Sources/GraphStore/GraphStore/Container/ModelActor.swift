import CSwiftRuntime
import Foundation
import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Runs a ModelActor's jobs, and owns its context. SwiftData's protocol of the same name.
public protocol ModelExecutor: AnyObject, Sendable {
    /// The context the executor's jobs use.
    var modelContext: ModelContext { get }
}

/// A model executor that runs one job at a time, as SwiftData's does.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// A serial executor with its own queue: every job of the actor runs there, one at a time, and
/// its context knows this executor as its home (where its autosave and its live queries'
/// updates run).
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // `modelContext` is only touched by jobs running on `queue`, one at a time.
    /// The context this executor owns: it is used only by this executor's jobs.
    public let modelContext: ModelContext
    private let queue: DispatchQueue

    /// An executor for `modelContext`, which it takes over: from now on the context's home is this
    /// executor.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        self.queue = DispatchQueue(label: "GraphStore.DefaultSerialModelExecutor")
        modelContext.adopt(by: self)
    }

    /// Runs `job` after the jobs enqueued before it, one at a time.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { [self] in
            RunningModelExecutor.run(as: self) { job.runSynchronously(on: executor) }
        }
    }

    /// Runs `body` as one of this executor's jobs (autosave uses it to reach the context).
    func perform(_ body: @escaping @Sendable () -> Void) {
        queue.async { [self] in RunningModelExecutor.run(as: self, body) }
    }

    /// This executor, as the actor runtime holds it.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// An actor that does model work off the main actor, as in SwiftData. Without the @ModelActor
/// macro, write what it expands to:
///
///     actor Importer: ModelActor {
///         nonisolated let modelContainer: ModelContainer
///         nonisolated let modelExecutor: any ModelExecutor
///         init(modelContainer: ModelContainer) {
///             self.modelContainer = modelContainer
///             self.modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
///         }
///     }
public protocol ModelActor: Actor {
    /// The container the actor's context belongs to.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor the actor runs on, which owns its context.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor runs on its model executor, so its context is only ever used there.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        (modelExecutor as! any SerialModelExecutor).asUnownedSerialExecutor()
    }

    /// The actor's context: its executor's.
    public var modelContext: ModelContext { modelExecutor.modelContext }

    /// The actor's object for an identifier, if it is stored (SwiftData's `self[id, as:]`).
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        modelContext.existingModel(for: id) as? T
    }
}

/// Which model executor is running a job on this thread (a thread-local): `ModelContainer.close()`
/// autosaves the context of the executor it is called on.
enum RunningModelExecutor {
    static var current: ObjectIdentifier? {
        guard let raw = graphstore_running_executor() else { return nil }
        return ObjectIdentifier(Unretained<AnyObject>(address: raw).object)
    }

    static func run<R>(as executor: AnyObject, _ body: () -> R) -> R {
        let previous = graphstore_running_executor()
        graphstore_set_running_executor(Unretained(executor).address)
        defer { graphstore_set_running_executor(previous) }
        return body()
    }
}
