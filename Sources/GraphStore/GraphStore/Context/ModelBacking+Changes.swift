@_spi(GraphStoreInternals) import GraphStoreGraph

/// An object's unsaved attribute values and relationship changes: in the object for an
/// unmanaged or committed object, in its context's `InsertedValues` for an unsaved insert (its
/// `insertedSlot`). Everything that reads or writes unsaved changes comes through here.
extension ModelBacking {
    // MARK: Attributes

    /// The unsaved value assigned to attribute `index`; nil when none was.
    @inline(__always) final func changedValue(ofAttribute index: Int) -> Value? {
        guard insertedSlot >= 0, let unretainedLink else { return ownAttributeChanges[index] }
        let entity = entityIndex, slot = Int(insertedSlot)
        return unretainedLink.with { $0.insertedValues.value(entity: entity, slot: slot, attribute: index) }
    }

    /// Assigns (nil: forgets) the unsaved value of attribute `index`.
    @inline(__always) final func setChangedValue(_ value: Value?, ofAttribute index: Int) {
        guard insertedSlot >= 0, let unretainedLink else { return ownAttributeChanges[index] = value }
        let entity = entityIndex, slot = Int(insertedSlot)
        unretainedLink.with { $0.insertedValues.set(value, entity: entity, slot: slot, attribute: index) }
    }

    /// Whether any attribute has an unsaved value.
    final var hasChangedAttributes: Bool {
        guard insertedSlot >= 0, let unretainedLink else { return !ownAttributeChanges.isEmpty }
        let entity = entityIndex, slot = Int(insertedSlot)
        return unretainedLink.with { $0.insertedValues.hasValues(entity: entity, slot: slot) }
    }

    /// The attributes with an unsaved value, ascending.
    final var changedAttributes: [Int] {
        guard insertedSlot >= 0, let entity else { return ownAttributeChanges.keys }
        return entity.attributes.indices.filter { changedValue(ofAttribute: $0) != nil }
    }

    /// Calls `body` with each attribute that has an unsaved value and the value, ascending.
    final func forEachChangedValue(_ body: (Int, Value) -> Void) {
        guard insertedSlot >= 0, let entity else { return ownAttributeChanges.forEachValue(body) }
        for index in entity.attributes.indices { if let value = changedValue(ofAttribute: index) { body(index, value) } }
    }

    // MARK: Relationships

    /// The unsaved change of relationship `index`; nil when it has none.
    @inline(__always) final func pendingRelationship(at index: Int) -> PendingRelationship? {
        guard insertedSlot >= 0, let unretainedLink else { return ownRelationshipChanges[index] }
        let entity = entityIndex, slot = Int(insertedSlot)
        return unretainedLink.with { $0.insertedValues.relationship(entity: entity, slot: slot, relationship: index) }
    }

    /// Records (nil: forgets) the unsaved change of relationship `index`.
    @inline(__always) final func setPendingRelationship(_ change: PendingRelationship?, at index: Int) {
        guard insertedSlot >= 0, let unretainedLink else { return ownRelationshipChanges[index] = change }
        let entity = entityIndex, slot = Int(insertedSlot)
        unretainedLink.with { $0.insertedValues.setRelationship(change, entity: entity, slot: slot, relationship: index) }
    }

    /// The relationships with an unsaved change and their changes, ascending by index.
    final var pendingRelationships: [(key: Int, value: PendingRelationship)] {
        guard insertedSlot >= 0, let entity else { return ownRelationshipChanges.entries }
        return entity.relationships.indices.compactMap { index in pendingRelationship(at: index).map { (index, $0) } }
    }

    /// Whether any relationship has an unsaved change.
    final var hasPendingRelationships: Bool {
        guard insertedSlot >= 0 else { return !ownRelationshipChanges.isEmpty }
        return !pendingRelationships.isEmpty
    }

    // MARK: Where they are kept

    /// Forgets every unsaved change (the object's slot, if it had one, is left to the table,
    /// which a save or rollback empties).
    final func clearChanges() {
        insertedSlot = -1
        ownAttributeChanges = [:]
        ownRelationshipChanges = [:]
    }

    /// Takes out the relationship changes kept in the object (an object being inserted makes
    /// them again, so that their inverses follow).
    final func takeOwnRelationshipChanges() -> [(key: Int, value: PendingRelationship)] {
        defer { ownRelationshipChanges = [:] }
        return ownRelationshipChanges.entries
    }

    /// Moves the changes kept in the object into the context's table, as a new slot of the
    /// object's entity: the object is an unsaved insert of `entity` through `link`.
    final func moveChanges(into link: ContextLink, entity: Schema.Entity) {
        guard insertedSlot < 0 else { return }
        let slot = link.insertedValues.newSlot(entity: entity.index, attributes: entity.attributes.count,
                                               relationships: entity.relationships.count)
        ownAttributeChanges.forEachValue { link.insertedValues.set($1, entity: entity.index, slot: slot, attribute: $0) }
        ownRelationshipChanges.forEachValue { link.insertedValues.setRelationship($1, entity: entity.index, slot: slot, relationship: $0) }
        ownAttributeChanges = [:]
        ownRelationshipChanges = [:]
        insertedSlot = Int32(slot)
    }

    /// Takes the object's changes out of its context's table into the object (it stops being
    /// an unsaved insert there: rolled back, or deleted before it was saved).
    final func takeBackChanges() {
        guard insertedSlot >= 0 else { return }
        var values = PropertyChanges<Value>()
        forEachChangedValue { values[$0] = $1 }
        var relationships = PropertyChanges<PendingRelationship>()
        for (index, change) in pendingRelationships { relationships[index] = change }
        insertedSlot = -1
        ownAttributeChanges = values
        ownRelationshipChanges = relationships
    }
}
