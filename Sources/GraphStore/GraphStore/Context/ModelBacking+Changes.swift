@_spi(GraphStoreInternals) import GraphStoreGraph

/// An object's unsaved attribute values and relationship changes: in its context's
/// `UnsavedValues` once it is an insert or a changed committed object of a context (its
/// `unsavedSlot`), in the object until then (an unmanaged object's values). Everything that
/// reads or writes unsaved changes comes through here.
extension ModelBacking {
    // MARK: Attributes

    /// The unsaved value assigned to attribute `index`; nil when none was.
    @inline(__always) final func changedValue(ofAttribute index: Int) -> Value? {
        guard unsavedSlot >= 0, let unretainedLink else { return ownAttributeChanges[index] }
        let entity = entityIndex, slot = Int(unsavedSlot)
        return unretainedLink.with { $0.unsavedValues.value(entity: entity, slot: slot, attribute: index) }
    }

    /// Assigns (nil: forgets) the unsaved value of attribute `index`.
    @inline(__always) final func setChangedValue(_ value: Value?, ofAttribute index: Int) {
        if unsavedSlot < 0, value != nil { takeSlotIfManaged() }
        guard unsavedSlot >= 0, let unretainedLink else { return ownAttributeChanges[index] = value }
        let entity = entityIndex, slot = Int(unsavedSlot)
        unretainedLink.with { $0.unsavedValues.set(value, entity: entity, slot: slot, attribute: index) }
    }

    /// Whether any attribute has an unsaved value.
    final var hasChangedAttributes: Bool {
        guard unsavedSlot >= 0, let unretainedLink else { return !ownAttributeChanges.isEmpty }
        let entity = entityIndex, slot = Int(unsavedSlot)
        return unretainedLink.with { $0.unsavedValues.hasValues(entity: entity, slot: slot) }
    }

    /// The attributes with an unsaved value, ascending.
    final var changedAttributes: [Int] {
        guard unsavedSlot >= 0, let entity else { return ownAttributeChanges.keys }
        return entity.attributes.indices.filter { changedValue(ofAttribute: $0) != nil }
    }

    /// Calls `body` with each attribute that has an unsaved value and the value, ascending.
    final func forEachChangedValue(_ body: (Int, Value) -> Void) {
        guard unsavedSlot >= 0, let entity else { return ownAttributeChanges.forEachValue(body) }
        for index in entity.attributes.indices { if let value = changedValue(ofAttribute: index) { body(index, value) } }
    }

    // MARK: Relationships

    /// The unsaved change of relationship `index`; nil when it has none.
    @inline(__always) final func pendingRelationship(at index: Int) -> PendingRelationship? {
        guard unsavedSlot >= 0, let unretainedLink else { return ownRelationshipChanges[index] }
        let entity = entityIndex, slot = Int(unsavedSlot)
        return unretainedLink.with { $0.unsavedValues.relationship(entity: entity, slot: slot, relationship: index) }
    }

    /// Records (nil: forgets) the unsaved change of relationship `index`.
    @inline(__always) final func setPendingRelationship(_ change: PendingRelationship?, at index: Int) {
        if unsavedSlot < 0, change != nil { takeSlotIfManaged() }
        guard unsavedSlot >= 0, let unretainedLink else { return ownRelationshipChanges[index] = change }
        let entity = entityIndex, slot = Int(unsavedSlot)
        unretainedLink.with { $0.unsavedValues.setRelationship(change, entity: entity, slot: slot, relationship: index) }
    }

    /// The relationships with an unsaved change and their changes, ascending by index.
    final var pendingRelationships: [(key: Int, value: PendingRelationship)] {
        guard unsavedSlot >= 0, let entity else { return ownRelationshipChanges.entries }
        return entity.relationships.indices.compactMap { index in pendingRelationship(at: index).map { (index, $0) } }
    }

    /// Whether any relationship has an unsaved change.
    final var hasPendingRelationships: Bool {
        guard unsavedSlot >= 0, let entity else { return !ownRelationshipChanges.isEmpty }
        return entity.relationships.indices.contains { pendingRelationship(at: $0) != nil }
    }

    // MARK: Where they are kept

    /// Forgets every unsaved change (the object's slot, if it had one, is left to the table,
    /// which a save or rollback empties).
    final func clearChanges() {
        unsavedSlot = -1
        ownAttributeChanges = [:]
        ownRelationshipChanges = [:]
    }

    /// Takes out the relationship changes kept in the object (an object being inserted makes
    /// them again, so that their inverses follow).
    final func takeOwnRelationshipChanges() -> [(key: Int, value: PendingRelationship)] {
        defer { ownRelationshipChanges = [:] }
        return ownRelationshipChanges.entries
    }

    /// A committed object of a context takes a slot at its first change (an insert has one
    /// from its insert, or, brought back by undo, from its first change). An object with a
    /// slot is answered first: its first change asks twice (the value, then the change list).
    final func takeSlotIfManaged() {
        guard unsavedSlot < 0, state == .persistent || state == .inserted, !readsCommittedState, let link, let entity else { return }
        moveChanges(into: link, entity: entity)
    }

    /// Moves the changes kept in the object into the context's table, as a new slot of the
    /// object's entity: the object is an unsaved insert or change of `entity` through `link`.
    final func moveChanges(into link: ContextLink, entity: Schema.Entity) {
        guard unsavedSlot < 0 else { return }
        let slot = link.unsavedValues.newSlot(for: self, entity: entity.index, attributes: entity.attributes.count,
                                              relationships: entity.relationships.count)
        ownAttributeChanges.forEachValue { link.unsavedValues.set($1, entity: entity.index, slot: slot, attribute: $0) }
        ownRelationshipChanges.forEachValue { link.unsavedValues.setRelationship($1, entity: entity.index, slot: slot, relationship: $0) }
        ownAttributeChanges = [:]
        ownRelationshipChanges = [:]
        unsavedSlot = Int32(slot)
    }

    /// Takes the object's changes out of its context's table into the object (an insert that
    /// leaves the context, rolled back or deleted before it was saved, keeps them).
    final func takeBackChanges() {
        guard unsavedSlot >= 0 else { return }
        var values = PropertyChanges<Value>()
        forEachChangedValue { values[$0] = $1 }
        var relationships = PropertyChanges<PendingRelationship>()
        for (index, change) in pendingRelationships { relationships[index] = change }
        unsavedSlot = -1
        ownAttributeChanges = values
        ownRelationshipChanges = relationships
    }
}
