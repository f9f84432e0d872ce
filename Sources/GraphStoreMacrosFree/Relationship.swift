import Observation

/// A relationship to other models, as in SwiftData: `@Relationship var origin: Airport?`
/// (to-one) or `@Relationship(deleteRule: .cascade, inverse: \Flight.origin) var flightsFrom: [Flight] = []`
/// (to-many, in the order members were added — an order that persists). The inverse is inferred
/// when each side has exactly one relationship to the other; otherwise declare it.
@propertyWrapper
public struct Relationship<Value: RelationshipValue>: RelationshipWrapper {
    // Only what differs per object; the rest of the declaration is recorded once per class
    // (DeclarationRecording), not carried by every object.
    @usableFromInline var slot: Int
    @usableFromInline let initialValue: Value

    @inlinable
    public init(wrappedValue: Value, deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
                originalName: String? = nil, inverse: PartialKeyPath<Value.Target>? = nil) {
        initialValue = wrappedValue
        slot = DeclarationRecording.slot(recording: RelationshipRecord<Value>(
            deleteRule: deleteRule, inverse: inverse, minimumCount: minimumModelCount, maximumCount: maximumModelCount,
            originalName: originalName))
    }

    /// Declared without an initial value: a to-one starts as nil, a to-many empty.
    @inlinable
    public init(deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
                originalName: String? = nil, inverse: PartialKeyPath<Value.Target>? = nil) {
        self.init(wrappedValue: Value.empty, deleteRule: deleteRule, minimumModelCount: minimumModelCount,
                  maximumModelCount: maximumModelCount, originalName: originalName, inverse: inverse)
    }

    @available(*, unavailable, message: "@Relationship is only available on Model subclasses")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    @inlinable
    public static subscript<M: Model>(
        _enclosingInstance instance: M,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<M, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<M, Self>
    ) -> Value {
        // As Attribute's: the key paths are only projected through.
        @inline(__always) get {
            guard let slot = ModelDiscovery.slot(of: instance, at: storageKeyPath) else { return instance[keyPath: storageKeyPath].initialValue }
            Model.noteAccess(instance, slot: slot, isRelationship: true)
            let backing = instance.persistentBacking
            if Value.isToMany { return Value.make(backing.toMany(at: slot)) }
            return Value.make(backing.toOne(at: slot).map { [$0] } ?? [])
        }
        @inline(__always) set {
            guard let slot = ModelDiscovery.slot(of: instance, at: storageKeyPath) else { return }
            let members = newValue.members
            let assign = {
                if Value.isToMany {
                    instance.persistentBacking.setToMany(members, at: slot, of: instance)
                } else {
                    instance.persistentBacking.setToOne(members.first, at: slot, of: instance)
                }
            }
            Model.noteMutation(instance, slot: slot, isRelationship: true, assign)
        }
    }
}

/// The types a relationship property can have: an optional model (to-one) or an array of
/// models (to-many).
public protocol RelationshipValue {
    associatedtype Target: Model
    static var isToMany: Bool { get }
    static var empty: Self { get }
    static func make(_ members: [any PersistentModel]) -> Self
    var members: [any PersistentModel] { get }
}

extension Optional: RelationshipValue where Wrapped: Model {
    public typealias Target = Wrapped
    public static var isToMany: Bool { false }
    public static var empty: Self { nil }
    public static func make(_ members: [any PersistentModel]) -> Self { members.first as? Wrapped }
    public var members: [any PersistentModel] { map { [$0] } ?? [] }
}

extension Array: RelationshipValue where Element: Model {
    public typealias Target = Element
    public static var isToMany: Bool { true }
    public static var empty: Self { [] }
    public static func make(_ members: [any PersistentModel]) -> Self { members.compactMap { $0 as? Element } }
    public var members: [any PersistentModel] { self }
}
