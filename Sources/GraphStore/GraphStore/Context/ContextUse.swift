import CSwiftRuntime
import Foundation
import Synchronization

/// One thread at a time inside a context.
///
/// A context and its objects are not Sendable: Swift keeps them in one isolation domain (the
/// main actor, an actor, or a task's region), and that domain may run on any thread — a task
/// resumes after an `await` wherever its executor puts it. So a context never asks *which*
/// thread uses it; it records which thread is inside it *now*. Every operation enters (one
/// compare-and-swap of `occupant` from 0 to the calling thread, or nothing when that thread is
/// already inside: operations nest) and leaves (a store of 0). Entering while another thread is
/// inside is concurrent use, possible only by defeating the compiler (`@unchecked Sendable`,
/// `nonisolated(unsafe)`): throwing operations throw `ModelContextError.concurrentUse` naming
/// both operations, and the others stop the program with the same message, as SwiftData does.
/// Nothing is ever half done or silently dropped.
///
/// Reading an attribute of an object in hand only checks: a load of `occupant` that finds no
/// other thread inside (it changes nothing of the context's state, so it takes nothing).
extension ContextLink {
    /// Enters for a throwing operation. Returns whether this call entered (and must `leave`),
    /// false when the calling thread was already inside.
    @inline(__always)
    func enter(_ operation: StaticString) throws -> Bool {
        let me = graphstore_thread_token()
        if occupant.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged {
            if operation.hasPointerRepresentation { occupation.store(UInt(bitPattern: operation.utf8Start), ordering: .relaxed) }
            return true
        }
        if occupant.load(ordering: .relaxed) == me { return false }
        throw concurrentUse(operation)
    }

    /// Enters for an operation that cannot throw: concurrent use stops the program.
    @inline(__always)
    func enterOrStop(_ operation: StaticString) -> Bool {
        do {
            return try enter(operation)
        } catch {
            stop(error)
        }
    }

    @inline(__always)
    func leave(_ entered: Bool) {
        if entered { occupant.store(0, ordering: .releasing) }
    }

    /// For reads that change nothing: stops the program if another thread is inside.
    @inline(__always)
    func checkNoOtherThreadInside(_ operation: StaticString) {
        let occupant = occupant.load(ordering: .relaxed)
        if occupant != 0, occupant != graphstore_thread_token() { stop(concurrentUse(operation)) }
    }

    /// The error for `operation` arriving while another thread is inside (recorded as the
    /// context's `lastMisuse` too, for a debugger or a log).
    private func concurrentUse(_ operation: StaticString) -> ModelContextError {
        let other = occupation.load(ordering: .relaxed)
        let otherName = other == 0 ? "an operation" : String(cString: UnsafePointer<CChar>(bitPattern: other)!)
        let error = ModelContextError.concurrentUse(operation: "\(operation)", otherOperation: otherName)
        lastMisuse = error
        return error
    }

    private func stop(_ error: any Error) -> Never {
        fatalError("GraphStore: \(error)")
    }
}
