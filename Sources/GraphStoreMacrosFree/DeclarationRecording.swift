import CSwiftRuntime
import Foundation
import GraphStore

/// How a property wrapper's declaration (coder, options, inverse, original name…) reaches schema
/// discovery without every object carrying it.
///
/// A wrapper keeps only its slot. What the declaration says, its initial value expression
/// included, is the same for every object of a class, so it is recorded once, when
/// discovery makes the class's prototypes inside a *recording session*: each wrapper made on the
/// recording thread hands its record to the session and keeps the record's token (a negative
/// number) in its slot, which discovery then reads back through reflection. Outside a session a
/// wrapper's initialiser only reads one relaxed atomic, and an object is made and freed without
/// releasing a dozen closures and strings per property.
@usableFromInline
enum DeclarationRecording {
    /// Slots at or below this are tokens: record `firstToken - slot` of the running session.
    /// Far from any number a model is likely to store, since SlotLocator looks for tokens in a
    /// prototype's memory (it confirms what it finds, but each false find costs a reflection).
    /// (Slots are 32 bits in objects.)
    static let firstToken = -(1 << 30)

    /// Guards `session`; `sessionLock` is held for a whole session, so sessions run one at a time.
    private static let lock = NSLock()
    private static let sessionLock = NSLock()
    nonisolated(unsafe) private static var session: (thread: pthread_t, records: [Any])?

    /// Whether any thread is recording (a wrapper made while none is gets no token).
    @inlinable @inline(__always)
    static var isRecording: Bool { graphstore_recording_sessions_running() }

    /// The slot a new wrapper starts with: a token when this thread is recording, else -1.
    @inlinable @inline(__always)
    static func slot(recording record: @autoclosure () -> Any) -> Int32 {
        graphstore_recording_sessions_running() ? token(for: record()) : -1
    }

    @usableFromInline
    static func token(for record: Any) -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        guard var current = session, pthread_equal(current.thread, pthread_self()) != 0 else { return -1 }
        current.records.append(record)
        session = current
        return Int32(firstToken - (current.records.count - 1))
    }

    /// Whether this thread is running a recording session (discovering a class).
    static var isRecordingOnThisThread: Bool {
        guard graphstore_recording_sessions_running() else { return false }
        return lock.withLock { session.map { pthread_equal($0.thread, pthread_self()) != 0 } ?? false }
    }

    /// Runs `body` (which makes prototypes) as this thread's recording session and returns what
    /// its wrappers recorded, by token. Sessions do not nest (`body` must not start another).
    static func record<T>(_ body: () throws -> T) rethrows -> (result: T, records: [Any]) {
        sessionLock.lock()
        defer { sessionLock.unlock() }
        lock.withLock { session = (pthread_self(), []) }
        graphstore_recording_sessions_add(1)
        defer {
            graphstore_recording_sessions_add(-1)
            lock.withLock { session = nil }
        }
        let result = try body()
        return (result, lock.withLock { session?.records ?? [] })
    }

    /// The record of `token` in this thread's running session, if it is recording.
    static func runningRecord(forToken token: Int) -> Any? {
        guard graphstore_recording_sessions_running() else { return nil }
        return lock.withLock {
            guard let current = session, pthread_equal(current.thread, pthread_self()) != 0 else { return nil }
            return record(forSlot: token, in: current.records)
        }
    }

    /// The record a wrapper's slot refers to, when it is a token of `records`.
    static func record(forSlot slot: Int, in records: [Any]) -> Any? {
        let index = firstToken - slot
        return slot <= firstToken && index < records.count ? records[index] : nil
    }
}

/// What `@Attribute` declares: its initial value (the expression, evaluated when needed), coder,
/// options and original name.
@usableFromInline
struct AttributeRecord<Value>: DeclaredAttribute {
    let initialValue: () -> Value
    let coder: ValueCoder<Value>?
    let options: AttributeOptions
    let originalName: String?

    @usableFromInline
    init(initialValue: @escaping () -> Value, coder: ValueCoder<Value>?, options: AttributeOptions, originalName: String?) {
        self.initialValue = initialValue
        // A transformable attribute is stored as its transformer's Data, whatever its type offers.
        self.coder = options.contains(.transformable) ? .transformed(by: options) : coder
        self.options = options
        self.originalName = originalName
    }

    func declaration(name: String, entity: String) throws -> (AttributeDeclaration, AnyAttributeCoder) {
        if let model = modelType(heldBy: Value.self) {
            throw SchemaError.modelAsAttribute(entity: entity, property: name, model: "\(model)")
        }
        guard let coder else { throw SchemaError.unsupportedType(entity: entity, property: name, type: "\(Value.self)") }
        // One evaluation is the class's: the schema's default and what an unset property reads.
        let initial = initialValue()
        let defaultValue: GraphStore.Value
        do { defaultValue = try coder.encode(initial) } catch {
            throw SchemaError.unsupportedType(entity: entity, property: name, type: "\(Value.self) (its initial value does not encode: \(error))")
        }
        let declaration = AttributeDeclaration(name: name, type: coder.type, options: options, originalName: originalName, defaultValue: defaultValue)
        return (declaration, AttributeCoder(coder, initialValue: initialValue, defaultValue: initial))
    }
}

/// The model type a property type holds — the type itself, an optional of it, or a collection
/// of it — or nil.
private func modelType(heldBy type: Any.Type) -> (any PersistentModel.Type)? {
    if let model = type as? any PersistentModel.Type { return model }
    if let optional = type as? any AnyOptional.Type { return modelType(heldBy: optional.wrappedType) }
    if let collection = type as? any ElementTyped.Type { return modelType(heldBy: collection.elementType) }
    return nil
}

/// A collection type's element type, for telling a property that holds model objects.
private protocol ElementTyped { static var elementType: Any.Type { get } }
extension Array: ElementTyped { static var elementType: Any.Type { Element.self } }
extension Set: ElementTyped { static var elementType: Any.Type { Element.self } }
extension ContiguousArray: ElementTyped { static var elementType: Any.Type { Element.self } }

protocol DeclaredAttribute {
    /// The attribute's declaration, and the coder its class keeps for its objects' accessors.
    func declaration(name: String, entity: String) throws -> (AttributeDeclaration, AnyAttributeCoder)
}

/// What `@Relationship` declares (a relationship keeps no initial value: it starts empty).
@usableFromInline
struct RelationshipRecord<Value: RelationshipValue>: DeclaredRelationship {
    let deleteRule: DeleteRule
    let inverse: AnyKeyPath?
    let minimumCount: Int?
    let maximumCount: Int?
    let originalName: String?

    @usableFromInline
    init(deleteRule: DeleteRule, inverse: AnyKeyPath?, minimumCount: Int?, maximumCount: Int?, originalName: String?) {
        self.deleteRule = deleteRule
        self.inverse = inverse
        self.minimumCount = minimumCount
        self.maximumCount = maximumCount
        self.originalName = originalName
    }

    func declaration(name: String) -> RelationshipDeclaration {
        // A non-optional to-one must be set: a minimum of one, checked by every save.
        let minimum = Value._isOptionalRelationship ? minimumCount : max(minimumCount ?? 1, 1)
        return RelationshipDeclaration(name: name, target: Value._relationshipTarget, isToMany: Value._isToManyRelationship, deleteRule: deleteRule, inverse: inverse,
                                       minimumCount: minimum, maximumCount: maximumCount, originalName: originalName)
    }
}

protocol DeclaredRelationship {
    func declaration(name: String) -> RelationshipDeclaration
}

/// An attribute's coder, shared by all objects of its class (ClassMetadata.attributeCoders), with
/// its declared initial value.
@usableFromInline
class AnyAttributeCoder {
    /// Whether the initial value differs from object to object (`= UUID()`, `= Date()`): each
    /// object then gets its own evaluation (ClassMetadata.initialValue(of:slot:as:) and ownInitialValues). Set by discovery,
    /// before any object reads it.
    final var isPerInstance = false

    /// A new evaluation of the initial value, as stored (nil if it does not encode).
    func encodedFreshInitialValue() -> GraphStore.Value? { nil }
}

@usableFromInline
final class AttributeCoder<Value>: AnyAttributeCoder {
    @usableFromInline let coder: ValueCoder<Value>
    /// The declared initial value, evaluated anew for objects that need their own.
    let initialValue: () -> Value
    /// The class's evaluation of it: what an unset property of an object reads.
    @usableFromInline let defaultValue: Value

    init(_ coder: ValueCoder<Value>, initialValue: @escaping () -> Value, defaultValue: Value) {
        self.coder = coder
        self.initialValue = initialValue
        self.defaultValue = defaultValue
    }

    @inlinable @inline(__always)
    func decode(_ value: GraphStore.Value) throws -> Value { try coder.decode(value) }

    @inlinable @inline(__always)
    func encode(_ value: Value) throws -> GraphStore.Value { try coder.encode(value) }

    override func encodedFreshInitialValue() -> GraphStore.Value? { try? coder.encode(initialValue()) }
}
