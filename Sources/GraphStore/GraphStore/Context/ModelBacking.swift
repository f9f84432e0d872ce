@_spi(GraphStoreInternals) import GraphStoreCore
import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph

/// The engine's state for one model object: which context manages it, its row, and its unsaved
/// changes. The declaring layer reads and writes properties only through these methods, by
/// attribute or relationship position (declaration order).
///
/// `Model` is a subclass: an object and its backing are one allocation, not two, and have one
/// set of reference counts. So every member here is also a
/// member of every model class: the public ones are named so as not to clash with properties
/// a model declares, and the rest are internal (a model in another module cannot see them).
/// Subclass `Model`, not this class.
open class ModelBacking {
    enum State: Sendable, Equatable {
        /// Not in any context yet: values live here.
        case unmanaged
        /// Inserted into a context, not yet saved.
        case inserted
        /// Stored (saved or fetched).
        case persistent
        /// Deleted in its context (saved or not).
        case deleted
    }

    // The fields every property access reads skip run-time exclusivity checks (a thread-local
    // access set per access, more than the read itself); each is only ever read or assigned
    // whole, never accessed in overlapping ways.
    // These four fields share one word (every object of a million pays for each word): two
    // flags in a byte, the entity's index in 16 bits.
    @exclusivity(unchecked) final var state: State = .unmanaged
    @exclusivity(unchecked) private final var flags: UInt8
    @exclusivity(unchecked) private final var storedEntityIndex: Int16 = -1
    /// The object's row in its context's `UnsavedValues`, where its unsaved changes are kept
    /// while it is an insert or a changed committed object there; -1 otherwise.
    @exclusivity(unchecked) final var unsavedSlot: Int32 = -1

    private static let readsCommittedStateFlag: UInt8 = 1, unregistersWhenFreedFlag: UInt8 = 2, listedChangedFlag: UInt8 = 4
    /// Whether the object is in its context's list of changed objects (ChangedObjects).
    final var isListedChanged: Bool {
        @inline(__always) get { flags & Self.listedChangedFlag != 0 }
        set { flags = newValue ? flags | Self.listedChangedFlag : flags & ~Self.listedChangedFlag }
    }
    /// A private copy that shows only the committed row (fetches with `includePendingChanges: false`).
    final var readsCommittedState: Bool {
        @inline(__always) get { flags & Self.readsCommittedStateFlag != 0 }
        set { flags = newValue ? flags | Self.readsCommittedStateFlag : flags & ~Self.readsCommittedStateFlag }
    }
    /// Whether the object takes itself out of its context's registry when it is freed
    /// (`Model` does, in its deinit); other objects are registered weakly (ObjectRegistry).
    final var unregistersWhenFreed: Bool { flags & Self.unregistersWhenFreedFlag != 0 }
    /// The context that manages the object, reached through the context's `ContextLink`, which
    /// never keeps it alive (a context owns its objects' unsaved work, never the other way round).
    final var context: ModelContext? {
        get { link?.context }
        set { link = newValue?.link }
    }
    /// The only reference the backing keeps: through it the schema and the committed graph,
    /// which the link holds (it holds no objects or contexts), so an object's stored attributes
    /// stay readable even after its context is gone. One reference rather than three: each was
    /// a retain when the object was made and a release when it was freed.
    @exclusivity(unchecked) final var link: ContextLink? {
        didSet { unretainedLink = link.map(Unretained.init) }
    }
    /// The entity's position in the schema, once the object is managed (else -1).
    final var entityIndex: Int {
        @inline(__always) get { Int(storedEntityIndex) }
        set { storedEntityIndex = Int16(newValue) }
    }
    @exclusivity(unchecked) final var row: UInt64 = 0
    // What every property read uses, without retaining: the link above (which keeps it alive).
    // A read would otherwise retain and release the link, the graph and the entity.
    @exclusivity(unchecked) private(set) final var unretainedLink: Unretained<ContextLink>?

    /// The object's entity, while a context manages it.
    final var entity: Schema.Entity? {
        guard entityIndex >= 0, let link else { return nil }
        return link.schema.entities[entityIndex]
    }

    /// Unsaved attribute values and relationship changes set while the object was unmanaged
    /// (or taken back when it left its context); a context keeps its objects' changes by column
    /// (`unsavedSlot`). Read and written only through the accessors of ModelBacking+Changes.swift.
    @exclusivity(unchecked) final var ownAttributeChanges = PropertyChanges<Value>()
    @exclusivity(unchecked) final var ownRelationshipChanges = PropertyChanges<PendingRelationship>()

    /// The value this object holds for attribute `attribute` that its context has not saved: its
    /// unsaved change, or for an unsaved insert the declared default; nil when it holds none.
    final func unsavedValue(ofAttribute attribute: Int) -> Value? {
        changedValue(ofAttribute: attribute) ?? (state == .inserted ? entity?.attributes[attribute].defaultValue : nil)
    }

    /// Whether this object of a committed row that holds `value` for attribute `attribute` no
    /// longer does, for its context: deleted, or given another value, not yet saved.
    final func isDeletedOrChangedAway(attribute: Int, from value: Value) -> Bool {
        if state == .deleted { return true }
        if let newValue = changedValue(ofAttribute: attribute) { return newValue != value }
        return false
    }
    /// A value that did not encode, if any (what a save checks every object for, without
    /// copying the dictionary out).
    final var firstEncodingFailure: (index: Int, reason: String)? {
        guard let seldom, let (index, reason) = seldom.encodingFailures.first else { return nil }
        return (index, reason)
    }
    /// Attributes whose last assigned value could not be encoded (save reports them).
    final var encodingFailures: [Int: String] {
        get { seldom?.encodingFailures ?? [:] }
        set { if seldom != nil || !newValue.isEmpty { seldomUsed().encodingFailures = newValue } }
    }
    /// To-one relationships decoded by identifier, resolved when the object is inserted.
    final var unresolvedToOne: [Int: PersistentIdentifier] {
        get { seldom?.unresolvedToOne ?? [:] }
        set { if seldom != nil || !newValue.isEmpty { seldomUsed().unresolvedToOne = newValue } }
    }
    /// The values of ephemeral attributes, once managed: never saved, never shared.
    final var ephemeralValues: [Int: Value] {
        get { seldom?.ephemeralValues ?? [:] }
        set { if seldom != nil || !newValue.isEmpty { seldomUsed().ephemeralValues = newValue } }
    }
    private final var temporaryIdentifier: PersistentIdentifier? {
        get { seldom?.temporaryIdentifier }
        set { if seldom != nil || newValue != nil { seldomUsed().temporaryIdentifier = newValue } }
    }

    /// What few objects ever have (a temporary identifier, values that did not encode, to-one
    /// targets decoded by identifier), made when first needed: as fields of every object's
    /// backing, each was stored when a fetched object was made and released when it was freed.
    private final class Seldom {
        var temporaryIdentifier: PersistentIdentifier?
        var encodingFailures: [Int: String] = [:]
        var unresolvedToOne: [Int: PersistentIdentifier] = [:]
        var ephemeralValues: [Int: Value] = [:]
    }
    @exclusivity(unchecked) private final var seldom: Seldom?

    private final func seldomUsed() -> Seldom {
        if let seldom { return seldom }
        let made = Seldom()
        seldom = made
        return made
    }

    /// A backing with no context, for a type that is its own backing (`Model` subclasses
    /// `ModelBacking`).
    public init() { flags = 0 }

    /// A backing whose object calls `modelWillBeFreed` from its deinit.
    public init(unregistersWhenFreed: Bool) { flags = unregistersWhenFreed ? Self.unregistersWhenFreedFlag : 0 }

    /// Called from the object's deinit: its registry entry must go before its memory does.
    public final func modelWillBeFreed(_ object: ObjectIdentifier) {
        guard row > 0, entityIndex >= 0, let unretainedLink else { return }
        let entity = entityIndex, row = self.row
        unretainedLink.with { $0.registry.remove(entity: entity, row: row, ifObject: object) }
    }

    /// Makes this the object `model(for:)` returns for an identifier with no row: deleted, in
    /// no context, known by that identifier.
    final func markMissing(_ identifier: PersistentIdentifier) {
        state = .deleted
        temporaryIdentifier = identifier
    }

    final func identifier(for model: AnyObject) -> PersistentIdentifier {
        if row > 0, let entity { return PersistentIdentifier(entityName: entity.name, row: row) }
        if let temporaryIdentifier { return temporaryIdentifier }
        let declared = try? (type(of: model) as? any PersistentModel.Type)?.entityDeclaration().name
        let id = PersistentIdentifier.temporary(entityName: declared ?? "\(type(of: model))")
        temporaryIdentifier = id
        return id
    }

    // MARK: Attributes

    /// Remembers that a value assigned to an attribute could not be encoded; the next save throws.
    public final func recordEncodingFailure(at index: Int, reason: String, of model: any PersistentModel) {
        guard let context else {
            encodingFailures[index] = reason
            return
        }
        let entered = context.link.enterOrStop("setting an attribute")
        defer { context.link.leave(entered) }
        encodingFailures[index] = reason
        context.markChanged(self)
    }

    /// Records a to-one target by identifier (Codable decoding), resolved on insert.
    public final func setUnresolvedToOne(_ identifier: PersistentIdentifier, at index: Int) {
        unresolvedToOne[index] = identifier
    }

    /// The current value, or nil when the property still has its declared initial value.
    public final func attributeValue(at index: Int) -> Value? {
        // A read changes nothing of the context's: it checks that no other thread is inside
        // (ContextUse), and enters nothing.
        unretainedLink?.with { $0.checkNoOtherThreadInside("reading an attribute") }
        if !readsCommittedState, let value = changedValue(ofAttribute: index) { return value }
        if let seldom, let value = seldom.ephemeralValues[index] { return value }
        guard row > 0, state != .inserted, entityIndex >= 0, let unretainedLink else { return nil }
        let entityIndex = self.entityIndex, row = self.row
        let stored = unretainedLink.with { link in
            link.readAhead.noteRead(entity: entityIndex, attribute: index)
            link.resultReadAhead.noteRead(self, entity: entityIndex, graph: link.graph,
                                          attributes: link.readAhead.attributesRead(entity: entityIndex))
            return link.graph.liveValue(entity: entityIndex, row: row, attribute: index)
        }
        guard case let .blob(reference)? = stored, let entity else { return stored }
        // External storage: the value is read from its blob file, which only a store has.
        guard let blobs = unretainedLink.with(\.blobs) else { return nil }
        return blobs.value(of: reference, readFor: "\(entity.name)/\(row).\(entity.attributes[index].name)").map(Value.data)
    }

    /// Sets attribute `index` (its position in the entity) of `model` to `value`: through the
    /// context once the object is inserted (change tracking, undo, unique upkeep), kept in the
    /// object until then. Property wrappers call it.
    public final func setAttributeValue(_ value: Value, at index: Int, of model: any PersistentModel) {
        // The context reached without retaining it or its link: an assignment is a few
        // retains and releases otherwise, as many as the rest of its work.
        let managed = unretainedLink?.with { link in
            link.withContext { context -> Bool in
                context.setAttribute(value, at: index, of: model, backing: self)
                return true
            } ?? false
        } ?? false
        if !managed { setChangedValue(value, ofAttribute: index) }
        // Only an object that recorded a failure has one to clear (through `encodingFailures`,
        // every set copied an empty dictionary out and back in).
        if let seldom, !seldom.encodingFailures.isEmpty { seldom.encodingFailures[index] = nil }
    }

    // MARK: Relationships

    /// The target of to-one relationship `index` (its position in the entity): the unsaved one if
    /// this context changed it, otherwise the committed one (made or found in the context's
    /// identity map).
    public final func toOne(at index: Int) -> (any PersistentModel)? {
        // Reading a committed relationship hands out (and registers) the target's object: it
        // enters the context.
        guard let link else { return relationshipTarget(at: index) }
        let entered = link.enterOrStop("reading a relationship")
        defer { link.leave(entered) }
        return relationshipTarget(at: index)
    }

    private final func relationshipTarget(at index: Int) -> (any PersistentModel)? {
        if !readsCommittedState, case let .toOne(target)? = pendingRelationship(at: index) { return target }
        guard let context, row > 0, state != .inserted else { return nil }
        return context.committedToOne(of: self, relationship: index)
    }

    /// The targets of to-many relationship `index`, in link order, with this context's unsaved
    /// additions and without its deletions.
    public final func toMany(at index: Int) -> [any PersistentModel] {
        guard let link else { return toMany(at: index, includingDeleted: false) }
        let entered = link.enterOrStop("reading a relationship")
        defer { link.leave(entered) }
        return toMany(at: index, includingDeleted: false)
    }

    /// The members, in order; objects deleted in the context are left out unless asked for.
    /// `followingToOnes` false: a whole new list's members as it holds them, those whose own
    /// unsaved to-one names another list included (what undo records and restores, as its
    /// actions for the two sides run one after the other).
    final func toMany(at index: Int, includingDeleted: Bool, followingToOnes: Bool = true) -> [any PersistentModel] {
        let pending: PendingToMany?
        if !readsCommittedState, case let .toMany(p)? = pendingRelationship(at: index) { pending = p } else { pending = nil }
        var list: [any PersistentModel]
        if let pending, pending.base != nil {
            list = context?.mergedWholeList(pending, of: self, relationship: index, followingToOnes: followingToOnes) ?? pending.base!
        } else if let context, row > 0, state != .inserted {
            list = context.committedToMany(of: self, relationship: index)
        } else {
            list = []
        }
        if let pending {
            if !pending.removed.isEmpty { list.removeAll { pending.removed.contains($0.persistentBacking.row) } }
            if !pending.added.isEmpty || !pending.putBack.isEmpty {
                list.append(contentsOf: context?.additions(pending, of: self, relationship: index) ?? pending.added)
            }
        }
        if !includingDeleted && !readsCommittedState { list.removeAll { $0.persistentBacking.state == .deleted } }
        return list
    }

    /// Points to-one relationship `index` of `model` at `target` (nil: none); the inverse follows
    /// in the same context.
    public final func setToOne(_ target: (any PersistentModel)?, at index: Int, of model: any PersistentModel) {
        if let context {
            context.setToOne(target, at: index, of: model)
        } else {
            setPendingRelationship(.toOne(target), at: index)
        }
    }

    /// Replaces the targets of to-many relationship `index` of `model`; each target's inverse
    /// follows in the same context.
    public final func setToMany(_ targets: [any PersistentModel], at index: Int, of model: any PersistentModel) {
        if let context {
            context.setToMany(targets, at: index, of: model)
        } else {
            setPendingRelationship(.toMany(PendingToMany(base: targets)), at: index)
        }
    }
}

/// An unsaved relationship value.
enum PendingRelationship {
    case toOne((any PersistentModel)?)
    case toMany(PendingToMany)
}

/// Unsaved changes to a to-many relationship: either a whole new list (`base`), or members added
/// to and removed from the committed list. Kept as a delta so that adding one flight to an
/// airport with thousands does not load them all. Either way other contexts' saves to the list
/// still show, and survive this context's save (to-many relationships always merge): a whole
/// new list of a saved object remembers the committed members it replaced (`replaced`), so
/// those added since are kept after it and those taken out since stay out.
/// A class, so that adding a member changes it in place rather than copying the lists. Only
/// its context's domain touches it, one access at a time: no access is checked for
/// exclusivity at run time.
final class PendingToMany {
    @exclusivity(unchecked) var base: [any PersistentModel]?
    @exclusivity(unchecked) var added: [any PersistentModel] = []
    /// Committed members taken out, by row: by row and not by object, because the objects of
    /// committed rows come and go (a freed object's address can be reused by another).
    @exclusivity(unchecked) var removed: Set<UInt64> = []
    /// With `base`, for an object that has a committed list: the rows that list held when `base`
    /// was set (nil for an unsaved object, whose list was empty and stays its own).
    @exclusivity(unchecked) var replaced: Set<UInt64>?
    /// Committed members taken out and then put back in their committed place, by row: while
    /// they stay committed members nothing needs saving, but if another context's save takes
    /// one out meanwhile, this context's putting back must still hold (its to-one says so).
    @exclusivity(unchecked) var putBack: Set<UInt64> = []

    init(base: [any PersistentModel]? = nil, replacing replaced: Set<UInt64>? = nil) {
        self.base = base
        self.replaced = replaced
    }

    /// `base` with what other contexts saved to the list since it was set: the members of
    /// `base` but those another save took out, then the committed members (`committed`, rows
    /// in order) added since, as `object` makes them (nil: one to leave out). A member whose
    /// own unsaved to-one in this context says where it belongs (`namesThisList`: true here,
    /// false elsewhere, nil when it has none) is where that says, whatever others saved.
    func merged(committed: [UInt64], namesThisList: (any PersistentModel) -> Bool?,
                object: (UInt64) -> (any PersistentModel)?) -> [any PersistentModel] {
        guard let base else { return [] }
        let othersChanged = replaced.map { committed.count != $0.count || !committed.allSatisfy($0.contains) } ?? false
        let stillCommitted = othersChanged ? Set(committed) : []
        var listed = Set<UInt64>()
        var list: [any PersistentModel] = []
        list.reserveCapacity(base.count)
        for member in base {
            let backing = member.persistentBacking, claim = namesThisList(member)
            if claim == false { continue }
            if othersChanged, claim == nil, backing.state == .persistent, replaced!.contains(backing.row),
               !stillCommitted.contains(backing.row) { continue }
            list.append(member)
            if backing.row > 0 { listed.insert(backing.row) }
        }
        if othersChanged, let replaced {
            for row in committed where !replaced.contains(row) && !listed.contains(row) { if let member = object(row) { list.append(member) } }
        }
        return list
    }

    /// Adds `model`, which the list does not hold. Changes arrive here only as the inverse half
    /// of a change made on `model` whose own side did not name this list's owner, and the two
    /// sides are kept in step, so no membership check is needed (an import adds every flight
    /// to its airports this way).
    func add(_ model: any PersistentModel) {
        if base == nil, model.persistentBacking.state == .persistent, removed.remove(model.persistentBacking.row) != nil {
            putBack.insert(model.persistentBacking.row)
            return  // back to its committed place
        }
        if base != nil { base!.append(model) } else { added.append(model) }
    }

    func remove(_ model: any PersistentModel) {
        if base != nil {
            if let position = base!.firstIndex(where: { $0 === model }) { base!.remove(at: position) }
        } else if let position = added.firstIndex(where: { $0 === model }) {
            added.remove(at: position)
        } else if model.persistentBacking.row > 0 {
            putBack.remove(model.persistentBacking.row)
            removed.insert(model.persistentBacking.row)
        }
    }
}
