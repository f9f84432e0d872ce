@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Saving: validate, encode the unsaved work as one transaction, commit it through the
/// container (log append, then graph apply), and mark everything clean.
extension ModelContext {
    /// Writes this context's unsaved inserts, changes and deletes as one transaction, then marks
    /// every object clean and tells the other contexts. With `.full` durability the transaction is
    /// on disk when this returns. Nothing is written when it throws: `ModelContextError` for a
    /// broken rule (uniqueness, delete rule, relationship count, read-only store), `StorageError`
    /// when the store cannot write; the changes stay unsaved.
    public func save() throws {
        if let partitions { return try partitions.save(names: container.configurations.map(\.name)) }
        let entered = try link.enter("save")
        defer { link.leave(entered) }
        autosavePending = false
        cancelAutosave()
        // A save ends the undo manager's automatic group (a context off the main actor has no
        // main-queue turn to end it).
        undoManager?.closeAutomaticGroup()
        try applyMergePolicy()
        guard hasChanges else { return }
        guard !container.configuration.isReadOnly else { throw ModelContextError.readOnly }
        let work = SaveWork(inserts: inserted, changes: changedBackings(), deletes: Array(deleted.values))
        try validate(changes: work.changes)
        announce(.willSave, SaveNotification(phase: .willSave, transaction: nil, author: author ?? "",
                                             inserted: work.inserts.map(\.persistentModelID),
                                             updated: work.changes.map { Self.model($0).persistentModelID },
                                             deleted: work.deletes.map(\.persistentModelID)))
        // Once the transaction carries every change, the save is over for the context: as
        // soon as the commit cannot fail (before the graph grows), or, with writes deferred
        // past the commit lock, once it returned. The objects are clean and the context lets
        // go of them, so that a million changed objects' values and links, or the inserts
        // nobody else holds, are not kept beside the graph's new columns (the columns take the
        // memory they leave).
        func finishSave() {
            guard !work.finished else { return }
            work.finished = true
            for upsert in work.upserts {
                guard let entity = upsert.model.persistentBacking.entity else { continue }
                unregister(entity: entity.index, row: upsert.reservedRow)
                register(upsert.model, entity: entity.index, row: upsert.model.persistentBacking.row)
            }
            for model in work.inserts {
                clear(model)
                model.persistentBacking.state = .persistent
            }
            for backing in work.changes { backing.clearChanges() }
            for model in work.deletes {
                clear(model)
                let backing = model.persistentBacking
                if let entity = backing.entity { unregister(entity: entity.index, row: backing.row) }
            }
            // No object holds a slot now (deleted inserts took their values back); the
            // columns go with the transaction.
            changed.removeAll(in: link.unsavedValues)
            link.unsavedValues.removeAll()
            inserted = []
            deleted = [:]
            (work.inserts, work.changes, work.deletes, work.upserts) = ([], [], [], [])
        }
        // The map of unsaved unique values is a cache the next lookup lists again: it goes
        // before the save's claims of the same values are made beside it.
        forgetAllPendingUnique()
        let committed: (UInt64, ChangeSummary)
        do {
            committed = try container.commit(from: self, author: author ?? "", {
                let plainInserts: [any PersistentModel]
                do {
                    // The inserts' claims (a hundred megabytes for a million unique keys) go
                    // before the transaction is built beside them.
                    let claimed: UniqueClaims
                    (work.upserts, claimed) = resolveUpserts(work.inserts)
                    let upserted = Set(work.upserts.map { ObjectIdentifier($0.model) })
                    plainInserts = work.upserts.isEmpty ? work.inserts : work.inserts.filter { !upserted.contains(ObjectIdentifier($0)) }
                    try validateUniqueness(inserts: plainInserts, changes: work.changes, upserted: work.upserts.lazy.map(\.model),
                                           claimedByInserts: claimed)
                }
                return try encodeOperations(inserts: plainInserts, changes: work.changes, upserted: work.upserts.map(\.model),
                                            deletes: work.deletes)
            }, cannotFail: finishSave)
        } catch {
            // Nothing was committed: upserted objects go back to the rows they reserved.
            for upsert in work.upserts { upsert.model.persistentBacking.row = upsert.reservedRow }
            throw error
        }
        // Committed: everything is clean now.
        finishSave()
        let (number, summary) = committed
        notifyLiveQueries(summary)
        announce(.didSave, {
            let saved = summary.identifiers
            return SaveNotification(phase: .didSave, transaction: number, author: author ?? "",
                                    inserted: saved.inserted, updated: saved.updated, deleted: saved.deleted)
        }())
    }

    private func clear(_ model: any PersistentModel) {
        model.persistentBacking.clearChanges()
    }

    // MARK: Validation

    private func validate(changes: [ModelBacking]) throws {
        // Walked in place (a save of 100k changes must not copy them into new arrays twice).
        func checkEncoding(_ backing: ModelBacking) throws {
            if let (index, reason) = backing.firstEncodingFailure, let entity = backing.entity {
                throw ModelContextError.encodingFailed(entity: entity.name, attribute: entity.attributes[index].name, reason: reason)
            }
        }
        for model in inserted { try checkEncoding(model.persistentBacking) }
        for backing in changes { try checkEncoding(backing) }
        for model in deleted.values {
            guard let entity = model.persistentBacking.entity else { continue }
            for relationship in entity.relationships where relationship.deleteRule == .deny {
                let live = relationshipMembers(model.persistentBacking, relationship).filter { $0.persistentBacking.state != .deleted }
                if !live.isEmpty { throw ModelContextError.deleteDenied(model: model.persistentModelID, relationship: relationship.name) }
            }
        }
        guard schema.entities.contains(where: { $0.relationships.contains { $0.minimumCount != nil || $0.maximumCount != nil } }) else { return }
        func checkCounts(_ backing: ModelBacking) throws {
            guard let entity = backing.entity else { return }
            for relationship in entity.relationships where relationship.minimumCount != nil || relationship.maximumCount != nil {
                let count = relationshipMembers(backing, relationship).count
                if count < (relationship.minimumCount ?? 0) || count > (relationship.maximumCount ?? .max) {
                    throw ModelContextError.relationshipCountOutOfRange(
                        model: Self.model(backing).persistentModelID, relationship: relationship.name, count: count,
                        minimum: relationship.minimumCount, maximum: relationship.maximumCount)
                }
            }
        }
        for model in inserted { try checkCounts(model.persistentBacking) }
        for backing in changes { try checkCounts(backing) }
    }

    private func relationshipMembers(_ backing: ModelBacking, _ relationship: Schema.Relationship) -> [any PersistentModel] {
        if relationship.isToMany { return backing.toMany(at: relationship.index) }
        return backing.toOne(at: relationship.index).map { [$0] } ?? []
    }

    // MARK: Encoding

    /// The save's transaction. New rows and changed attribute values go as blocks, entity by
    /// entity (`RowBlock`: values by column, in typed storage), which the log encodes as the
    /// same `.insert` and `.update` operations and the graph applies column by column; as one
    /// operation per object, with an array of values each, a million objects' save held twice
    /// their values again while it ran.
    private func encodeOperations(inserts: [any PersistentModel], changes: [ModelBacking],
                                  upserted: [any PersistentModel], deletes: [any PersistentModel]) throws -> TransactionChanges {
        var operations: [LogOperation] = []
        operations.reserveCapacity(deletes.count)
        // Rows first, so every link names rows that exist. Upserts update every attribute of the
        // row they took over.
        let (insertBlocks, links) = insertAndLinkBlocks(of: inserts)
        let blocks = insertBlocks + rowBlocks(.update, of: changes) + upsertBlocks(of: upserted.lazy.map(\.persistentBacking))
        var toOnes: [ToOneAsRead] = []
        for backing in changes { encodeLinks(of: backing, into: &operations, toOnes: &toOnes) }
        for model in upserted { encodeLinks(of: model.persistentBacking, into: &operations, toOnes: &toOnes) }
        if !toOnes.isEmpty { encode(toOnes, into: &operations) }
        for model in deletes {
            let backing = model.persistentBacking
            guard let entity = backing.entity else { continue }
            // A deleted row's tombstone: its `.preserveValueOnDeletion` values as it is deleted,
            // written just before the delete, where history finds them.
            let preserved = entity.attributes.filter { $0.options.contains(.preserveValueOnDeletion) }
            if !preserved.isEmpty {
                let values = preserved.map { PropertyValue($0.number, backing.attributeValue(at: $0.index) ?? $0.defaultValue) }
                operations.append(.update(entity: entity.number, row: backing.row, values: values))
            }
            operations.append(.delete(entity: entity.number, row: backing.row))
        }
        return TransactionChanges(blocks: blocks, links: links, operations: operations)
    }

    /// The objects of `backings` that `include` accepts, grouped by entity, each entity in the
    /// order its first object comes (in an array indexed by entity: a save of a million
    /// objects groups a million).
    private func groupedByEntity(_ backings: some Sequence<ModelBacking>,
                                 where include: (ModelBacking) -> Bool = { _ in true }) -> [(Schema.Entity, [ModelBacking])] {
        var byEntity: [[ModelBacking]] = []
        var order: [Schema.Entity] = []
        for backing in backings {
            guard let entity = backing.entity, include(backing) else { continue }
            if entity.index >= byEntity.count { byEntity.append(contentsOf: repeatElement([], count: entity.index + 1 - byEntity.count)) }
            if byEntity[entity.index].isEmpty { order.append(entity) }
            byEntity[entity.index].append(backing)
        }
        return order.map { ($0, byEntity[$0.index]) }
    }

    /// One block per entity of `backings`, made of the context's own columns (`UnsavedValues`)
    /// with the objects' slots as sources: for inserts every attribute, what an object leaves
    /// unset being its default; for updates the attributes each object changed.
    private func rowBlocks(_ kind: RowBlock.Kind, of backings: some Sequence<ModelBacking>) -> [RowBlock] {
        groupedRowBlocks(kind, of: backings).map(\.block)
    }

    private func groupedRowBlocks(_ kind: RowBlock.Kind, of backings: some Sequence<ModelBacking>) -> [(backings: [ModelBacking], block: RowBlock)] {
        groupedByEntity(backings, where: { kind == .insert || $0.hasChangedAttributes }).map { entity, backings in
            // An insert made live again by undo kept its values in the object until now.
            for backing in backings { backing.moveChanges(into: link, entity: entity) }
            let block = RowBlock(kind: kind, entity: entity.number, properties: entity.attributeNumbers,
                                 columns: link.unsavedValues.columns(of: entity.index),
                                 defaults: kind == .insert ? entity.attributes.map(\.defaultValue) : [],
                                 rows: backings.map(\.row), sources: backings.map { Int($0.unsavedSlot) },
                                 releasesColumnsWhenApplied: kind == .insert)
            return (backings, block)
        }
    }

    /// The inserts' row blocks, and a link block per relationship they write links for (its
    /// sources the rows of the entity's block): every link an insert makes (a new row has no
    /// committed links to undo, so they are all links, in order), none left for `encodeLinks`.
    private func insertAndLinkBlocks(of inserts: [any PersistentModel]) -> ([RowBlock], [LinkBlock]) {
        var links: [LinkBlock] = []
        let grouped = groupedRowBlocks(.insert, of: inserts.lazy.map(\.persistentBacking))
        for (backings, block) in grouped {
            guard let entity = backings.first?.entity else { continue }
            for relationship in entity.relationships where schema.writesLinks(relationship) {
                guard backings.contains(where: { $0.pendingRelationship(at: relationship.index) != nil }) else { continue }
                if !relationship.isToMany {
                    let targets = backings.map { backing -> UInt64 in
                        guard case let .toOne(target?)? = backing.pendingRelationship(at: relationship.index) else { return 0 }
                        return Self.linkableRow(of: target) ?? 0
                    }
                    links.append(LinkBlock(relationship: relationship.number, sources: block.rows, targets: targets))
                    continue
                }
                var targets: [UInt64] = [], ends: [Int] = []
                ends.reserveCapacity(backings.count)
                for backing in backings {
                    if case let .toMany(pending)? = backing.pendingRelationship(at: relationship.index) {
                        for target in pending.base ?? pending.added { if let row = Self.linkableRow(of: target) { targets.append(row) } }
                    }
                    ends.append(targets.count)
                }
                links.append(LinkBlock(relationship: relationship.number, sources: block.rows, targets: targets, ends: ends))
            }
        }
        return (grouped.map(\.block), links)
    }

    /// The row a link can name: none for a deleted object or one without a row.
    private static func linkableRow(of target: any PersistentModel) -> UInt64? {
        let backing = target.persistentBacking
        return backing.state == .deleted || backing.row == 0 ? nil : backing.row
    }

    /// An upsert's update of the row it took over, one block per entity: every attribute, what
    /// the insert left unset its default.
    private func upsertBlocks(of backings: some Sequence<ModelBacking>) -> [RowBlock] {
        groupedByEntity(backings).map { entity, backings in
            let defaults = entity.attributes.map(\.defaultValue)
            var columns = [BatchColumn](repeating: BatchColumn(), count: defaults.count)
            for index in columns.indices { columns[index].reserveCapacity(backings.count) }
            // Object by object, so that each object's changes are read once, while in cache.
            for (row, backing) in backings.enumerated() {
                for index in defaults.indices { columns[index].set(backing.changedValue(ofAttribute: index) ?? defaults[index], row: row) }
            }
            return RowBlock(kind: .update, entity: entity.number, properties: entity.attributeNumbers, columns: columns,
                            defaults: [], rows: backings.map(\.row), sources: Array(backings.indices))
        }
    }

    /// A changed or upserted row's relationship changes, as unlinks of what its committed row
    /// had and links of what it has now (a new row's links go in link blocks).
    /// (`toOnes`: the row's unsaved to-ones whose links their inverse lists write, for `encode(_:into:)`.)
    private func encodeLinks(of backing: ModelBacking, into operations: inout [LogOperation], toOnes: inout [ToOneAsRead]) {
        guard backing.hasPendingRelationships, let entity = backing.entity else { return }
        for (index, change) in backing.pendingRelationships {
            let relationship = entity.relationships[index]
            guard schema.writesLinks(relationship) else {
                // A new target's list is a link block of its own, which holds the member.
                if case let .toOne(target) = change, target?.persistentBacking.state != .inserted,
                   let inverse = inverseRelationship(of: relationship), inverse.isToMany {
                    toOnes.append(ToOneAsRead(backing: backing, relationship: index, member: LinkedMember(relationship: inverse.number, row: backing.row),
                                              target: target.flatMap(Self.linkableRow(of:))))
                }
                continue
            }
            let number = relationship.number
            let row = Self.linkableRow(of:)
            switch change {
            case let .toOne(target):
                let committed = committedToOneRow(backing, relationship)
                let newRow = target.flatMap(row)
                if committed == newRow { continue }
                if let committed { operations.append(.unlink(relationship: number, source: backing.row, target: committed)) }
                if let newRow { operations.append(.link(relationship: number, source: backing.row, target: newRow)) }
            case let .toMany(pending):
                if pending.base != nil {
                    // A whole new list: unlink what is there, link the new list in its order, and
                    // after it what other contexts saved to the list since it was set.
                    let committedRows = committedToManyRows(of: backing, relationship: relationship.index)
                    for committed in committedRows {
                        operations.append(.unlink(relationship: number, source: backing.row, target: committed))
                    }
                    let names = ownToOneNames(backing, relationship)
                    for member in pending.merged(committed: committedRows, namesThisList: names,
                                                 object: addedByOthers(to: backing, relationship: relationship, names: names)) {
                        if let r = row(member) { operations.append(.link(relationship: number, source: backing.row, target: r)) }
                    }
                } else {
                    // A member deleted here is unlinked by its delete.
                    let target = relationship.targetIndex
                    for committed in committedMembers(pending.removed, of: backing, relationship)
                    where registeredObject(entity: target, row: committed)?.persistentBacking.state != .deleted {
                        operations.append(.unlink(relationship: number, source: backing.row, target: committed))
                    }
                    for target in pending.added { if let r = row(target) { operations.append(.link(relationship: number, source: backing.row, target: r)) } }
                    for r in takenAwayPutBacks(pending, of: backing, relationship: relationship) {
                        operations.append(.link(relationship: number, source: backing.row, target: r))
                    }
                }
            }
        }
    }

    /// Each unsaved to-one whose links its inverse writes (a flight's airline: the airline's
    /// list writes them) is saved as this context reads it, whatever the lists' changes say:
    /// the lists can miss it, or say otherwise, when another context's save moved the member
    /// meanwhile (a list this context took it out of no longer holds it, one it put it back
    /// in lost it, one showed it only because the other save put it there) or when an undo or
    /// redo restored the to-one apart from its lists. So links of the member to any other
    /// list go, and the member ends linked where the to-one says (or unlinked from where it is).
    private func encode(_ toOnes: [ToOneAsRead], into operations: inout [LogOperation]) {
        var decided: [LinkedMember: UInt64?] = [:]
        // Where each member is linked: committed, then as the lists' operations leave it.
        var linked: [LinkedMember: UInt64?] = [:]
        graph.read { view in
            for toOne in toOnes {
                let entity = toOne.backing.entityIndex, row = toOne.backing.row
                decided[toOne.member] = toOne.target
                linked[toOne.member] = view.isLive(entity: entity, row: row) ? view.toOne(entity: entity, row: row, relationship: toOne.relationship) : nil
            }
        }
        operations.removeAll { operation in
            switch operation {
            case let .link(number, source, target):
                let member = LinkedMember(relationship: number, row: target)
                guard let decision = decided[member] else { return false }
                if source != decision { return true }
                linked[member] = source
            case let .unlink(number, source, target):
                let member = LinkedMember(relationship: number, row: target)
                if decided[member] != nil, linked[member]! == source { linked[member] = .some(nil) }
            default:
                break
            }
            return false
        }
        for toOne in toOnes {
            let number = toOne.member.relationship, member = toOne.member.row
            guard let now = linked[toOne.member], now != toOne.target else { continue }
            if let target = toOne.target {
                operations.append(.link(relationship: number, source: target, target: member))
            } else if let now {
                operations.append(.unlink(relationship: number, source: now, target: member))
            }
            linked[toOne.member] = toOne.target
        }
    }

    private func committedToOneRow(_ backing: ModelBacking, _ relationship: Schema.Relationship) -> UInt64? {
        committedGraph { $0.liveToOne(entity: relationship.entityIndex, row: backing.row, relationship: relationship.index) }
    }
}

/// One save's objects, shared by `save()` and the closures it hands the commit. As local
/// variables captured by those closures (which may escape, as far as the compiler knows),
/// every access was checked for exclusivity at run time, a score of checks a save; the save
/// touches them from its own domain only, one access at a time.
private final class SaveWork {
    @exclusivity(unchecked) var inserts: [any PersistentModel]
    @exclusivity(unchecked) var changes: [ModelBacking]
    @exclusivity(unchecked) var deletes: [any PersistentModel]
    /// Inserts that take the place of a committed row with the same unique key.
    @exclusivity(unchecked) var upserts: [ModelContext.Upsert] = []
    /// The context let go of the saved objects (`finishSave` runs once).
    @exclusivity(unchecked) var finished = false

    init(inserts: [any PersistentModel], changes: [ModelBacking], deletes: [any PersistentModel]) {
        self.inserts = inserts
        self.changes = changes
        self.deletes = deletes
    }
}

/// A member row of a to-many, as its links name it (the list's relationship and the row).
private struct LinkedMember: Hashable {
    let relationship: PropertyNumber
    let row: UInt64
}

/// An unsaved to-one whose links its inverse list writes, and the row it names (nil: none).
private struct ToOneAsRead {
    let backing: ModelBacking
    let relationship: Int
    let member: LinkedMember
    let target: UInt64?
}
