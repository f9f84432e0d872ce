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
/// Objects of a `PersistentModel` that is not a `Model` (no such deinit) are held weakly.
final class ObjectRegistry: @unchecked Sendable {
    /// Guards the tables, and the link's live queries and merge inbox (a merge takes one lock).
    let lock = WordLock()
    // Touched only under `lock`, so without run-time exclusivity checks (a thread-local access
    // set per access; three lookups, registrations and removals each paid two).
    // One table per entity, in memory of the registry's own (a table is not copyable).
    private let tables: UnsafeMutablePointer<RowTable<Entry>>
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
        for entity in 0..<entityCount { (tables + entity).initialize(to: RowTable()) }
    }

    deinit {
        tables.deinitialize(count: entityCount)
        tables.deallocate()
    }

    func register(_ model: any PersistentModel, entity: Int, row: UInt64) {
        let entry = Entry(model)
        lock.lock()
        if tables[entity].updateValue(entry, forKey: row) == nil { entryCount += 1 }
        lock.unlock()
    }

    func unregister(entity: Int, row: UInt64) {
        lock.lock()
        if tables[entity].removeValue(forKey: row) != nil { entryCount -= 1 }
        lock.unlock()
    }

    /// A freed object's entry goes, unless the row has been given to another object since.
    func remove(entity: Int, row: UInt64, ifObject object: ObjectIdentifier) {
        lock.lock()
        if let entry = tables[entity][row], entry.identity == object, entry.weak == nil {
            tables[entity].removeValue(forKey: row)
            entryCount -= 1
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

    /// Whether no object is registered; the caller holds `lock`.
    var isEmptyLocked: Bool { entryCount == 0 }

    /// Whether (entity, row) has an entry (its object may be being freed); the caller holds `lock`.
    func holdsLocked(entity: Int, row: UInt64) -> Bool {
        tables[entity][row] != nil
    }

    /// The live object for (entity, row); the caller holds `lock`.
    func objectLocked(entity: Int, row: UInt64) -> (any PersistentModel)? {
        tables[entity][row]?.retained()
    }
}

/// A registered object: held without a reference count (see ObjectRegistry), or weakly when it
/// does not take itself out. (`weak` is nil for a `Model`, so copying its entry retains nothing.)
private struct Entry {
    let identity: ObjectIdentifier
    unowned(unsafe) let object: any PersistentModel
    let weak: WeakModel?

    // Borrowed: an initialiser otherwise takes its argument retained, a retain and release
    // per registration.
    init(_ object: __shared any PersistentModel) {
        self.object = object
        identity = ObjectIdentifier(object)
        weak = object.unretainedBacking.with(\.unregistersWhenFreed) ? nil : WeakModel(object)
    }

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
