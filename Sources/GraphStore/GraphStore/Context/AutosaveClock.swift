import Foundation
import Synchronization

/// What drives autosave: a clock that calls back after an interval. Tests inject
/// `ManualAutosaveClock` and advance it by hand; nothing in the tests sleeps.
public protocol AutosaveClock: Sendable {
    /// Calls `action` once, after `interval`, on any thread. The timer cancels it.
    func schedule(after interval: Duration, _ action: @escaping @Sendable () -> Void) -> AutosaveTimer
}

/// An autosave scheduled on a clock, which can still be called off.
public protocol AutosaveTimer: Sendable {
    /// Calls the scheduled action off, if it has not run yet.
    func cancel()
}

/// Real time, through Dispatch.
public struct DispatchAutosaveClock: AutosaveClock {
    /// The clock of the system, through Dispatch.
    public init() {}

    /// Calls `action` on a Dispatch queue once `interval` has passed.
    public func schedule(after interval: Duration, _ action: @escaping @Sendable () -> Void) -> AutosaveTimer {
        let item = DispatchWorkItem(block: action)
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: item)
        return DispatchTimer(item: item)
    }

    struct DispatchTimer: AutosaveTimer, @unchecked Sendable {
        let item: DispatchWorkItem
        func cancel() { item.cancel() }
    }
}

/// A clock that moves only when told: `advance(by:)` runs, on the calling thread, every action
/// that has come due.
public final class ManualAutosaveClock: AutosaveClock, Sendable {
    private struct Pending {
        var id: Int
        var due: Duration
        var action: @Sendable () -> Void
    }

    private struct State {
        var now: Duration = .zero
        var nextID = 0
        var pending: [Pending] = []
    }

    private let state = Mutex(State())

    /// A clock at zero, with nothing scheduled.
    public init() {}

    /// How much time `advance(by:)` has moved the clock on.
    public var now: Duration { state.withLock { $0.now } }
    /// How many actions are scheduled and have not run.
    public var scheduledCount: Int { state.withLock { $0.pending.count } }

    /// Keeps `action` until `advance(by:)` moves the clock past `interval` from now.
    public func schedule(after interval: Duration, _ action: @escaping @Sendable () -> Void) -> AutosaveTimer {
        let id = state.withLock { state in
            state.nextID += 1
            state.pending.append(Pending(id: state.nextID, due: state.now + interval, action: action))
            return state.nextID
        }
        return ManualTimer(clock: self, id: id)
    }

    /// Moves the clock on by `interval` and runs, in order, every action that falls due.
    public func advance(by interval: Duration) {
        let due = state.withLock { state -> [Pending] in
            state.now += interval
            let ready = state.pending.filter { $0.due <= state.now }.sorted { $0.due < $1.due }
            state.pending.removeAll { $0.due <= state.now }
            return ready
        }
        for item in due { item.action() }
    }

    fileprivate func cancel(_ id: Int) {
        state.withLock { $0.pending.removeAll { $0.id == id } }
    }

    struct ManualTimer: AutosaveTimer {
        let clock: ManualAutosaveClock
        let id: Int
        func cancel() { clock.cancel(id) }
    }
}
