import Foundation

#if !canImport(Darwin)
/// Foundation's UndoManager, for platforms whose Foundation has none (Linux): changes register
/// closures that reverse them, closures are grouped, `undo()` runs a group's closures in
/// reverse order — and the changes those make register the redo. On Apple platforms
/// `UndoManager` is Foundation's own, and GraphStore uses that.
///
/// Grouping: explicit `beginUndoGrouping()`/`endUndoGrouping()` (nestable: inner groups fold
/// into the outer one), otherwise one automatic group that ends at the end of the main queue's
/// turn (`groupsByEvent`, for registrations made on the main queue) and at each
/// `ModelContext.processPendingChanges()` and save of a context using this manager.
open class UndoManager {
    struct Action {
        let target: AnyObject?
        let run: () -> Void
    }

    struct Group {
        var actions: [Action] = []
        var name = ""
        var isDiscardable = false
    }

    private var undoGroups: [Group] = []
    private var redoGroups: [Group] = []
    private var openGroup: Group?
    private var explicitDepth = 0
    private var collecting: Group?
    private var disabledCount = 0
    private var closeScheduled = false

    /// How many groups are kept; 0 keeps all.
    open var levelsOfUndo = 0 {
        didSet { trim() }
    }
    /// Whether registrations made on the main queue are grouped per turn of it.
    open var groupsByEvent = true
    /// True while `undo()` runs.
    open private(set) var isUndoing = false
    /// True while `redo()` runs.
    open private(set) var isRedoing = false

    /// An undo manager with nothing to undo or redo, grouping by event.
    public init() {}

    /// How many closed groups can be undone and redone.
    open var undoCount: Int { undoGroups.count }
    /// How many groups `redo()` can redo.
    open var redoCount: Int { redoGroups.count }

    /// Whether there is a group (or an open group with actions) to undo.
    open var canUndo: Bool { !undoGroups.isEmpty || !(openGroup?.actions.isEmpty ?? true) }
    /// Whether there is a group to redo.
    open var canRedo: Bool { !redoGroups.isEmpty }
    /// Whether actions are recorded (`disableUndoRegistration()` calls not yet balanced turn it off).
    open var isUndoRegistrationEnabled: Bool { disabledCount == 0 }
    /// The number of groups open: explicit ones, plus the automatic one while it is open.
    open var groupingLevel: Int { explicitDepth > 0 ? explicitDepth : (openGroup == nil ? 0 : 1) }

    /// The name of the group `undo()` would undo.
    open var undoActionName: String { openGroup?.name ?? undoGroups.last?.name ?? "" }
    /// The name of the group `redo()` would redo.
    open var redoActionName: String { redoGroups.last?.name ?? "" }
    /// "Undo" followed by the undo action's name, for a menu item.
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }
    /// "Redo" followed by the redo action's name, for a menu item.
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }
    /// "Undo", or "Undo " and `actionName`.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }
    /// "Redo", or "Redo " and `actionName`.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    /// Names the group being recorded (or, if none is open, the last one).
    open func setActionName(_ actionName: String) {
        if openGroup != nil { openGroup!.name = actionName } else if !undoGroups.isEmpty { undoGroups[undoGroups.count - 1].name = actionName }
    }

    /// Marks the group being recorded as one that changes nothing the user would miss.
    open func setActionIsDiscardable(_ discardable: Bool) {
        if openGroup != nil { openGroup!.isDiscardable = discardable } else if !undoGroups.isEmpty { undoGroups[undoGroups.count - 1].isDiscardable = discardable }
    }
    /// Whether the group to undo was marked discardable.
    open var undoActionIsDiscardable: Bool { openGroup?.isDiscardable ?? undoGroups.last?.isDiscardable ?? false }
    /// Whether the group to redo was marked discardable.
    open var redoActionIsDiscardable: Bool { redoGroups.last?.isDiscardable ?? false }

    /// Stops recording actions until a matching `enableUndoRegistration()`.
    open func disableUndoRegistration() { disabledCount += 1 }
    /// Balances one `disableUndoRegistration()`.
    open func enableUndoRegistration() { disabledCount = max(0, disabledCount - 1) }

    /// Opens a group: the actions registered until the matching `endUndoGrouping()` undo as one.
    open func beginUndoGrouping() {
        if explicitDepth == 0 {
            closeAutomaticGroup()
            openGroup = Group()
            post(.NSUndoManagerDidOpenUndoGroup)
        }
        explicitDepth += 1
    }

    /// Closes the innermost open group.
    open func endUndoGrouping() {
        guard explicitDepth > 0 else { return }
        if explicitDepth == 1 { post(.NSUndoManagerWillCloseUndoGroup) }
        explicitDepth -= 1
        if explicitDepth == 0 { commitOpenGroup() }
    }

    /// Registers a closure that reverses a change just made; `handler` gets `target` back.
    /// The target is retained until the action runs or is removed.
    open func registerUndo<TargetType: AnyObject>(withTarget target: TargetType, handler: @escaping (TargetType) -> Void) {
        register(Action(target: target) { handler(target) }, closingWithMainQueueTurn: MainQueue.isCurrent)
    }

    /// Registers `action` for a context; its automatic group closes at the end of the main
    /// queue's turn only when `closingWithMainQueueTurn` (only mainContext lives on the main
    /// actor; any other context's group closes at its `processPendingChanges()` or save).
    func register(_ action: @escaping () -> Void, closingWithMainQueueTurn: Bool) {
        register(Action(target: nil, run: action), closingWithMainQueueTurn: closingWithMainQueueTurn)
    }

    private func register(_ action: Action, closingWithMainQueueTurn: Bool) {
        guard isUndoRegistrationEnabled else { return }
        if collecting != nil {
            collecting!.actions.append(action)
            return
        }
        if openGroup == nil {
            openGroup = Group()
            post(.NSUndoManagerDidOpenUndoGroup)
            if closingWithMainQueueTurn { scheduleAutomaticClose() }
        }
        openGroup!.actions.append(action)
        redoGroups.removeAll()
    }

    /// Ends the automatic group, if one is open (an event-loop turn, processPendingChanges or save).
    func closeAutomaticGroup() {
        guard explicitDepth == 0, openGroup != nil else { return }
        post(.NSUndoManagerWillCloseUndoGroup)
        commitOpenGroup()
    }

    /// Undoes the last group (closing an open one first), making its actions redoable.
    open func undo() {
        closeAutomaticGroup()
        guard explicitDepth == 0, let group = undoGroups.popLast() else { return }
        post(.NSUndoManagerWillUndoChange)
        isUndoing = true
        let redo = replay(group)
        isUndoing = false
        if !redo.actions.isEmpty { redoGroups.append(redo) }
        post(.NSUndoManagerDidUndoChange)
    }

    /// Undoes the last group; inside an explicit group that has actions, its actions instead.
    open func undoNestedGroup() {
        if explicitDepth > 0, let open = openGroup, !open.actions.isEmpty {
            openGroup!.actions = []
            isUndoing = true
            let redo = replay(open)
            isUndoing = false
            if !redo.actions.isEmpty { redoGroups.append(redo) }
            return
        }
        undo()
    }

    /// Redoes the last undone group.
    open func redo() {
        closeAutomaticGroup()
        guard explicitDepth == 0, let group = redoGroups.popLast() else { return }
        post(.NSUndoManagerWillRedoChange)
        isRedoing = true
        let undo = replay(group)
        isRedoing = false
        if !undo.actions.isEmpty {
            undoGroups.append(undo)
            trim()
        }
        post(.NSUndoManagerDidRedoChange)
    }

    /// Forgets every group, to undo and to redo.
    open func removeAllActions() {
        undoGroups = []
        redoGroups = []
        openGroup = nil
        explicitDepth = 0
    }

    /// Removes every action registered with `target`, leaving empty groups out.
    open func removeAllActions(withTarget target: Any) {
        let target = target as AnyObject
        func keep(_ groups: [Group]) -> [Group] {
            groups.compactMap { group in
                var group = group
                group.actions.removeAll { $0.target === target }
                return group.actions.isEmpty ? nil : group
            }
        }
        undoGroups = keep(undoGroups)
        redoGroups = keep(redoGroups)
        openGroup?.actions.removeAll { $0.target === target }
    }

    /// Runs a group's actions in reverse, collecting what they register as the opposite group.
    private func replay(_ group: Group) -> Group {
        collecting = Group(name: group.name, isDiscardable: group.isDiscardable)
        for action in group.actions.reversed() { action.run() }
        defer { collecting = nil }
        return collecting!
    }

    private func commitOpenGroup() {
        guard let group = openGroup else { return }
        openGroup = nil
        post(.NSUndoManagerDidCloseUndoGroup)
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

    private func post(_ name: Notification.Name) {
        NotificationCenter.default.post(name: name, object: self)
    }
}

/// Foundation's UndoManager notification names.
extension Notification.Name {
    /// Foundation's checkpoint notification; declared so that code naming it compiles, never posted.
    public static let NSUndoManagerCheckpoint = Notification.Name("NSUndoManagerCheckpointNotification")
    /// Posted before `undo()` undoes a group.
    public static let NSUndoManagerWillUndoChange = Notification.Name("NSUndoManagerWillUndoChangeNotification")
    /// Posted before `redo()` redoes a group.
    public static let NSUndoManagerWillRedoChange = Notification.Name("NSUndoManagerWillRedoChangeNotification")
    /// Posted after `undo()` undid a group.
    public static let NSUndoManagerDidUndoChange = Notification.Name("NSUndoManagerDidUndoChangeNotification")
    /// Posted after `redo()` redid a group.
    public static let NSUndoManagerDidRedoChange = Notification.Name("NSUndoManagerDidRedoChangeNotification")
    /// Posted when a group opens.
    public static let NSUndoManagerDidOpenUndoGroup = Notification.Name("NSUndoManagerDidOpenUndoGroupNotification")
    /// Posted before a group closes.
    public static let NSUndoManagerWillCloseUndoGroup = Notification.Name("NSUndoManagerWillCloseUndoGroupNotification")
    /// Posted after a group closed.
    public static let NSUndoManagerDidCloseUndoGroup = Notification.Name("NSUndoManagerDidCloseUndoGroupNotification")
}
#else
/// On Apple platforms the context records into Foundation's UndoManager, which groups by run-loop
/// turn as it always does; a context off the main thread should group explicitly.
extension UndoManager {
    private final class ContextTarget {}
    private static let contextTarget = ContextTarget()

    func register(_ action: @escaping () -> Void, closingWithMainQueueTurn: Bool) {
        registerUndo(withTarget: Self.contextTarget) { _ in action() }
    }

    /// Foundation's automatic group belongs to the run loop, which closes it.
    func closeAutomaticGroup() {}
}
#endif
