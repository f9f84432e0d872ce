import Foundation
import Observation

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
/// persistent property), Identifiable by their persistent identifier, Hashable by identity,
/// and Codable through their schema.
open class Model: PersistentModel, Codable {
    public final let persistentBacking = ModelBacking(unregistersWhenFreed: true)
    @usableFromInline final let observationRegistrar = ObservationRegistrar()
    /// Set by the first read of a persistent property. Observation only ever tracks what was
    /// read, so until then nobody can observe this object and writes skip the registrar (whose
    /// bookkeeping was a third of a bulk insert's time).
    @usableFromInline @exclusivity(unchecked) final var mayBeObserved = false
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

    public required init() {}

    deinit {
        // The context's registry holds this object without retaining it (ObjectRegistry).
        persistentBacking.modelWillBeFreed(ObjectIdentifier(self))
    }

    public static func == (lhs: Model, rhs: Model) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var id: PersistentIdentifier { persistentModelID }

    /// The entity's name in stores written before the class was renamed (override to rename
    /// a model without losing its rows: `override class var originalName: String? { "Plane" }`).
    open class var originalName: String? { nil }

    open class func entityDeclaration() throws -> EntityDeclaration {
        var declaration = try ModelDiscovery.declaration(for: self)
        declaration.originalName = originalName
        return declaration
    }

    public func persistentPropertyDidChange(named name: String) {
        // Observation tracks only what was read: an object nobody has read has no observers.
        guard mayBeObserved else { return }
        ModelDiscovery.metadata(for: type(of: self)).notify(self, property: name)
    }

    public func committedPropertyDidChange(named name: String) {
        // From another thread: `mayBeObserved` is the owner's (written by every read), so it is
        // not consulted here; the registrar is safe from any thread.
        ModelDiscovery.metadata(for: type(of: self)).notify(self, property: name)
    }

    public func persistentInitialValues() -> [String: Value] {
        let perInstance = ModelDiscovery.metadata(for: type(of: self)).perInstanceAttributes
        return perInstance.isEmpty ? [:] : ModelDiscovery.storedInitialValues(of: self, only: perInstance)
    }

    // MARK: Codable through the schema

    public required convenience init(from decoder: any Decoder) throws {
        self.init()
        try ModelCoding.decode(self, from: decoder)
    }

    open func encode(to encoder: any Encoder) throws {
        try ModelCoding.encode(self, to: encoder)
    }
}

/// Records which property a key path read on a prototype.
@usableFromInline
final class AccessRecorder {
    @usableFromInline var name: String?
}
