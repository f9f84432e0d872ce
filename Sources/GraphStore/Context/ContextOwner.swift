import CSwiftRuntime
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a context may be used: the main thread (mainContext), a model executor (a ModelActor's
/// context), or the thread that created it. Every context operation checks it, so a context or
/// model used from elsewhere gets `ModelContextError.wrongThread` instead of a data race.
enum ContextOwner: Equatable {
    case mainThread
    case thread(pthread_t)
    case executor(ObjectIdentifier)

    static func == (a: ContextOwner, b: ContextOwner) -> Bool {
        switch (a, b) {
        case (.mainThread, .mainThread): return true
        case let (.thread(x), .thread(y)): return pthread_equal(x, y) != 0
        case let (.executor(x), .executor(y)): return x == y
        default: return false
        }
    }

    /// The owner that code running right here would have.
    static var current: ContextOwner {
        if let executor = RunningModelExecutor.current { return .executor(executor) }
        if isOnMainQueue { return .mainThread }
        return .thread(pthread_self())
    }

    /// The main actor runs on the main queue, which is not always drained by the main thread
    /// (test runners on Linux drain it elsewhere), so the queue is marked and checked too.
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isOnMainQueue: Bool {
        isMainThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    /// Whether this is the main thread, remembered per thread: on Linux `Thread.isMainThread`
    /// makes system calls, and it is asked on every property access of a main-thread context.
    private static var isMainThread: Bool {
        let known = graphstore_thread_is_main()
        if known != 0 { return known == 2 }
        let isMain = Thread.isMainThread
        graphstore_set_thread_is_main(isMain ? 2 : 1)
        return isMain
    }

    var isCurrent: Bool {
        switch self {
        case .mainThread: return Self.isOnMainQueue && RunningModelExecutor.current == nil
        case let .thread(thread): return pthread_equal(thread, pthread_self()) != 0 && RunningModelExecutor.current == nil
        case let .executor(id): return RunningModelExecutor.current == id
        }
    }

    var description: String {
        switch self {
        case .mainThread: return "the main thread"
        case .thread: return "the thread that created it"
        case .executor: return "its model actor"
        }
    }
}

/// Which model executor is running a job on this thread (a thread-local).
enum RunningModelExecutor {
    static var current: ObjectIdentifier? {
        guard let raw = graphstore_running_executor() else { return nil }
        return ObjectIdentifier(Unmanaged<AnyObject>.fromOpaque(raw).takeUnretainedValue())
    }

    static func run<R>(as executor: AnyObject, _ body: () -> R) -> R {
        let previous = graphstore_running_executor()
        graphstore_set_running_executor(Unmanaged.passUnretained(executor).toOpaque())
        defer { graphstore_set_running_executor(previous) }
        return body()
    }
}

extension ModelContext {
    /// Throws (and remembers) `wrongThread` unless called where this context belongs.
    func checkOwner(_ operation: String) throws {
        guard !owner.isCurrent else { return }
        let error = ModelContextError.wrongThread("\(operation) called off \(owner.description)")
        lastMisuse = error
        throw error
    }

    /// For operations that cannot throw: refuses them off-owner, remembering why.
    func isOwnerCurrent(_ operation: String) -> Bool {
        if owner.isCurrent { return true }
        lastMisuse = ModelContextError.wrongThread("\(operation) called off \(owner.description); ignored")
        return false
    }
}
