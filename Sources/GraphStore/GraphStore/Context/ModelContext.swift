import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph

/// SwiftData's ModelContext on GraphStore: hands out model objects backed by committed rows
/// (one object per identifier), tracks their changes, keeps inverses in step at once, and saves
/// them as one transaction. Not Sendable: a context belongs to one isolation domain (the main
/// actor, an actor, or a task), which may use it from any thread, one at a time
/// (Docs/guides/concurrency.md).
public final class ModelContext {
    /// The container whose store this context reads and saves to.
    public let container: ModelContainer
    let schema: Schema
    var graph: Graph { container.graph }

    /// Objects of each entity by row, not retained: a clean object lives as long as the app holds it.
    let registry: ObjectRegistry
    /// The last objects made for to-one reads, retained (see RecentTargets).
    @exclusivity(unchecked) var recentTargets = RecentTargets()
    /// Each entity's uniqueness rules, by entity position (see UniquenessRule).
    let uniqueness: [EntityUniqueness]
    // A context's state is used by one thread at a time (every entry point enters; ContextUse),
    // and each field here is read or assigned whole, never in overlapping accesses: so the
    // fields every property set or save touches skip run-time exclusivity checks (a
    // thread-local access-set update each).
    /// Unsaved work, held strongly. Insertion order is kept for save.
    @exclusivity(unchecked) var inserted: [any PersistentModel] = []
    @exclusivity(unchecked) var changed = ChangedObjects() {
        didSet { if changed.isEmpty == hasEdits { editsChanged() } }
    }
    /// Whether `changed` is non-empty, as last seen (see `editsChanged`).
    @exclusivity(unchecked) private var hasEdits = false
    @exclusivity(unchecked) var deleted: [ObjectIdentifier: any PersistentModel] = [:]
    /// Unsaved inserted and changed objects by the unique values they are given, once a lookup
    /// has needed it since the last save (`keepPendingUnique`); kept up to date from then on.
    /// Each table lists the slots (in `UnsavedValues`) of one entity's objects by a hash of one
    /// unique attribute's value (keyed `entity << 32 | attribute`). Read by every lookup by
    /// unique value; the owner's alone, and never accessed in overlapping ways.
    @exclusivity(unchecked) var pendingUnique: [Int: HashedPositions] = [:]
    /// Whether `pendingUnique` lists the pending objects (else it is empty, and inserts and
    /// changes list nothing: an import that never looks anything up pays nothing for it).
    @exclusivity(unchecked) private var pendingUniqueIsKept = false
    /// Two unsaved objects were given one unique value (the save will merge them): fetches stop
    /// trusting `pendingUnique` until the next save or rollback.
    @exclusivity(unchecked) private(set) var pendingUniqueIsAmbiguous = false

    /// The name recorded as the author of this context's transactions.
    public var author: String? {
        didSet { partitions?.contexts.forEach { $0.author = author } }
    }
    /// With a container of several stores: a context per store, by which everything is routed
    /// (ModelContext+Partitions.swift); nil for a container of one store.
    private(set) var partitions: ContextPartitions?
    /// Records every change for undo and redo when set (mainContext gets one with
    /// `ModelConfiguration(isUndoEnabled: true)`).
    @exclusivity(unchecked) public var undoManager: UndoManager? {
        didSet { partitions?.contexts.forEach { $0.undoManager = undoManager } }
    }
    /// What happens at save to a property another context saved since this one changed it.
    public var mergePolicy: MergePolicy = .localWins {
        didSet {
            if mergePolicy != oldValue { editsChanged() }
            partitions?.contexts.forEach { $0.mergePolicy = mergePolicy }
        }
    }
    let observers = SaveObservers()
    /// What this context's objects hold of it (see ContextLink).
    let link: ContextLink
    /// The schema's model types by entity (metatypes: reading one retains nothing, unlike
    /// reading it from its entity description).
    private let modelTypes: [(any PersistentModel.Type)?]
    /// The last concurrent use found: the operation that threw `concurrentUse` (or the one
    /// that stopped the program), for a debugger or a log. Kept in the link: it is set from the
    /// misusing thread.
    public internal(set) var lastMisuse: ModelContextError? {
        get { link.lastMisuse }
        set { link.lastMisuse = newValue }
    }
    /// Whether changes are saved without being asked (see Docs/guides/undo-and-autosave.md).
    @exclusivity(unchecked) public var autosaveEnabled: Bool {
        didSet {
            if let partitions { return partitions.contexts.forEach { $0.autosaveEnabled = autosaveEnabled } }
            if autosaveEnabled { if hasChanges { scheduleAutosave() } } else { cancelAutosave() }
        }
    }
    /// How long after the first unsaved change an autosave runs.
    public var autosaveInterval: Duration = .seconds(1) {
        didSet { partitions?.contexts.forEach { $0.autosaveInterval = autosaveInterval } }
    }
    /// What times autosave (inject a `ManualAutosaveClock` in tests).
    public var autosaveClock: any AutosaveClock = DispatchAutosaveClock() {
        didSet { partitions?.contexts.forEach { $0.autosaveClock = autosaveClock } }
    }
    /// Called with every autosave failure (where the autosave ran: see `autosaveEnabled`).
    public var autosaveErrorHandler: ((any Error) -> Void)? {
        didSet { partitions?.contexts.forEach { $0.autosaveErrorHandler = autosaveErrorHandler } }
    }
    /// The last autosave failure, kept until the next one.
    public internal(set) var lastAutosaveError: (any Error)?
    @exclusivity(unchecked) var autosaveTimer: (any AutosaveTimer)?
    var autosavePending: Bool {
        get { link.autosavePending }
        set { link.autosavePending = newValue }
    }
    @exclusivity(unchecked) var transactionDepth = 0
    var queryPlanningEnabled = true
    /// `fetchUnique`'s key paths, resolved once (by key path identity; see `uniqueAttribute`),
    /// each kept alive beside its key so that its identity stays its own. A short list, searched
    /// from the front: a context looks up by one or two unique attributes, and hashing the
    /// identity (SipHash, in a dictionary) cost more than scanning them.
    @exclusivity(unchecked) var uniqueKeys: [(identity: ObjectIdentifier, key: UniqueKey, keyPath: AnyKeyPath)] = []
    /// Scratch space the planner intersects rows in (RowMarks).
    let rowMarks = RowMarks()
    /// Prepared fetches compiled for this context, by their predicate's identity (each entry
    /// keeps its predicate alive, so an identity is never reused while it is a key here).
    var compiledPreparedFetches: [ObjectIdentifier: CompiledQuery] = [:]
    /// Ad-hoc fetches' predicates planned and compiled by shape (see QueryShape).
    var compiledQueries: [CompiledQueryKey: [(shape: QueryShape, query: CompiledQuery)]] = [:]
    /// The same compiled queries, found by expression type and signature (see PredicateSignature).
    var compiledQueriesBySignature = CompiledQueriesBySignature()
    /// What each predicate expression type fetched here is (see PredicateExpressionType).
    /// Asked on every fetch, only from the context's own domain (ContextUse) and never while
    /// being asked: the run-time exclusivity check cost a third as much as the answer.
    @exclusivity(unchecked) var predicateExpressionTypes = PredicateExpressionTypes()
    /// The model executor that owns this context, if an actor's.
    var modelExecutor: DefaultSerialModelExecutor? { link.modelExecutor }

    /// A context on `container`'s store, with no unsaved changes, autosave off and no undo manager.
    /// Use it from one isolation domain (a thread, an actor, a task) at a time.
    public init(_ container: ModelContainer) {
        self.container = container
        self.schema = container.schema
        registry = ObjectRegistry(entityCount: container.schema.entities.count)
        uniqueness = container.schema.entities.map(EntityUniqueness.init)
        modelTypes = container.schema.entities.map(\.type)
        autosaveEnabled = false
        link = ContextLink(registry: registry, schema: container.schema, graph: container.graph, blobs: container.blobs)
        link.attach(self)
        container.register(link)
        if let containerPartitions = container.partitions { partitions = ContextPartitions(containerPartitions, facade: self) }
    }

    deinit {
        // The table holds its objects and they hold the link that holds it: the objects take
        // their unsaved changes back (they stay readable, as a detached object's are) and the
        // table lets them go.
        changed.removeAll(in: link.unsavedValues)
        link.unsavedValues.forEachOwner { $0.takeBackChanges() }
        link.unsavedValues.removeAll()
        link.detach()
        container.unregister(link)
    }

    /// A model executor takes the context over: from now on its home is that executor's jobs.
    func adopt(by executor: DefaultSerialModelExecutor) {
        link.modelExecutor = executor
        link.home = .executor
    }

    // MARK: The identity map

    func entity(of model: any PersistentModel) -> Schema.Entity? {
        model.persistentBacking.entity ?? schema.entity(for: type(of: model))
    }

    /// The one object for (entity, row) in this context, materialized on first use. Only by the
    /// thread inside the context (as every use of a context), which is what lets it skip the
    /// registry's lock when the registry is empty.
    func object(entity: Int, row: UInt64) -> any PersistentModel {
        object(entity: entity, row: row, keepingIfMade: false)
    }

    /// The objects for `rows` of an entity, as `T` (rows whose object is not a `T` left out).
    func objects<T: PersistentModel>(entity: Int, rows: [UInt64], as type: T.Type) -> [T] {
        var objects: [T] = []
        objects.reserveCapacity(rows.count)
        for row in rows {
            if let model = downcast(object(entity: entity, row: row), to: T.self) { objects.append(model) }
        }
        return objects
    }

    /// The object for a row; one made here is also kept a while when `keepingIfMade` (a to-one
    /// target: see RecentTargets).
    func object(entity: Int, row: UInt64, keepingIfMade: Bool) -> any PersistentModel {
        if registry.mayHoldAny(), let existing = registry.object(entity: entity, row: row) { return existing }
        let model = makeStoredObject(entity: entity, row: row)
        register(model, entity: entity, row: row)
        if keepingIfMade { recentTargets.keep(model) }
        return model
    }

    /// A new object for a stored row, managed by this context (not yet registered).
    func makeStoredObject(entity: Int, row: UInt64) -> any PersistentModel {
        // Contexts exist only for model schemas; a recorded schema (no types) has none.
        let model = modelTypes[entity]!.init()
        model.unretainedBacking.with { backing in
            backing.link = link
            backing.entityIndex = entity
            backing.row = row
            backing.state = .persistent
        }
        return model
    }

    /// The committed graph, which the container keeps, without retaining it.
    func committedGraph<R>(_ body: (Graph) throws -> R) rethrows -> R {
        try Unretained(container.graph).with(body)
    }

    func register(_ model: any PersistentModel, entity: Int, row: UInt64) {
        registry.register(model, entity: entity, row: row)
    }

    func unregister(entity: Int, row: UInt64) {
        registry.unregister(entity: entity, row: row)
    }

    /// The registered object for (entity, row), if this context has one alive.
    func registeredObject(entity: Int, row: UInt64) -> (any PersistentModel)? {
        registry.object(entity: entity, row: row)
    }

    /// The object for an identifier, as SwiftData's `model(for:)`: registered, or made for the
    /// stored row. For an identifier with no row (deleted, or never saved here) it is an object
    /// of the identifier's type that no context manages, whose `isDeleted` is true and whose
    /// properties read as their initial values; `existingModel(for:)` returns nil instead.
    public func model(for identifier: PersistentIdentifier) -> any PersistentModel {
        if let existing = existingModel(for: identifier) { return existing }
        let type = schema.entity(named: identifier.entityName).flatMap { modelTypes[$0.index] } ?? UnknownEntityModel.self
        let missing = type.init()
        missing.persistentBacking.markMissing(identifier)
        return missing
    }

    /// The object for an identifier: registered, or made for the stored row; nil when there is
    /// no such row (Core Data's `existingObject(with:)`).
    public func existingModel(for identifier: PersistentIdentifier) -> (any PersistentModel)? {
        if let partitions { return partitions.context(forEntityNamed: identifier.entityName)?.existingModel(for: identifier) }
        let entered = link.enterOrStop("model(for:)")
        defer { link.leave(entered) }
        guard let entity = schema.entity(named: identifier.entityName), !identifier.isTemporary else {
            return inserted.first { $0.persistentModelID == identifier }
        }
        if let registered = registeredObject(entity: entity.index, row: identifier.row) { return registered }
        guard graph.read({ $0.isLive(entity: entity.index, row: identifier.row) }) else { return nil }
        return object(entity: entity.index, row: identifier.row)
    }

    /// The object for an identifier only if this context already has it in memory.
    public func registeredModel<T: PersistentModel>(for identifier: PersistentIdentifier) -> T? {
        if let partitions { return partitions.context(forEntityNamed: identifier.entityName)?.registeredModel(for: identifier) }
        let entered = link.enterOrStop("registeredModel(for:)")
        defer { link.leave(entered) }
        guard let entity = schema.entity(named: identifier.entityName) else { return nil }
        if identifier.isTemporary { return inserted.first { $0.persistentModelID == identifier } as? T }
        return registeredObject(entity: entity.index, row: identifier.row) as? T
    }

    // MARK: Unsaved work

    /// Whether the context has unsaved inserts, changes or deletes.
    public var hasChanges: Bool {
        if let partitions { return partitions.contexts.contains { $0.hasChanges } }
        link.checkNoOtherThreadInside("hasChanges")
        return !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty
    }

    /// Every object with unsaved work: inserted, changed, deleted.
    var unsavedModels: [any PersistentModel] {
        hasChanges ? inserted + changedModels() + Array(deleted.values) : []
    }

    /// The committed objects with unsaved changes, of `entity` only if given.
    func changedModels(entity: Int? = nil) -> [any PersistentModel] {
        changedBackings(entity: entity).map(Self.model)
    }

    /// The changed objects' backings, of `entity` only if given (see `ChangedObjects`).
    func changedBackings(entity: Int? = nil) -> [ModelBacking] {
        changed.backings(in: link.unsavedValues, entity: entity)
    }

    /// A model object's backing as the object (they are one).
    static func model(_ backing: ModelBacking) -> any PersistentModel {
        guard let model = backing as? any PersistentModel else { preconditionFailure("a backing that is not a model object") }
        return model
    }
    /// The objects inserted and not yet saved.
    public var insertedModelsArray: [any PersistentModel] {
        if let partitions { return partitions.contexts.flatMap(\.insertedModelsArray) }
        link.checkNoOtherThreadInside("insertedModelsArray")
        return inserted
    }
    /// The objects with unsaved changes (inserted ones not included).
    public var changedModelsArray: [any PersistentModel] {
        if let partitions { return partitions.contexts.flatMap(\.changedModelsArray) }
        link.checkNoOtherThreadInside("changedModelsArray")
        return changedModels()
    }
    /// The objects deleted and not yet saved.
    public var deletedModelsArray: [any PersistentModel] {
        if let partitions { return partitions.contexts.flatMap(\.deletedModelsArray) }
        link.checkNoOtherThreadInside("deletedModelsArray")
        return Array(deleted.values)
    }

    /// Empties `pendingUnique`, and stops keeping it until a lookup needs it again.
    func forgetAllPendingUnique() {
        pendingUnique = [:]
        pendingUniqueIsKept = false
        pendingUniqueIsAmbiguous = false
    }

    /// Lists every pending object in `pendingUnique` (unsaved inserts under all their unique
    /// values, changed objects under the unique values they change), unless it is kept already,
    /// and keeps it from then on. Lookups call it before they read the map.
    func keepPendingUnique() {
        guard !pendingUniqueIsKept else { return }
        pendingUniqueIsKept = true
        for model in inserted { listPendingUniqueValues(of: model.persistentBacking, changedOnly: false) }
        for backing in changedBackings() { listPendingUniqueValues(of: backing, changedOnly: true) }
    }

    private func listPendingUniqueValues(of backing: ModelBacking, changedOnly: Bool) {
        let entityIndex = backing.entityIndex
        guard entityIndex >= 0, backing.state != .deleted else { return }
        for rule in uniqueness[entityIndex].attributes {
            guard case let .attribute(index, defaultValue) = rule.members else { continue }
            guard let value = backing.changedValue(ofAttribute: index) ?? (changedOnly ? nil : defaultValue) else { continue }
            listPendingUnique(backing, entity: entityIndex, attribute: index, value)
        }
    }

    /// Lists `model` in `pendingUnique` under `value`, the unsaved value it is being given for
    /// attribute `index`, when that attribute is unique and the map is kept (unsaved inserts and
    /// changed committed objects alike), so that lookups by value stay O(1) however many changes
    /// are pending. Call before the change is stored: the value it replaces is unlisted. A
    /// listing can still go stale (a merge that drops the change, an insert deleted):
    /// `pendingUniqueOwner` checks each.
    func notePendingUniqueValue(_ backing: ModelBacking, attribute index: Int, _ value: Value) {
        // Every attribute set comes through here: the test that it is unique reads a flag (an
        // attribute's description holds reference-counted names).
        let entityIndex = backing.entityIndex
        guard pendingUniqueIsKept, entityIndex >= 0, schema.entities[entityIndex].isUniqueAttribute[index],
              backing.state != .deleted else { return }
        if backing.unsavedSlot >= 0, let old = backing.unsavedValue(ofAttribute: index), old != .null {
            pendingUnique[Self.pendingTable(entityIndex, index)]?.remove(hash: HashedPositions.hash(old), position: Int(backing.unsavedSlot))
        }
        listPendingUnique(backing, entity: entityIndex, attribute: index, value)
    }

    /// Lists the object under `value` of unique attribute `index` (nil claims nothing), by its
    /// slot, which it takes now if it has none yet.
    private func listPendingUnique(_ backing: ModelBacking, entity entityIndex: Int, attribute index: Int, _ value: Value) {
        guard value != .null else { return }
        backing.takeSlotIfManaged()
        guard backing.unsavedSlot >= 0 else { return }
        let table = Self.pendingTable(entityIndex, index), hash = HashedPositions.hash(value)
        if !pendingUniqueIsAmbiguous,
           pendingUniqueOwner(inTable: table, entity: entityIndex, attribute: index, value: value, hash: hash, besides: backing) != nil {
            pendingUniqueIsAmbiguous = true
        }
        pendingUnique[table, default: HashedPositions()].insert(hash: hash, position: Int(backing.unsavedSlot))
    }

    private static func pendingTable(_ entity: Int, _ attribute: Int) -> Int { entity << 32 | attribute }

    /// The unsaved insert or changed object of this context that holds `value` for unique
    /// attribute `attribute` and is not deleted, if any. O(1) through `pendingUnique`; each
    /// listing found is checked (the object still has that slot, and that value).
    func pendingUniqueOwner(entity: Int, attribute: Int, value: Value) -> ModelBacking? {
        // Checked first: every committed lookup comes through here, nearly always with nothing pending.
        if !pendingUniqueIsKept {
            guard !inserted.isEmpty || !changed.isEmpty else { return nil }
            keepPendingUnique()
        }
        guard !pendingUnique.isEmpty else { return nil }
        return pendingUniqueOwner(inTable: Self.pendingTable(entity, attribute), entity: entity, attribute: attribute,
                                  value: value, hash: HashedPositions.hash(value))
    }

    private func pendingUniqueOwner(inTable table: Int, entity: Int, attribute: Int, value: Value, hash: Int,
                                    besides other: ModelBacking? = nil) -> ModelBacking? {
        guard let positions = pendingUnique[table] else { return nil }
        var found: ModelBacking?
        _ = positions.first(hash: hash) { slot in
            guard let owner = link.unsavedValues.holder(entity: entity, slot: slot), owner !== other, owner.state != .deleted,
                  owner.unsavedValue(ofAttribute: attribute) == value else { return false }
            found = owner
            return true
        }
        return found
    }

    func markChanged(_ backing: ModelBacking) {
        if backing.state == .persistent, !backing.isListedChanged {
            // Listed by its slot (ChangedObjects): a change kept in the object moves there now.
            backing.takeSlotIfManaged()
            if backing.unsavedSlot >= 0 { changed.insert(backing) }
        }
        scheduleAutosave()
    }

    /// Inserts a new object, and every unsaved object reachable from it through relationships.
    public func insert<T: PersistentModel>(_ model: T) {
        if let partitions { return partitions.context(of: model, in: schema).insert(model) }
        let entered = link.enterOrStop("insert")
        defer { link.leave(entered) }
        runPendingAutosave()
        insertAny(model)
    }

    func insertAny(_ model: any PersistentModel) {
        let backing = model.persistentBacking
        if backing.context === self && backing.state != .deleted { return }
        // Never ignored (the object would seem saved and not be): a programming error stops the
        // program with what went wrong, as SwiftData does.
        if let other = backing.link, other !== link, other.contextIsAlive {
            fatalError("GraphStore: insert of a \(type(of: model)) that another ModelContext manages; "
                       + "pass its persistentModelID and use model(for:) in this context instead")
        }
        guard let entity = schema.entity(for: type(of: model)) else {
            fatalError("GraphStore: \(ModelContextError.typeNotInSchema("\(type(of: model))")); add it to the ModelContainer's types")
        }
        registerLifecycleUndo(model, wasLive: false)
        if backing.state == .deleted {
            // Re-inserting an object deleted in this context undoes the delete: a committed
            // row's object is live again, an insert deleted before it was saved an insert again.
            if backing.context === self, deleted.removeValue(forKey: ObjectIdentifier(model)) == nil, backing.row > 0 {
                backing.state = .inserted
                backing.moveChanges(into: link, entity: entity)
                inserted.append(model)
                register(model, entity: entity.index, row: backing.row)
                noteInserted(model)
                scheduleAutosave()
            } else {
                deleted[ObjectIdentifier(model)] = nil
                backing.state = .persistent
                // Changes made before the delete are unsaved changes again.
                if backing.hasChangedAttributes || backing.hasPendingRelationships { markChanged(backing) }
            }
            return
        }
        // Initial values that differ per object (`= UUID()`) become this object's values now:
        // left unset, the save would write the schema's default — one value for every object.
        for (name, value) in model.persistentInitialValues() {
            if let attribute = entity.attribute(named: name), backing.changedValue(ofAttribute: attribute.index) == nil {
                backing.setChangedValue(value, ofAttribute: attribute.index)
            }
        }
        // Ephemeral values set before the insert stay the object's own, out of what is saved.
        for index in entity.ephemeralAttributes {
            guard let value = backing.changedValue(ofAttribute: index) else { continue }
            backing.ephemeralValues[index] = value
            backing.setChangedValue(nil, ofAttribute: index)
        }
        backing.context = self
        backing.entityIndex = entity.index
        let unmanagedRelationships = backing.takeOwnRelationshipChanges()
        backing.moveChanges(into: link, entity: entity)
        backing.row = graph.reserveRow(entity: entity.index)
        backing.state = .inserted
        scheduleAutosave()
        inserted.append(model)
        register(model, entity: entity.index, row: backing.row)
        noteInserted(model)
        // Relationships set while unmanaged: insert their targets and put the inverses in step.
        for (index, value) in unmanagedRelationships {
            switch value {
            case let .toOne(target): setToOne(target, at: index, of: model)
            case let .toMany(list): setToMany(list.base ?? [], at: index, of: model)
            }
        }
        // To-one relationships decoded by identifier.
        let unresolved = backing.unresolvedToOne
        backing.unresolvedToOne = [:]
        for (index, identifier) in unresolved.sorted(by: { $0.key < $1.key }) {
            if let target = self.existingModel(for: identifier) { setToOne(target, at: index, of: model) }
        }
    }

    /// Deletes an object, applying its relationships' delete rules (cascade deletes the related
    /// objects; nullify removes it from their inverse; deny is checked when saving).
    public func delete<T: PersistentModel>(_ model: T) {
        if let partitions { return partitions.context(of: model, in: schema).delete(model) }
        let entered = link.enterOrStop("delete")
        defer { link.leave(entered) }
        runPendingAutosave()
        deleteAny(model)
    }

    func deleteAny(_ model: any PersistentModel) {
        let backing = model.persistentBacking
        guard backing.context === self, backing.state != .deleted, let entity = backing.entity else { return }
        registerLifecycleUndo(model, wasLive: true)
        let id = ObjectIdentifier(model)
        if backing.state == .inserted {
            backing.takeBackChanges()
            inserted.removeAll { $0 === model }
            unregister(entity: entity.index, row: backing.row)
        } else {
            deleted[id] = model
        }
        changed.remove(backing)
        backing.state = .deleted
        scheduleAutosave()
        for relationship in entity.relationships {
            let targets: [any PersistentModel] = relationship.isToMany ? backing.toMany(at: relationship.index)
                : backing.toOne(at: relationship.index).map { [$0] } ?? []
            switch relationship.deleteRule {
            case .cascade:
                for target in targets { deleteAny(target) }
            case .nullify:
                if let inverse = inverseRelationship(of: relationship) {
                    for target in targets where target.persistentBacking.state != .deleted {
                        removeFromSide(target, inverse, member: model)
                    }
                }
            case .deny, .noAction:
                break
            }
        }
    }

    /// Deletes every object of `type` that matches `predicate` (all of them when nil).
    public func delete<T: PersistentModel>(model type: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        if let partitions { return try partitions.context(for: T.self, in: schema).delete(model: type, where: predicate) }
        let entered = try link.enter("delete(model:where:)")
        defer { link.leave(entered) }
        let descriptor = FetchDescriptor<T>(predicate: predicate)
        for model in try fetch(descriptor) { delete(model) }
    }

    /// Discards every unsaved change: inserted objects leave the context, changed and deleted
    /// ones return to their committed state.
    public func rollback() {
        if let partitions { return partitions.contexts.forEach { $0.rollback() } }
        let entered = link.enterOrStop("rollback")
        defer { link.leave(entered) }
        undoManager?.removeAllActions()
        for model in inserted {
            let backing = model.persistentBacking
            if let entity = backing.entity { unregister(entity: entity.index, row: backing.row) }
            backing.takeBackChanges()
            backing.context = nil
            backing.state = .unmanaged
            backing.row = 0
        }
        let touched = changedModels() + Array(deleted.values)
        inserted = []
        changed.removeAll(in: link.unsavedValues)
        link.unsavedValues.removeAll()
        forgetAllPendingUnique()
        deleted = [:]
        for model in touched {
            let backing = model.persistentBacking
            let names = backing.changedAttributes.compactMap { backing.entity?.attributes[$0].name }
                + backing.pendingRelationships.compactMap { backing.entity?.relationships[$0.key].name }
            backing.clearChanges()
            backing.state = .persistent
            for name in names { model.persistentPropertyDidChange(named: name) }
        }
    }

    /// Runs `body`, then saves; if `body` throws, rolls back and rethrows.
    public func transaction(block body: () throws -> Void) throws {
        let entered = try link.enter("transaction")
        defer { link.leave(entered) }
        transactionDepth += 1
        do {
            try body()
        } catch {
            transactionDepth -= 1
            rollback()
            throw error
        }
        transactionDepth -= 1
        try save()
    }

    /// GraphStore applies changes (inverses, delete rules) as they are made, so nothing is left
    /// to process; this ends the undo manager's automatic group, as in Core Data, and runs an
    /// autosave that came due while the context had no home to run it in.
    public func processPendingChanges() {
        if let partitions { return partitions.contexts.forEach { $0.processPendingChanges() } }
        let entered = link.enterOrStop("processPendingChanges")
        defer { link.leave(entered) }
        undoManager?.closeAutomaticGroup()
        runPendingAutosave()
    }

    /// Bookkeeping for an object that became an unsaved insert.
    func noteInserted(_ model: any PersistentModel) {
        // A new insert is listed under nothing yet (a delete unlists): listed, not moved.
        if pendingUniqueIsKept { listPendingUniqueValues(of: model.persistentBacking, changedOnly: false) }
    }
}

extension ModelContext {
    /// `changed` became non-empty or empty, or the merge policy changed: from now on, keep (or
    /// stop keeping and drop) other contexts' commits for the merge policy. `.localWins` never
    /// looks at them (this context's values are saved regardless), so it keeps none: with many
    /// writers, every commit would otherwise be queued for, and then discarded by, every other.
    private func editsChanged() {
        hasEdits = !changed.isEmpty
        link.setWantsCommits(hasEdits && mergePolicy != .localWins)
    }

    /// How many other contexts' commits wait for this context's merge policy (tests).
    var pendingMergeCount: Int { link.pendingMergeCount }

    /// Hands this context's own commit to its live queries.
    func notifyLiveQueries(_ summary: ChangeSummary) {
        link.notifyLiveQueriesOfOwnCommit(summary)
    }

    /// Applies the merge policy to unsaved edits that other contexts' saves touched since.
    func applyMergePolicy() throws {
        let summaries = link.takeInbox()
        // Only objects with unsaved edits can clash: look rows up among those, not the registry.
        guard !summaries.isEmpty, !changed.isEmpty else { return }
        var edited: [Int: [UInt64: any PersistentModel]] = [:]
        for backing in changedBackings() {
            guard let entity = backing.entity else { continue }
            edited[entity.index, default: [:]][backing.row] = Self.model(backing)
        }
        var conflicts: [(PersistentIdentifier, [String])] = []
        for summary in summaries {
            for (entity, rows) in summary.changes {
                guard let editedRows = edited[entity] else { continue }
                for (row, names) in rows {
                    guard let model = editedRows[row] else { continue }
                    let backing = model.persistentBacking
                    guard let description = backing.entity else { continue }
                    var clashing: [String] = []
                    for name in names.sorted() {
                        if let attribute = description.attribute(named: name), backing.changedValue(ofAttribute: attribute.index) != nil {
                            clashing.append(name)
                            if mergePolicy == .storeWins { backing.setChangedValue(nil, ofAttribute: attribute.index) }
                        } else if let relationship = description.relationship(named: name),
                                  case .toOne? = backing.pendingRelationship(at: relationship.index) {
                            clashing.append(name)
                            if mergePolicy == .storeWins { backing.setPendingRelationship(nil, at: relationship.index) }
                        }
                    }
                    guard !clashing.isEmpty else { continue }
                    switch mergePolicy {
                    case .localWins: break
                    case .storeWins:
                        for name in clashing { model.persistentPropertyDidChange(named: name) }
                        if !backing.hasChangedAttributes && !backing.hasPendingRelationships {
                            changed.remove(backing)
                            backing.clearChanges()
                        }
                    case .error:
                        conflicts.append((model.persistentModelID, clashing))
                    }
                }
            }
        }
        if let (model, properties) = conflicts.first { throw ModelContextError.mergeConflict(model: model, properties: properties) }
    }
}

/// What a save does with a property that another context saved after this context changed it
/// (to-many relationships always merge: both sides' additions and removals apply).
public enum MergePolicy: Sendable, Equatable {
    /// This context's value is saved over the other's (last writer wins). The default, as in SwiftData.
    case localWins
    /// The other context's saved value is kept; this context's edit of that property is discarded.
    case storeWins
    /// The save throws `ModelContextError.mergeConflict` naming the object and properties; a
    /// later save writes this context's values.
    case error
}

extension ModelContext: CustomReflectable {
    /// The context's unsaved counts and settings, for the debugger.
    public var customMirror: Mirror {
        Mirror(self, children: ["author": author as Any, "inserted": inserted.count, "changed": changed.count,
                                "deleted": deleted.count, "autosaveEnabled": autosaveEnabled], displayStyle: .class)
    }
}
