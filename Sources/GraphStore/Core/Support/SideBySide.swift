import Dispatch

/// One result per job, each written by its own job only. The slots are raw memory allocated
/// before the jobs start, so jobs writing different slots share no Swift variable (an array
/// property would be one exclusively-accessed variable).
package final class ResultSlots<T> {
    private let slots: UnsafeMutableBufferPointer<T?>
    package init(count: Int) {
        slots = .allocate(capacity: max(count, 1))
        slots.initialize(repeating: nil)
    }
    deinit {
        slots.deinitialize()
        slots.deallocate()
    }
    package subscript(index: Int) -> T? {
        get { slots[index] }
        set { slots[index] = newValue }
    }
}

/// Runs independent jobs on the available cores and returns when all are done. Each job must
/// write only its own results (distinct objects, or its own slot of a `ResultSlots`). Call it
/// once with every job rather than nesting calls: nested calls run serially.
package func runSideBySide(_ jobs: [() -> Void]) {
    if jobs.count <= 1 {
        jobs.first?()
        return
    }
    nonisolated(unsafe) let work = jobs
    DispatchQueue.concurrentPerform(iterations: work.count) { work[$0]() }
}
