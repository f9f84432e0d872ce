import Foundation

/// Undo and redo for a context (Foundation on Linux has no UndoManager). It works like
/// UndoManager: changes register closures that reverse them, closures are grouped, `undo()`
/// runs a group's closures in reverse order — and the changes those make register the redo.
///
/// Grouping: explicit `beginUndoGrouping()`/`endUndoGrouping()` (nestable), or one automatic
/// group per event-loop turn of the main queue (when `groupsByEvent`, for mainContext and for
/// actions registered on the main queue) and per `ModelContext.processPendingChanges()` and save.
public final class UndoStack {
    struct Group {
        var actions: [() -> Void] = []
        var name = ""
    }

    private var undoGroups: [Group] = []
    private var redoGroups: [Group] = []
    private var openGroup: Group?
    private var explicitDepth = 0
    private var collecting: Group?
    private var disabledCount = 0
    private var closeScheduled = false

    /// How many groups are kept; 0 keeps all.
    public var levelsOfUndo = 0 {
        didSet { trim() }
    }
    /// Close the automatic group at the end of each main-queue turn.
    public var groupsByEvent = true
    public private(set) var isUndoing = false
    public private(set) var isRedoing = false

    public init() {}

    /// How many closed groups can be undone and redone.
    public var undoCount: Int { undoGroups.count }
    public var redoCount: Int { redoGroups.count }

    public var canUndo: Bool { !undoGroups.isEmpty || !(openGroup?.actions.isEmpty ?? true) }
    public var canRedo: Bool { !redoGroups.isEmpty }
    public var isUndoRegistrationEnabled: Bool { disabledCount == 0 }
    /// The number of explicit groups open.
    public var groupingLevel: Int { explicitDepth }

    public var undoActionName: String { openGroup.map { _ in openGroup!.name } ?? undoGroups.last?.name ?? "" }
    public var redoActionName: String { redoGroups.last?.name ?? "" }

    /// Names the group being recorded (or, if none is open, the last one).
    public func setActionName(_ name: String) {
        if openGroup != nil { openGroup!.name = name } else if !undoGroups.isEmpty { undoGroups[undoGroups.count - 1].name = name }
    }

    public func disableUndoRegistration() { disabledCount += 1 }
    public func enableUndoRegistration() { disabledCount = max(0, disabledCount - 1) }

    public func beginUndoGrouping() {
        if explicitDepth == 0 {
            closeAutomaticGroup()
            openGroup = Group()
        }
        explicitDepth += 1
    }

    public func endUndoGrouping() {
        guard explicitDepth > 0 else { return }
        explicitDepth -= 1
        if explicitDepth == 0 { commitOpenGroup() }
    }

    /// Registers a closure that reverses a change just made.
    public func registerUndo(_ action: @escaping () -> Void) {
        register(action, closingWithMainQueueTurn: MainQueue.isCurrent)
    }

    /// Registers `action`; its automatic group closes at the end of the main queue's turn only
    /// when `closingWithMainQueueTurn` (a context's changes: only mainContext's, which lives on the
    /// main actor; any other context's group closes at its `processPendingChanges()` or save).
    func register(_ action: @escaping () -> Void, closingWithMainQueueTurn: Bool) {
        guard isUndoRegistrationEnabled else { return }
        if collecting != nil {
            collecting!.actions.append(action)
            return
        }
        if openGroup == nil {
            openGroup = Group()
            if closingWithMainQueueTurn { scheduleAutomaticClose() }
        }
        openGroup!.actions.append(action)
        redoGroups.removeAll()
    }

    /// Ends the automatic group, if one is open (an event-loop turn or processPendingChanges).
    public func closeAutomaticGroup() {
        guard explicitDepth == 0 else { return }
        commitOpenGroup()
    }

    public func undo() {
        closeAutomaticGroup()
        guard explicitDepth == 0, let group = undoGroups.popLast() else { return }
        isUndoing = true
        let redo = replay(group)
        isUndoing = false
        if !redo.actions.isEmpty { redoGroups.append(redo) }
    }

    public func redo() {
        closeAutomaticGroup()
        guard explicitDepth == 0, let group = redoGroups.popLast() else { return }
        isRedoing = true
        let undo = replay(group)
        isRedoing = false
        if !undo.actions.isEmpty {
            undoGroups.append(undo)
            trim()
        }
    }

    public func removeAllActions() {
        undoGroups = []
        redoGroups = []
        openGroup = nil
        explicitDepth = 0
    }

    /// Runs a group's actions in reverse, collecting what they register as the opposite group.
    private func replay(_ group: Group) -> Group {
        collecting = Group(name: group.name)
        for action in group.actions.reversed() { action() }
        defer { collecting = nil }
        return collecting!
    }

    private func commitOpenGroup() {
        guard let group = openGroup else { return }
        openGroup = nil
        guard !group.actions.isEmpty else { return }
        undoGroups.append(group)
        trim()
    }

    private func trim() {
        if levelsOfUndo > 0, undoGroups.count > levelsOfUndo { undoGroups.removeFirst(undoGroups.count - levelsOfUndo) }
    }

    private func scheduleAutomaticClose() {
        guard groupsByEvent, !closeScheduled else { return }
        closeScheduled = true
        let box = UncheckedTransfer(self)
        DispatchQueue.main.async {
            box.value.closeScheduled = false
            box.value.closeAutomaticGroup()
        }
    }
}
