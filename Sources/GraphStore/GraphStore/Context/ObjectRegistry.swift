import CSwiftRuntime
import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
import Synchronization
@_spi(GraphStoreInternals) import GraphStoreGraph

/// A context's identity map: the one object it has handed out for each (entity, row).
///
/// Objects are held without a reference count and take themselves out when they are freed
/// (`Model`'s deinit, through `ModelBacking.modelWillBeFreed`). A weak reference would do the
/// same, but forming one gives the object a side table: an allocation per object, and every
/// later retain and release of it taking the runtime's slow path.
/// An entry is read only under `lock`, and turned into a reference only by `swift_tryRetain`,
/// which refuses an object whose deinit has begun; its memory cannot be freed meanwhile,
/// because its deinit waits for `lock` to take the entry out.
///
/// An entry is one word in its entity's `RowTable`: the object's address, its type being the
/// entity's (one per entity, kept beside the table). Objects of a `PersistentModel` that is not
/// a `Model` (no such deinit), or of another type than the entity's first, are entered through
/// a `BoxedEntry` instead (its address with the low bit set), which holds them weakly or
/// unretained as they need.
final class ObjectRegistry: @unchecked Sendable {
    /// Guards the tables, and the link's live queries and merge inbox (a merge takes one lock).
    let lock = WordLock()

    /// One entity's entries, and the type its plain entries' objects have.
    private struct EntityEntries: ~Copyable {
        var rows = RowTable()
        var modelType: (any PersistentModel.Type)?
    }

    // Touched only under `lock`, so without run-time exclusivity checks (a thread-local access
    // set per access; three lookups, registrations and removals each paid two).
    // One table per entity, in memory of the registry's own (a table is not copyable).
    private let tables: UnsafeMutablePointer<EntityEntries>
    private let entityCount: Int
    /// Entries in all tables (kept, so that a merge can skip an empty registry for free, and the
    /// owner a lookup in one). Written only under `lock`; read by the owner without it (see
    /// `mayHoldAny`), so an atomic read and written with relaxed loads and stores (plain moves).
    private let entryCountAtomic = Atomic<Int>(0)
    private var entryCount: Int {
        get { entryCountAtomic.load(ordering: .relaxed) }
        set { entryCountAtomic.store(newValue, ordering: .relaxed) }
    }

    init(entityCount: Int) {
        self.entityCount = entityCount
        tables = .allocate(capacity: entityCount)
        for entity in 0..<entityCount { (tables + entity).initialize(to: EntityEntries()) }
    }

    deinit {
        for entity in 0..<entityCount { tables[entity].rows.forEach { Self.release($1) } }
        tables.deinitialize(count: entityCount)
        tables.deallocate()
    }

    func register(_ model: any PersistentModel, entity: Int, row: UInt64) {
        lock.lock()
        let word = entryWord(model, entity: entity)
        let old = tables[entity].rows.set(word, for: row)
        if old == 0 { entryCount += 1 } else { Self.release(old) }
        lock.unlock()
    }

    func unregister(entity: Int, row: UInt64) {
        lock.lock()
        let old = tables[entity].rows.remove(row)
        if old != 0 {
            entryCount -= 1
            Self.release(old)
        }
        lock.unlock()
    }

    /// A freed object's entry goes, unless the row has been given to another object since.
    func remove(entity: Int, row: UInt64, ifObject object: ObjectIdentifier) {
        lock.lock()
        let word = tables[entity].rows[row]
        if word != 0, word == UInt(bitPattern: object) || Self.boxed(word)?.isUnretained(object) == true {
            tables[entity].rows.remove(row)
            entryCount -= 1
            Self.release(word)
        }
        lock.unlock()
    }

    /// Whether any object may be registered, asked by the context's owner without the lock:
    /// only the owner registers objects (other threads only take freed ones out), so when it
    /// reads no entries there are none. A point lookup's first registry lock, skipped.
    func mayHoldAny() -> Bool { entryCount != 0 }

    func object(entity: Int, row: UInt64) -> (any PersistentModel)? {
        lock.lock()
        defer { lock.unlock() }
        return objectLocked(entity: entity, row: row)
    }

    /// How many entries there are (tests: freed objects leave).
    var count: Int { lock.withLock { entryCount } }

    /// How many pages of rows the tables hold (tests: emptied pages are given back).
    var pageCount: Int { lock.withLock { (0..<entityCount).reduce(0) { $0 + tables[$1].rows.pageCount } } }

    /// Whether no object is registered; the caller holds `lock`.
    var isEmptyLocked: Bool { entryCount == 0 }

    /// Whether (entity, row) has an entry (its object may be being freed); the caller holds `lock`.
    func holdsLocked(entity: Int, row: UInt64) -> Bool {
        tables[entity].rows[row] != 0
    }

    /// The live object for (entity, row); the caller holds `lock`.
    func objectLocked(entity: Int, row: UInt64) -> (any PersistentModel)? {
        let word = tables[entity].rows[row]
        guard word != 0 else { return nil }
        if let box = Self.boxed(word) { return box.retained() }
        let address = UnsafeMutableRawPointer(bitPattern: word)!
        guard graphstore_try_retain(address) else { return nil }
        return Self.adopt(address, as: tables[entity].modelType!)
    }

    /// The object at `address` as a `T`, taking over the retain `swift_tryRetain` took.
    private static func adopt<T: PersistentModel>(_ address: UnsafeMutableRawPointer, as type: T.Type) -> any PersistentModel {
        Unretained<T>(address: address).adoptingRetainTakenOutsideSwift()
    }

    /// The word that enters `model`: its address when it takes itself out when freed and has
    /// the entity's type (the first such object gives the entity its type); otherwise a box.
    private func entryWord(_ model: any PersistentModel, entity: Int) -> UInt {
        if model.unretainedBacking.with(\.unregistersWhenFreed) {
            let type = Swift.type(of: model)
            if tables[entity].modelType == nil { tables[entity].modelType = type }
            if ObjectIdentifier(tables[entity].modelType!) == ObjectIdentifier(type) { return UInt(bitPattern: ObjectIdentifier(model)) }
        }
        return UInt(bitPattern: Unretained.retainedAddress(of: BoxedEntry(model))) | 1
    }

    /// A word's box, if it has one (the retain the registry holds stays with the registry).
    private static func box(_ word: UInt) -> Unretained<BoxedEntry>? {
        guard word & 1 != 0 else { return nil }
        return Unretained<BoxedEntry>(address: UnsafeRawPointer(bitPattern: word & ~1)!)
    }

    private static func boxed(_ word: UInt) -> BoxedEntry? { box(word)?.object }

    /// Lets go of a word's box, if it has one.
    private static func release(_ word: UInt) { box(word)?.releaseRetainTakenOutsideSwift() }
}

/// An entry that is not a plain address: an object held weakly (it does not take itself out
/// when freed), or held unretained but of another type than its entity's plain entries.
private final class BoxedEntry {
    let identity: ObjectIdentifier
    unowned(unsafe) let object: any PersistentModel
    let weak: WeakModel?

    init(_ object: any PersistentModel) {
        self.object = object
        identity = ObjectIdentifier(object)
        weak = object.unretainedBacking.with(\.unregistersWhenFreed) ? nil : WeakModel(object)
    }

    /// Whether this is `object`'s entry, held unretained (so its deinit takes it out).
    func isUnretained(_ object: ObjectIdentifier) -> Bool { identity == object && weak == nil }

    /// A strong reference, unless the object's deinit has begun.
    func retained() -> (any PersistentModel)? {
        if let weak { return weak.object }
        let pointer = UnsafeMutableRawPointer(bitPattern: UInt(bitPattern: identity))!
        guard graphstore_try_retain(pointer) else { return nil }
        let model = object  // a second retain; the one tryRetain took is given back
        Unretained<AnyObject>(address: pointer).releaseRetainTakenOutsideSwift()
        return model
    }
}

/// A weak reference to an object that does not take itself out of the registry.
final class WeakModel {
    weak var object: (any PersistentModel)?
    init(_ object: any PersistentModel) { self.object = object }
}
