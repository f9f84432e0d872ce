import GraphStoreEngine
import Observation

/// What the engine needs of a model type. Declare models by subclassing `Model` from
/// GraphStoreMacrosFree, which implements all of this; the engine knows no concrete model.
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable {
    /// Creates an object with every property at its declared initial value (used to
    /// materialize stored objects; your own initialisers call it).
    init()
    /// The engine's state for this object (context, row, unsaved changes).
    var persistentBacking: ModelBacking { get }
    /// The same backing without a reference count: the engine's hot paths (materialising and
    /// freeing objects) use it while they hold the object, which keeps its backing alive. A
    /// getter returns its value retained, a retain and a release per object.
    var unretainedBacking: Unretained<ModelBacking> { get }
    /// The type's persistent properties, as declared.
    static func entityDeclaration() throws -> EntityDeclaration
    /// Called by the engine when it changes a property behind the object's back (a merged save,
    /// inverse upkeep, rollback, undo), so observers of that property hear of it.
    func persistentPropertyDidChange(named name: String)
    /// The same for another context's save, told from that context's thread: it may touch only
    /// what is safe from any thread (the Observation registrar), nothing else of the object.
    func committedPropertyDidChange(named name: String)
    /// This object's own initial values of the attributes whose declared initial value differs
    /// from object to object (`= UUID()`, `= Date()`), by attribute name. The engine records
    /// them when the object is inserted, so that what is saved is what the object showed, not
    /// the value the schema took from the type's first instance.
    func persistentInitialValues() -> [String: Value]
    /// The key path of the persistent property named `name`, when the type knows it (a model
    /// declared without macros learns each property's key path as it is used; history's
    /// `updatedAttributes` holds those it knows).
    static func keyPath(forPersistentProperty name: String) -> AnyKeyPath?
}

extension PersistentModel {
    /// The backing, passed unretained.
    public var unretainedBacking: Unretained<ModelBacking> { Unretained(persistentBacking) }
    /// No per-object initial values.
    public func persistentInitialValues() -> [String: Value] { [:] }
    /// Tells the object's observers, as `persistentPropertyDidChange(named:)` does.
    public func committedPropertyDidChange(named name: String) { persistentPropertyDidChange(named: name) }
    /// No key paths known.
    public static func keyPath(forPersistentProperty name: String) -> AnyKeyPath? { nil }

    /// The persistent property `keyPath` reads, by name (nil for anything else).
    public static func persistentPropertyName(for keyPath: AnyKeyPath) -> String? {
        (try? entityDeclaration())?.propertyName(keyPath)
    }
}

extension PersistentModel {
    /// The object's identifier: permanent once it is inserted into a context.
    public var persistentModelID: PersistentIdentifier { persistentBacking.identifier(for: self) }

    /// Identifiable's identity: the persistent identifier, unless the model declares its own
    /// `id` (`@Attribute var id = UUID()`), which then is just one of its attributes.
    public var id: PersistentIdentifier { persistentModelID }

    /// The context that manages the object, if it has been inserted or fetched.
    /// (With a container of several stores, the context the app made, not its store's own.)
    public var modelContext: ModelContext? { persistentBacking.link?.facade ?? persistentBacking.context }

    /// Whether the object has been deleted in its context (saved or not).
    public var isDeleted: Bool { persistentBacking.state == .deleted }

    /// Whether the object has unsaved changes.
    public var hasChanges: Bool {
        persistentBacking.link?.checkNoOtherThreadInside("hasChanges")
        return persistentBacking.state == .inserted || persistentBacking.hasChangedAttributes
            || persistentBacking.hasPendingRelationships
    }
}

/// SwiftData's key-path accessors (what its `@Model` expansion calls): here they read and write
/// through the property itself, so observation, undo and change tracking behave as for any
/// property write.
extension PersistentModel {
    /// The value of the property `key` reads (SwiftData's generated accessor).
    public func getValue<Value>(forKey key: KeyPath<Self, Value>) -> Value { self[keyPath: key] }

    /// Sets the property `key` names, as an assignment to it would (SwiftData's generated
    /// accessor). Stops the program when `key` is not settable.
    public func setValue<Value>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        guard let writable = key as? ReferenceWritableKeyPath<Self, Value> else {
            preconditionFailure("setValue(forKey:to:): \(key) of \(Self.self) is not a settable property")
        }
        self[keyPath: writable] = newValue
    }
}

/// `model` as a `T`, without a run-time cast when it is of that class itself (nearly always: a
/// fetch's objects, and a relationship's targets, are of their entity's class); in a function
/// not specialised for the app's models, `as? T` looks the type up at run time for every object.
@inlinable @inline(__always) package func downcast<T: PersistentModel>(_ model: any PersistentModel, to type: T.Type) -> T? {
    if Swift.type(of: model) == T.self { return unsafeDowncast(model as AnyObject, to: T.self) }
    return model as? T
}

/// Objects of class `T` made into a `[T]` as an `[AnyObject]`. In a function not specialised
/// for the app's models, a `[T]` literal looks `Array<T>`'s metadata up at run time on every
/// call (about as much work as the rest of a unique-key lookup's answer); `[AnyObject]`'s is
/// fixed. The two arrays have one layout: the standard library itself makes arrays of class
/// elements with `[AnyObject]`'s storage on Apple's platforms.
@inline(__always) func modelArray<T: PersistentModel>(_ objects: [AnyObject], of type: T.Type) -> [T] {
    unsafeBitCast(objects, to: [T].self)
}

/// A model object's backing (which is the object itself) as `T`, as `downcast` does.
@inlinable @inline(__always) package func downcast<T: PersistentModel>(_ backing: ModelBacking, to type: T.Type) -> T? {
    if Swift.type(of: backing) == T.self { return unsafeDowncast(backing, to: T.self) }
    return backing as? T
}
