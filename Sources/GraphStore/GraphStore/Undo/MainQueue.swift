import CSwiftRuntime
import Foundation

/// Whether code runs on the main queue, which the main actor runs on. Undo asks it at every
/// registration, to close its automatic group at the end of the main queue's turn.
enum MainQueue {
    /// The main queue is not always drained by the main thread (test runners on Linux drain it
    /// elsewhere), so the queue is marked and checked too.
    private static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool {
        isMainThread || DispatchQueue.getSpecific(key: key) == true
    }

    /// Whether this is the main thread, remembered per thread: on Linux `Thread.isMainThread`
    /// makes system calls.
    private static var isMainThread: Bool {
        let known = graphstore_thread_is_main()
        if known != 0 { return known == 2 }
        let isMain = Thread.isMainThread
        graphstore_set_thread_is_main(isMain ? 2 : 1)
        return isMain
    }
}
