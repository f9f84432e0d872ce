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
        let link = self.link
        autosaveTimer = autosaveClock.schedule(after: autosaveInterval) { ModelContext.autosaveDue(link) }
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

    /// Runs `body` where this context belongs (see ContextLink.performOnOwner).
    func performOnOwner(_ body: @escaping () -> Void) {
        link.performOnOwner(body)
    }

    /// A due autosave left for a thread-owned context's own thread.
    func runPendingAutosave() {
        guard autosavePending else { return }
        autosavePending = false
        runAutosave()
    }
}

extension ModelContext {
    /// The clock's callback: finds the context through its link (without keeping it alive) and
    /// hops to its owner, where it is used.
    fileprivate static func autosaveDue(_ link: ContextLink) {
        link.performOnOwner { link.context?.runAutosave() }
    }
}

struct UncheckedTransfer<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
