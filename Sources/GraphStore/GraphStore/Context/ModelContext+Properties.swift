@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Reading committed values, writing changes, and keeping inverse relationships in step in
/// memory, at once, on both sides.
extension ModelContext {
    // MARK: Committed state

    func committedToOne(of backing: ModelBacking, relationship index: Int) -> (any PersistentModel)? {
        // Positions and rows only: copying the entity's and the relationship's descriptions
        // out retained and released their arrays and names on every to-one read.
        let entity = backing.entityIndex, row = backing.row
        guard entity >= 0 else { return nil }
        let targetEntity = schema.entities[entity].relationships[index].targetIndex
        let target = committedGraph { $0.liveToOne(entity: entity, row: row, relationship: index) }
        return target.map { backing.readsCommittedState ? committedCopy(entity: targetEntity, row: $0)
            : object(entity: targetEntity, row: $0, keepingIfMade: true) }
    }

    /// The committed members, in order, those deleted in this context included.
    func committedToMany(of backing: ModelBacking, relationship index: Int) -> [any PersistentModel] {
        guard let entity = backing.entity else { return [] }
        let target = entity.relationships[index].targetIndex
        let rows = committedToManyRows(of: backing, relationship: index)
        if backing.readsCommittedState { return rows.map { committedCopy(entity: target, row: $0) } }
        return rows.map { object(entity: target, row: $0) }
    }

    /// The rows of the committed members, in order.
    func committedToManyRows(of backing: ModelBacking, relationship index: Int) -> [UInt64] {
        let entity = backing.entityIndex, row = backing.row
        guard entity >= 0 else { return [] }
        return graph.read { view in
            view.isLive(entity: entity, row: row) ? view.toMany(entity: entity, row: row, relationship: index).map(UInt64.init) : []
        }
    }

    /// `members` as the whole new list of `backing`'s to-many `index`: for a saved object,
    /// replacing the committed members it has now.
    func wholeList(_ members: [any PersistentModel], of backing: ModelBacking, relationship index: Int) -> PendingToMany {
        PendingToMany(base: members, replacing: backing.state == .persistent && backing.row > 0
                      ? Set(committedToManyRows(of: backing, relationship: index)) : nil)
    }

    /// A private, unregistered object that shows only the committed row (and whose relationships
    /// lead to more of the same): what a fetch with `includePendingChanges: false` evaluates.
    func committedCopy(entity: Int, row: UInt64) -> any PersistentModel {
        let model = makeStoredObject(entity: entity, row: row)
        model.persistentBacking.readsCommittedState = true
        return model
    }

    func inverseRelationship(of relationship: Schema.Relationship) -> Schema.Relationship? {
        schema.inverse(of: relationship)
    }

    // MARK: Writing

    /// `backing` is `model`'s.
    func setAttribute(_ value: Value, at index: Int, of model: any PersistentModel, backing: ModelBacking) {
        let entered = link.enterOrStop("setting an attribute")
        defer { link.leave(entered) }
        if backing.entityIndex >= 0, !schema.entities[backing.entityIndex].ephemeralAttributes.isEmpty,
           schema.entities[backing.entityIndex].attributes[index].isEphemeral {
            // Never saved: nothing to mark changed, nothing to undo.
            backing.ephemeralValues[index] = value
            return
        }
        registerAttributeUndo(model, index)
        notePendingUniqueValue(backing, attribute: index, value)
        backing.setChangedValue(value, ofAttribute: index)
        markChanged(backing)
    }

    func setToOne(_ target: (any PersistentModel)?, at index: Int, of model: any PersistentModel) {
        let entered = link.enterOrStop("setting a relationship")
        defer { link.leave(entered) }
        let backing = model.persistentBacking
        guard let entity = backing.entity else { return }
        let relationship = entity.relationships[index]
        let old = backing.toOne(at: index)
        if let target, target.persistentBacking.context == nil { insertAny(target) }
        if old === target { return }
        registerToOneUndo(model, relationship)
        let inverse = inverseRelationship(of: relationship)
        // The old list first, while the to-one still names it: its undo records the list as it
        // was, with `model` in its place (a whole new list leaves out members whose to-one names another).
        if let inverse, let old { removeFromSide(old, inverse, member: model) }
        backing.setPendingRelationship(.toOne(target), at: index)
        markChanged(backing)
        if let inverse, let target { addToSide(target, inverse, member: model) }
    }

    func setToMany(_ targets: [any PersistentModel], at index: Int, of model: any PersistentModel) {
        let entered = link.enterOrStop("setting a relationship")
        defer { link.leave(entered) }
        let backing = model.persistentBacking
        guard let entity = backing.entity else { return }
        let relationship = entity.relationships[index]
        // Unique members, in the order given.
        var seen = Set<ObjectIdentifier>()
        let list = targets.filter { seen.insert(ObjectIdentifier($0)).inserted }
        let old = backing.state == .inserted && backing.pendingRelationship(at: index) == nil ? [] : backing.toMany(at: index)
        for target in list where target.persistentBacking.context == nil { insertAny(target) }
        let (change, gone, added) = listChange(of: backing, at: index, from: old, to: list, listing: seen)
        if recordsUndo {
            // A member whose to-one names another list showed here only because another context
            // saved it here; its undo must not put it back against the to-one.
            let inverse = inverseToOne(of: relationship)
            registerToManyUndo(model, relationship, added: added,
                               gone: inverse.map { inverse in gone.filter { $0.persistentBacking.toOne(at: inverse) === model } } ?? gone)
        }
        backing.setPendingRelationship(.toMany(change), at: index)
        markChanged(backing)
        guard let inverse = inverseRelationship(of: relationship) else { return }
        for member in gone { removeFromSide(member, inverse, member: model) }
        for member in added { addToSide(member, inverse, member: model) }
    }

    /// The unsaved change that makes `list` (unique members; `listed` holds them) the list of
    /// `backing`'s to-many `index`, whose list is `old` now: members taken out and added where
    /// that gives the order, else a whole new list. With the members it takes out and adds.
    func listChange(of backing: ModelBacking, at index: Int, from old: [any PersistentModel], to list: [any PersistentModel],
                    listing listed: Set<ObjectIdentifier>) -> (change: PendingToMany, gone: [any PersistentModel], added: [any PersistentModel]) {
        let oldIDs = Set(old.map(ObjectIdentifier.init))
        let gone = old.filter { !listed.contains(ObjectIdentifier($0)) }, added = list.filter { !oldIDs.contains(ObjectIdentifier($0)) }
        let change = memberChange(of: backing, at: index, from: old, to: list, keeping: listed, gone: gone, added: added)
            ?? wholeList(list, of: backing, relationship: index)
        return (change, gone, added)
    }

    /// A new list of a saved object's to-many as members taken out of and added to the committed
    /// list, when that gives the list in its order: the members kept in their order, the new
    /// ones after them (`list.append`, `removeAll(where:)`, a filter). Kept that way, the list
    /// takes in what other contexts save to it meanwhile, and a save writes only this
    /// context's links and unlinks; a whole new list (`base`) would write over theirs. Nil when
    /// the list is a new order (or the object has no committed list, or already a whole new one).
    /// `listed` holds `list`'s members, `gone` those of `old` it lacks, `added` its members `old` lacks.
    private func memberChange(of backing: ModelBacking, at index: Int, from old: [any PersistentModel], to list: [any PersistentModel],
                              keeping listed: Set<ObjectIdentifier>, gone: [any PersistentModel], added: [any PersistentModel]) -> PendingToMany? {
        guard backing.state == .persistent, backing.row > 0 else { return nil }
        var current: PendingToMany?
        if case let .toMany(pending)? = backing.pendingRelationship(at: index) { current = pending }
        if current?.base != nil { return nil }
        // The kept members in their order, then the new ones in theirs.
        guard list.prefix(list.count - added.count).elementsEqual(old.lazy.filter { listed.contains(ObjectIdentifier($0)) }, by: ===) else { return nil }
        let change = PendingToMany()
        change.added = current?.added ?? []
        change.removed = current?.removed ?? []
        change.putBack = current?.putBack ?? []
        for member in gone { change.remove(member) }
        for member in added {
            // A committed member taken out earlier and put back at the end: still taken out of
            // its committed place, and added after the rest (`add` would put it back where it was).
            if member.persistentBacking.state == .persistent, change.removed.contains(member.persistentBacking.row) {
                change.added.append(member)
            } else {
                change.add(member)
            }
        }
        return change
    }

    /// The unsaved changes of a to-many relationship, created empty on first use.
    private func pendingToMany(_ backing: ModelBacking, _ relationship: Schema.Relationship) -> PendingToMany {
        if case let .toMany(pending)? = backing.pendingRelationship(at: relationship.index) { return pending }
        // An object that was never saved has no committed list: its list starts empty.
        let pending = PendingToMany(base: backing.state == .inserted ? [] : nil)
        backing.setPendingRelationship(.toMany(pending), at: relationship.index)
        return pending
    }

    /// Makes `side` of `owner` include `member` (the inverse half of a change made on `member`).
    func addToSide(_ owner: any PersistentModel, _ side: Schema.Relationship, member: any PersistentModel) {
        let backing = owner.persistentBacking
        if side.isToMany {
            registerToManyUndo(owner, side, added: [member], gone: [])
            pendingToMany(backing, side).add(member)
        } else {
            let previous = backing.toOne(at: side.index)
            if previous === member { return }
            registerToOneUndo(owner, side)
            // The previous target loses `owner` first, while the to-one still names it (as in `setToOne`).
            if let previous, let back = inverseRelationship(of: side) { removeFromSide(previous, back, member: owner) }
            backing.setPendingRelationship(.toOne(member), at: side.index)
        }
        markChanged(backing)
        owner.persistentPropertyDidChange(named: side.name)
    }

    /// Makes `side` of `owner` no longer include `member`.
    func removeFromSide(_ owner: any PersistentModel, _ side: Schema.Relationship, member: any PersistentModel) {
        let backing = owner.persistentBacking
        if side.isToMany {
            registerToManyUndo(owner, side, added: [], gone: [member])
            pendingToMany(backing, side).remove(member)
        } else {
            guard backing.toOne(at: side.index) === member else { return }
            registerToOneUndo(owner, side)
            backing.setPendingRelationship(.toOne(nil), at: side.index)
        }
        markChanged(backing)
        owner.persistentPropertyDidChange(named: side.name)
    }
}
