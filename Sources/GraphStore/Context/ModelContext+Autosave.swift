import Foundation

/// Autosave: a context with `autosaveEnabled` saves on its own, `autosaveInterval` after the
/// first unsaved change, on its own thread or actor. It never saves in the middle of
/// `transaction {}`. A failed autosave is never swallowed: it goes to `autosaveErrorHandler`,
/// stays in `lastAutosaveError`, and is posted as `ModelContext.autosaveFailed`.
extension ModelContext {
    public static let autosaveFailed = Notification.Name("GraphStore.ModelContext.autosaveFailed")

    /// Arms the autosave timer after a change, if autosave is on and none is armed.
    func scheduleAutosave() {
        guard autosaveEnabled, autosaveTimer == nil else { return }
        let box = WeakContextReference(self)
        autosaveTimer = autosaveClock.schedule(after: autosaveInterval) { box.autosaveDue() }
    }

    func cancelAutosave() {
        autosaveTimer?.cancel()
        autosaveTimer = nil
    }

    /// Runs on the context's owner: saves if there is anything to save.
    func runAutosave() {
        autosaveTimer = nil
        guard autosaveEnabled, hasChanges else { return }
        if transactionDepth > 0 {
            scheduleAutosave()  // try again after the transaction
            return
        }
        do {
            try save()
        } catch {
            lastAutosaveError = error
            autosaveErrorHandler?(error)
            NotificationCenter.default.post(name: Self.autosaveFailed, object: self, userInfo: ["error": error])
        }
    }

    /// Runs `body` where this context belongs: right here when that is here; on the main queue
    /// for mainContext; on the model executor for an actor's context. A context owned by a plain
    /// thread cannot be reached from elsewhere, so its due autosave runs at its next operation.
    func performOnOwner(_ body: @escaping () -> Void) {
        if owner.isCurrent {
            body()
            return
        }
        let transfer = UncheckedTransfer(body)
        switch owner {
        case .mainThread:
            DispatchQueue.main.async { transfer.value() }
        case .executor:
            if let executor = modelExecutor {
                executor.perform { transfer.value() }
            }
        case .thread:
            autosavePending = true
        }
    }

    /// A due autosave left for a thread-owned context's own thread.
    func runPendingAutosave() {
        guard autosavePending else { return }
        autosavePending = false
        runAutosave()
    }
}

/// Lets the clock's callback find the context without keeping it alive.
final class WeakContextReference: @unchecked Sendable {
    // Only dereferenced to hop to the context's owner, where it is used.
    private weak var context: ModelContext?
    init(_ context: ModelContext) { self.context = context }

    func autosaveDue() {
        guard let context else { return }
        context.performOnOwner { [weak context] in context?.runAutosave() }
    }
}

struct UncheckedTransfer<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
