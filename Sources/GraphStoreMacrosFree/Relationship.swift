import Observation

/// A relationship to other models, as in SwiftData: `@Relationship var origin: Airport?`
/// (to-one), `@Relationship var origin: Airport` (a to-one that a save requires to be set), or `@Relationship(deleteRule: .cascade, inverse: \Flight.origin) var flightsFrom: [Flight] = []`
/// (to-many, in the order members were added — an order that persists). The inverse is inferred
/// when each side has exactly one relationship to the other; otherwise declare it.
@propertyWrapper
public struct Relationship<Value: RelationshipValue>: RelationshipWrapper {
    // Only the slot, which differs per object; the declaration is recorded once per class
    // (DeclarationRecording), not carried by every object. An initial value is not stored: a
    // relationship starts empty (a to-one nil, a to-many []), whatever it is declared with.
    @usableFromInline var rawSlot: Int32

    /// A relationship to one model (`Airport?`) or many (`[Flight]`): `deleteRule` says what
    /// deleting this object does to its targets, the counts bound a to-many at save, `originalName`
    /// keeps the rows of a renamed property, and `inverse` names the target's property that mirrors
    /// this one (kept in step by the context).
    @inlinable
    public init(wrappedValue: Value, deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
                originalName: String? = nil, inverse: @autoclosure () -> AnyKeyPath? = nil) {
        self.init(deleteRule: deleteRule, minimumModelCount: minimumModelCount, maximumModelCount: maximumModelCount,
                  originalName: originalName, inverse: inverse())
    }

    /// Declared without an initial value: a to-one starts as nil, a to-many empty, and a
    /// non-optional to-one unset (a save requires it set).
    // The inverse is an autoclosure, evaluated only when the class is recorded: a key path
    // made (and released) for every object made otherwise.
    @inlinable
    public init(deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = nil, maximumModelCount: Int? = nil,
                originalName: String? = nil, inverse: @autoclosure () -> AnyKeyPath? = nil) {
        rawSlot = DeclarationRecording.isRecording
            ? Self.recordedSlot(deleteRule: deleteRule, inverse: inverse(), minimumCount: minimumModelCount, maximumCount: maximumModelCount,
                                originalName: originalName)
            : -1
    }

    // Out of line, as Attribute's: an object's initialiser keeps only a test per wrapper.
    @usableFromInline @inline(never)
    static func recordedSlot(deleteRule: DeleteRule, inverse: AnyKeyPath?, minimumCount: Int?, maximumCount: Int?, originalName: String?) -> Int32 {
        DeclarationRecording.slot(recording: RelationshipRecord<Value>(
            deleteRule: deleteRule, inverse: inverse, minimumCount: minimumCount, maximumCount: maximumCount, originalName: originalName))
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
            guard let slot = ModelDiscovery.slot(of: instance, at: storageKeyPath) else {
                return Value._emptyRelationship ?? Value._relationshipPlaceholder()
            }
            Model.noteAccess(instance, slot: slot, isRelationship: true)
            let backing = instance.persistentBacking
            if Value._isToManyRelationship { return Value._makeRelationship(backing.toMany(at: slot)) }
            return Value._makeRelationship(toOne: backing.toOne(at: slot))
        }
        @inline(__always) set {
            guard let slot = ModelDiscovery.slot(of: instance, at: storageKeyPath) else { return }
            if Value._isToManyRelationship {
                let members = newValue._relationshipMembers
                Model.noteMutation(instance, slot: slot, isRelationship: true) {
                    instance.persistentBacking.setToMany(members, at: slot, of: instance)
                }
            } else {
                // A to-one's target as it is: an array made for it would be allocated and freed
                // on every assignment (an import sets three a flight).
                let target = newValue._toOneMember
                Model.noteMutation(instance, slot: slot, isRelationship: true) {
                    instance.persistentBacking.setToOne(target, at: slot, of: instance)
                }
            }
        }
    }
}

/// The types a relationship property can have: an optional model (to-one), a model (a to-one
/// that must be set before a save), or an array of models (to-many).
public protocol RelationshipValue {
    /// The model type at the other end.
    static var _relationshipTarget: Model.Type { get }
    static var _isToManyRelationship: Bool { get }
    /// False for a non-optional to-one: a save refuses an object whose relationship is not set.
    static var _isOptionalRelationship: Bool { get }
    /// The value of a relationship declared without one: nil when there is none (non-optional).
    static var _emptyRelationship: Self? { get }
    /// What an object read before it has its slots gets (a discovery prototype, asked which
    /// property a key path reads): the empty value, or a detached object.
    static func _relationshipPlaceholder() -> Self
    static func _makeRelationship(_ members: [any PersistentModel]) -> Self
    /// A to-one's value from its target, if any (no array made per read).
    static func _makeRelationship(toOne member: (any PersistentModel)?) -> Self
    var _relationshipMembers: [any PersistentModel] { get }
    /// A to-one's target, if any (a to-many's first member).
    var _toOneMember: (any PersistentModel)? { get }
}

extension Optional: RelationshipValue where Wrapped: Model {
    public static var _relationshipTarget: Model.Type { Wrapped.self }
    public static var _isToManyRelationship: Bool { false }
    public static var _isOptionalRelationship: Bool { true }
    public static var _emptyRelationship: Self? { .some(nil) }
    public static func _relationshipPlaceholder() -> Self { nil }
    public static func _makeRelationship(_ members: [any PersistentModel]) -> Self { members.first as? Wrapped }
    public static func _makeRelationship(toOne member: (any PersistentModel)?) -> Self {
        guard let member else { return nil }
        return downcast(member, to: Wrapped.self)
    }
    public var _relationshipMembers: [any PersistentModel] { map { [$0] } ?? [] }
    public var _toOneMember: (any PersistentModel)? {
        // A plain conditional: Optional.map's closure costs a generic metadata lookup a call.
        guard let self else { return nil }
        return self
    }
}

extension Array: RelationshipValue where Element: Model {
    public static var _relationshipTarget: Model.Type { Element.self }
    public static var _isToManyRelationship: Bool { true }
    public static var _isOptionalRelationship: Bool { true }
    public static var _emptyRelationship: Self? { [] }
    public static func _relationshipPlaceholder() -> Self { [] }
    public static func _makeRelationship(_ members: [any PersistentModel]) -> Self { members.compactMap { $0 as? Element } }
    public static func _makeRelationship(toOne member: (any PersistentModel)?) -> Self { _makeRelationship(member.map { [$0] } ?? []) }
    public var _relationshipMembers: [any PersistentModel] { self }
    public var _toOneMember: (any PersistentModel)? { first }
}

/// `@Relationship var origin: Airport`, as SwiftData models often declare a to-one: it has no
/// empty value, so a save refuses an object whose relationship is not set (a relationship count
/// error naming it), and reading it before it is set stops with a message naming the type,
/// as SwiftData's does. Declare it optional when it may be empty.
extension Model: RelationshipValue {
    public static var _relationshipTarget: Model.Type { self }
    public static var _isToManyRelationship: Bool { false }
    public static var _isOptionalRelationship: Bool { false }
    public static var _emptyRelationship: Self? { nil }
    public static func _relationshipPlaceholder() -> Self { self.init() }
    public static func _makeRelationship(_ members: [any PersistentModel]) -> Self { _makeRelationship(toOne: members.first) }
    public static func _makeRelationship(toOne member: (any PersistentModel)?) -> Self {
        guard let member = member.flatMap({ downcast($0, to: Self.self) }) else {
            // A predicate or sort reading an unsaved object goes on (see evaluatingOnObjects).
            if isEvaluatingOnObjects { return _relationshipPlaceholder() }
            fatalError("A non-optional relationship to \(Self.self) was read before it was set (declare it `\(Self.self)?` if it may be empty)")
        }
        return member
    }
    public var _relationshipMembers: [any PersistentModel] { [self] }
    public var _toOneMember: (any PersistentModel)? { self }
}
