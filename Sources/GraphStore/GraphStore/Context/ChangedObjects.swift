/// The committed objects a context changed and has not saved (its inserts and deletes are kept
/// apart). A changed object holds a slot in the context's `UnsavedValues` from its first change,
/// and the table lists every slot's object: so the list is those objects, marked by a flag in
/// each (`ModelBacking.isListedChanged`), and only the count is kept here. As a dictionary by
/// object, a million changed objects took 48 MB beside their slots, and every object's first
/// change hashed it into that dictionary.
struct ChangedObjects {
    private(set) var count = 0
    var isEmpty: Bool { count == 0 }

    /// Lists `backing`, which holds its slot in `unsaved`.
    mutating func insert(_ backing: ModelBacking) {
        guard !backing.isListedChanged else { return }
        precondition(backing.unsavedSlot >= 0, "a changed object holds a slot")
        backing.isListedChanged = true
        count += 1
    }

    /// Takes `backing` off the list, if it is on it.
    mutating func remove(_ backing: ModelBacking) {
        guard backing.isListedChanged else { return }
        backing.isListedChanged = false
        count -= 1
    }

    /// Empties the list: every object that took a slot in `unsaved` is taken off it (call before
    /// the table is emptied).
    mutating func removeAll(in unsaved: UnsavedValues) {
        guard count > 0 else { return }
        unsaved.forEachOwner { $0.isListedChanged = false }
        count = 0
    }

    /// The objects on the list, of `entity` only if given, entity by entity in the order of
    /// their first changes.
    func backings(in unsaved: UnsavedValues, entity: Int? = nil) -> [ModelBacking] {
        var listed: [ModelBacking] = []
        guard count > 0 else { return listed }
        listed.reserveCapacity(entity == nil ? count : 0)
        for e in entity.map({ $0..<$0 + 1 }) ?? 0..<unsaved.entityCount {
            unsaved.forEachHolder(of: e) { if $0.isListedChanged { listed.append($0) } }
        }
        return listed
    }
}
