import Foundation
import Observation
import Synchronization

/// The base class of every model. Subclass it with a `final class`, declare persistent
/// properties with `@Attribute` and `@Relationship` (each with an initial value), and use
/// `@Transient` for anything that should not be stored:
///
///     final class Airport: Model {
///         @Attribute(.unique) var icao: String = ""
///         @Attribute var name: String = ""
///         @Relationship(inverse: \Flight.origin) var flightsFrom: [Flight] = []
///
///         convenience init(icao: String) {
///             self.init()
///             self.icao = icao
///         }
///     }
///
/// Write your own initialisers as `convenience` ones calling `self.init()`; a designated
/// initialiser also needs `required init() { super.init() }`. Models are Observable (every
/// persistent property), Identifiable by their persistent identifier (a model may declare its own
/// `id` attribute all the same), Hashable by identity,
/// and Codable through their schema.
///
/// A model object is its own backing (`ModelBacking` is the superclass): one allocation per
/// object, and one set of reference counts.
open class Model: ModelBacking, PersistentModel, Codable {
    /// The object is its own backing.
    public final var persistentBacking: ModelBacking { self }
    /// The object itself, unretained (see `PersistentModel.unretainedBacking`).
    public final var unretainedBacking: Unretained<ModelBacking> { Unretained(self) }
    /// The object's Observation registrar (a retained `RegistrarBox`), or 0 until its first read
    /// under observation tracking (ObservationProbe): nothing can observe the object before that,
    /// so until then reads and writes skip Observation, and no registrar is made or freed.
    /// Atomic: another context's save notifies observers from its own thread.
    @usableFromInline final let registrarBox = Atomic<UInt>(0)
    /// Set on a type's prototype while schema discovery asks which property a key path reads.
    @usableFromInline @exclusivity(unchecked) final var accessRecorder: AccessRecorder?
    /// The class's discovery facts, cached on first property access.
    // These three are read or written on every property access; run-time exclusivity checks
    // (a thread-local access set per access) cost more than the accesses. They are only ever
    // touched in single, non-overlapping reads and writes.
    /// Unretained: discovery keeps every class's metadata for good (ModelDiscovery.classes), and
    /// a strong reference here was a retain and a release per object made.
    @usableFromInline @exclusivity(unchecked) final unowned(unsafe) var classMetadata: ClassMetadata?
    /// Its attribute coders by slot, unretained (see ModelDiscovery.decode).
    @usableFromInline @exclusivity(unchecked) final var attributeCoderTable: UnsafeMutablePointer<UnsafeMutableRawPointer?>?

    /// An object with every property at its declared initial value, in no context until inserted.
    public required override init() {
        super.init(unregistersWhenFreed: true)
        // Every wrapper its slot (and the object its class's facts), when the class is known;
        // otherwise the first access does it (ModelDiscovery.fillSlots). Not while this thread
        // records a discovery: its objects' wrappers keep their tokens.
        guard let metadata = ModelDiscovery.knownMetadata(for: type(of: self)), !DeclarationRecording.isRecordingOnThisThread else { return }
        metadata._withUnsafeGuaranteedRef { $0.prepare(self) }
    }

    deinit {
        // The context's registry holds this object without retaining it (ObjectRegistry).
        modelWillBeFreed(ObjectIdentifier(self))
        let box = registrarBox.load(ordering: .acquiring)
        if box != 0 { Unmanaged<RegistrarBox>.fromOpaque(UnsafeRawPointer(bitPattern: box)!).release() }
    }

    /// Objects are equal when they are the same object.
    public static func == (lhs: Model, rhs: Model) -> Bool { lhs === rhs }
    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The key path of the persistent property `name`, once the app has passed it to GraphStore
    /// (a predicate, a sort, a unique lookup, a tombstone subscript): a model declared without
    /// macros has no table of its key paths (see `DefaultHistoryUpdate`).
    public class func keyPath(forPersistentProperty name: String) -> AnyKeyPath? {
        ModelDiscovery.metadata(for: self).keyPath(forProperty: name)
    }

    /// The entity's name in stores written before the class was renamed (override to rename
    /// a model without losing its rows: `override class var originalName: String? { "Plane" }`).
    open class var originalName: String? { nil }

    /// Uniqueness and indexes over one or more properties: SwiftData's `#Unique` and `#Index`
    /// (override: `[Schema.Unique<Trip>([\.name, \.startDate])]`).
    open class var constraints: [any SchemaConstraint] { [] }

    /// The class's persistent properties, found by reading its property wrappers, with
    /// `originalName` and `constraints`.
    open class func entityDeclaration() throws -> EntityDeclaration {
        var declaration = try ModelDiscovery.declaration(for: self)
        declaration.originalName = originalName
        declaration.constraints = constraints
        return declaration
    }

    /// Tells observers of the object's property `name` that it changed (nothing to do until one
    /// observes).
    public func persistentPropertyDidChange(named name: String) {
        // Without a registrar nothing observes the object.
        guard registrarBox.load(ordering: .acquiring) != 0 else { return }
        ModelDiscovery.metadata(for: type(of: self)).notify(self, property: name)
    }

    /// The same, for a change another context saved: only the Observation registrar is touched,
    /// which is safe from any thread.
    public func committedPropertyDidChange(named name: String) {
        // From another thread: the registrar (once made) is safe from any thread.
        persistentPropertyDidChange(named: name)
    }

    /// The object's own values of the attributes whose initial value differs from object to
    /// object (`= UUID()`, `= Date()`), by attribute name: evaluated now, and kept, for each the
    /// object has not read or been given yet.
    public func persistentInitialValues() -> [String: Value] {
        let metadata = ModelDiscovery.metadata(for: type(of: self))
        return metadata.perInstanceSlots.isEmpty ? [:] : metadata.ownInitialValues(of: self)
    }

    // MARK: Codable through the schema

    /// An object decoded from its attributes by name and its to-one relationships as identifiers (resolved when it is inserted).
    public required convenience init(from decoder: any Decoder) throws {
        self.init()
        try ModelCoding.decode(self, from: decoder)
    }

    /// Encodes the object's attributes by name, its to-one relationships as identifiers, and its own identifier once it has one.
    open func encode(to encoder: any Encoder) throws {
        try ModelCoding.encode(self, to: encoder)
    }
}

/// Records which property a key path read on a prototype (whose wrappers hold recording tokens).
@usableFromInline
final class AccessRecorder {
    /// The last property read, and how many reads there were.
    private(set) var name: String?
    private(set) var reads = 0
    private let names: [Int: String]
    /// The class's coders by token, for the initial value a read returns (the class's own).
    private let coders: [Int: AnyAttributeCoder]

    init(names: [Int: String], coders: [Int: AnyAttributeCoder]) {
        self.names = names
        self.coders = coders
    }

    func noteRead(token: Int) {
        name = names[token]
        reads += 1
    }

    func coder(forToken token: Int) -> AnyAttributeCoder? { coders[token] }
}

// MARK: Observation

extension Model {
    /// Records a read of the property at `slot` with Observation, if it is tracking this thread's
    /// reads (the registrar is made by the first such read).
    @inlinable @inline(__always)
    static func noteAccess(_ instance: Model, slot: Int, isRelationship: Bool) {
        if instance.registrarBox.load(ordering: .acquiring) != 0 || ObservationProbe.isTracking() {
            instance.noteObservedAccess(ObservationKey.of(slot: slot, isRelationship: isRelationship))
        }
    }

    /// Runs `mutation` as a change of the property at `slot` that observers hear of (directly,
    /// when the object has no registrar and so no observers).
    @inlinable @inline(__always)
    static func noteMutation<T>(_ instance: Model, slot: Int, isRelationship: Bool, _ mutation: () -> T) -> T {
        let box = instance.registrarBox.load(ordering: .acquiring)
        guard box != 0 else { return mutation() }
        let key = ObservationKey.of(slot: slot, isRelationship: isRelationship)
        return RegistrarBox.at(box) { $0.withMutation(of: instance, keyPath: key, mutation) }
    }

    @usableFromInline
    final func noteObservedAccess(_ key: KeyPath<Model, Int>) {
        let box = registrarBox.load(ordering: .acquiring)
        let registrar = box != 0 ? RegistrarBox.at(box) { $0 } : makeRegistrar()
        registrar.access(self, keyPath: key)
    }

    /// The registrar, made now unless another thread made it first.
    @usableFromInline
    final func makeRegistrar() -> ObservationRegistrar {
        let made = RegistrarBox()
        let word = UInt(bitPattern: Unmanaged.passRetained(made).toOpaque())
        let (exchanged, existing) = registrarBox.compareExchange(expected: 0, desired: word, ordering: .acquiringAndReleasing)
        guard exchanged else {
            Unmanaged.passUnretained(made).release()
            return RegistrarBox.at(existing) { $0 }
        }
        return made.registrar
    }
}

/// A model's registrar, in a class so that a word can hold it (Model.registrarBox).
@usableFromInline
final class RegistrarBox {
    @usableFromInline let registrar = ObservationRegistrar()

    @usableFromInline init() {}

    /// `body` with the registrar of the box at `word`, which its model keeps alive.
    @inlinable @inline(__always)
    static func at<T>(_ word: UInt, _ body: (ObservationRegistrar) -> T) -> T {
        Unmanaged<RegistrarBox>.fromOpaque(UnsafeRawPointer(bitPattern: word)!)._withUnsafeGuaranteedRef { body($0.registrar) }
    }
}

/// The key Observation knows a persistent property by: a key path naming the property's slot
/// (`\Model[observationKey: n]`), equal for equal slots. The accessors' own key paths would
/// name it too, but an accessor that passes its key paths anywhere makes them on every access.
@usableFromInline
enum ObservationKey {
    // Key paths are immutable once made.
    nonisolated(unsafe) private static let made: [KeyPath<Model, Int>] = (0..<256).map { \Model[observationKey: $0] }

    @usableFromInline
    static func of(slot: Int, isRelationship: Bool) -> KeyPath<Model, Int> {
        // Relationships after attributes: 0, 2, 4… and 1, 3, 5…
        let key = 2 * slot + (isRelationship ? 1 : 0)
        return key < made.count ? made[key] : \Model[observationKey: key]
    }
}

extension Model {
    /// What an ObservationKey's key path reads (never read: only its identity matters).
    final subscript(observationKey key: Int) -> Int { key }
}
