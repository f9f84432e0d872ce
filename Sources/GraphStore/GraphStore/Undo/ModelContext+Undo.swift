@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// What the context registers with its undo manager: before each change to an object's unsaved
/// state (an attribute, one side of a relationship — including the inverse side kept in step —
/// or whether the object is in the context at all), a closure that puts the old state back.
/// Undo runs those closures, which change the state the same way and so register the redo.
/// Restoring writes values as unsaved changes, so undo after a save makes the context dirty
/// again and the next save stores the undone state.
extension ModelContext {
    var recordsUndo: Bool { undoManager?.isUndoRegistrationEnabled ?? false }

    /// Registers an undo action. Only mainContext's group closes with the main queue's turn: any
    /// other context may be on any thread, and its group closes at `processPendingChanges()` or save.
    private func registerUndo(_ action: @escaping () -> Void) {
        undoManager?.register(action, closingWithMainQueueTurn: link.home == .mainActor)
    }

    func registerAttributeUndo(_ model: any PersistentModel, _ index: Int) {
        guard recordsUndo, let entity = model.persistentBacking.entity else { return }
        let old = model.persistentBacking.attributeValue(at: index) ?? entity.attributes[index].defaultValue
        registerUndo { [link] in link.context?.restoreAttribute(model, index, old) }
    }

    func registerToOneUndo(_ model: any PersistentModel, _ relationship: Schema.Relationship) {
        guard recordsUndo else { return }
        let old = model.persistentBacking.toOne(at: relationship.index)
        registerUndo { [link] in link.context?.restoreToOne(model, relationship, old) }
    }

    /// Before a change to a to-many list that adds `added` and takes out `gone`. The undo takes
    /// back that change and no other: not the whole list as it was, which would also take back
    /// what other contexts saved to the list before the undo.
    func registerToManyUndo(_ model: any PersistentModel, _ relationship: Schema.Relationship,
                            added: [any PersistentModel], gone: [any PersistentModel]) {
        guard recordsUndo else { return }
        // Members being deleted in this same change still count: undo brings them back too.
        let old = model.persistentBacking.toMany(at: relationship.index, includingDeleted: true, followingToOnes: false)
        registerUndo { [link] in link.context?.restoreToMany(model, relationship, order: old, takingOut: added, puttingBack: gone) }
    }

    /// Before an object enters or leaves the context: how to put it back, with every value it
    /// has (a deleted row may be gone from the store by the time undo runs).
    func registerLifecycleUndo(_ model: any PersistentModel, wasLive: Bool) {
        guard recordsUndo else { return }
        let backing = model.persistentBacking
        var attributes: [Int: Value] = [:]
        var toOne: [Int: (any PersistentModel)?] = [:]
        var toMany: [Int: [any PersistentModel]] = [:]
        if wasLive, let entity = backing.entity {
            for a in entity.attributes where !a.isEphemeral { attributes[a.index] = backing.attributeValue(at: a.index) ?? a.defaultValue }
            for r in entity.relationships {
                if r.isToMany { toMany[r.index] = backing.toMany(at: r.index) } else { toOne[r.index] = backing.toOne(at: r.index) }
            }
        }
        registerUndo { [link] in
            link.context?.restoreLifecycle(model, live: wasLive, attributes: attributes, toOne: toOne, toMany: toMany)
        }
    }

    // MARK: Restoring (no inverse upkeep: the other side restores itself from its own registration)

    private func restoreAttribute(_ model: any PersistentModel, _ index: Int, _ value: Value) {
        let entered = link.enterOrStop("undo")
        defer { link.leave(entered) }
        guard let entity = model.persistentBacking.entity else { return }
        registerAttributeUndo(model, index)
        notePendingUniqueValue(model.persistentBacking, attribute: index, value)
        model.persistentBacking.setChangedValue(value, ofAttribute: index)
        markChanged(model.persistentBacking)
        model.persistentPropertyDidChange(named: entity.attributes[index].name)
    }

    private func restoreToOne(_ model: any PersistentModel, _ relationship: Schema.Relationship, _ target: (any PersistentModel)?) {
        let entered = link.enterOrStop("undo")
        defer { link.leave(entered) }
        registerToOneUndo(model, relationship)
        model.persistentBacking.setPendingRelationship(.toOne(target), at: relationship.index)
        markChanged(model.persistentBacking)
        model.persistentPropertyDidChange(named: relationship.name)
    }

    /// The list now, without `added` and with `gone` back, in the order the list had before the
    /// change (`order`); members other contexts saved to it since come after, and those they
    /// took out (or deleted) stay out.
    private func restoreToMany(_ model: any PersistentModel, _ relationship: Schema.Relationship, order old: [any PersistentModel],
                               takingOut added: [any PersistentModel], puttingBack gone: [any PersistentModel]) {
        let entered = link.enterOrStop("undo")
        defer { link.leave(entered) }
        let backing = model.persistentBacking
        let current = backing.toMany(at: relationship.index, includingDeleted: true, followingToOnes: false)
        var members = Set(current.map(ObjectIdentifier.init)).subtracting(added.map(ObjectIdentifier.init))
        for member in gone where isStillThere(member) { members.insert(ObjectIdentifier(member)) }
        // `old` may lack a member that goes back: the view it was read from already showed the
        // member's to-one pointing elsewhere. Such a member goes after the rest (a committed one
        // back to its committed place).
        var placed = Set(old.map(ObjectIdentifier.init))
        var list = old.filter { members.contains(ObjectIdentifier($0)) }
        for member in current + gone where members.contains(ObjectIdentifier(member)) && placed.insert(ObjectIdentifier(member)).inserted {
            list.append(member)
        }
        let (change, takenOut, putBack) = listChange(of: backing, at: relationship.index, from: current, to: list, listing: members)
        registerToManyUndo(model, relationship, added: putBack, gone: takenOut)
        backing.setPendingRelationship(.toMany(change), at: relationship.index)
        markChanged(backing)
        model.persistentPropertyDidChange(named: relationship.name)
    }

    /// Whether `member` can go back into a list: not a saved object whose row another context
    /// has deleted since. (One this context deleted comes back with the same undo.)
    private func isStillThere(_ member: any PersistentModel) -> Bool {
        let backing = member.persistentBacking
        guard backing.state == .persistent, backing.row > 0, backing.entityIndex >= 0 else { return true }
        return graph.read { $0.isLive(entity: backing.entityIndex, row: backing.row) }
    }

    private func restoreLifecycle(_ model: any PersistentModel, live: Bool, attributes: [Int: Value],
                                  toOne: [Int: (any PersistentModel)?], toMany: [Int: [any PersistentModel]]) {
        let entered = link.enterOrStop("undo")
        defer { link.leave(entered) }
        let backing = model.persistentBacking
        guard let entity = backing.entity ?? schema.entity(for: type(of: model)) else { return }
        let isLive = backing.context === self && (backing.state == .inserted || backing.state == .persistent)
        guard live != isLive else { return }
        registerLifecycleUndo(model, wasLive: isLive)
        let id = ObjectIdentifier(model)
        if live {
            backing.context = self
            backing.entityIndex = entity.index
            deleted[id] = nil
            if graph.read({ $0.isLive(entity: entity.index, row: backing.row) }) {
                backing.state = .persistent
            } else {
                // Never saved, or deleted and saved since: it comes back as a new insert of its row.
                backing.state = .inserted
                if !inserted.contains(where: { $0 === model }) { inserted.append(model) }
                noteInserted(model)
            }
            register(model, entity: entity.index, row: backing.row)
            for (index, value) in attributes {
                notePendingUniqueValue(backing, attribute: index, value)
                backing.setChangedValue(value, ofAttribute: index)
            }
            for (index, target) in toOne { backing.setPendingRelationship(.toOne(target), at: index) }
            // A row still in the store kept its lists' changes through the delete (a delete
            // changes the lists of others, each undone by its own action); setting them again
            // would write over what other contexts saved to them since.
            if backing.state == .inserted {
                for (index, members) in toMany { backing.setPendingRelationship(.toMany(wholeList(members, of: backing, relationship: index)), at: index) }
            }
            markChanged(backing)
        } else if backing.state == .inserted {
            inserted.removeAll { $0 === model }
            unregister(entity: entity.index, row: backing.row)
            backing.takeBackChanges()
            backing.state = .unmanaged
            backing.context = nil
        } else {
            backing.state = .deleted
            deleted[id] = model
            changed.remove(backing)
        }
        scheduleAutosave()
        for a in entity.attributes { model.persistentPropertyDidChange(named: a.name) }
    }
}
