import Foundation

/// Autosave: a context with `autosaveEnabled` saves on its own, `autosaveInterval` after the
/// first unsaved change, in its home (the main queue for mainContext, the model executor for an
/// actor's context); any other context has no home the timer could reach, so a due autosave runs
/// at the context's next operation (or `processPendingChanges()`). It never saves in the middle of
/// `transaction {}`. A failed autosave is never swallowed: it goes to `autosaveErrorHandler`,
/// stays in `lastAutosaveError`, and is posted as `ModelContext.autosaveFailed`.
extension ModelContext {
    /// Posted when an autosave fails; the notification's object is the context and
    /// `userInfo["error"]` the error. The changes stay unsaved.
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

    /// Runs in the context's domain: saves if there is anything to save.
    func runAutosave() {
        let entered = link.enterOrStop("autosave")
        defer { link.leave(entered) }
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

    /// A due autosave left for the context's next operation (a context with no home).
    func runPendingAutosave() {
        guard autosavePending else { return }
        autosavePending = false
        runAutosave()
    }
}

extension ModelContext {
    /// The clock's callback: finds the context through its link (without keeping it alive) in
    /// its home, or leaves the autosave for its next operation.
    fileprivate static func autosaveDue(_ link: ContextLink) {
        if !link.performAtHome({ link.context?.runAutosave() }) { link.autosavePending = true }
    }
}

struct UncheckedTransfer<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
