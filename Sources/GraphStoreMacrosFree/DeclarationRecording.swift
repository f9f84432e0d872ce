import CSwiftRuntime
import Foundation
import GraphStore

/// How a property wrapper's declaration (coder, options, inverse, original name…) reaches schema
/// discovery without every object carrying it.
///
/// A wrapper keeps only its slot and its initial value: those differ per object. What the
/// declaration says is the same for every object of a class, so it is recorded once, when
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
    static let firstToken = -(1 << 40)

    /// Guards `session`; `sessionLock` is held for a whole session, so sessions run one at a time.
    private static let lock = NSLock()
    private static let sessionLock = NSLock()
    nonisolated(unsafe) private static var session: (thread: pthread_t, records: [Any])?

    /// The slot a new wrapper starts with: a token when this thread is recording, else -1.
    @inlinable @inline(__always)
    static func slot(recording record: @autoclosure () -> Any) -> Int {
        graphstore_recording_sessions_running() ? token(for: record()) : -1
    }

    @usableFromInline
    static func token(for record: Any) -> Int {
        lock.lock()
        defer { lock.unlock() }
        guard var current = session, pthread_equal(current.thread, pthread_self()) != 0 else { return -1 }
        current.records.append(record)
        session = current
        return firstToken - (current.records.count - 1)
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

    /// The record a wrapper's slot refers to, when it is a token of `records`.
    static func record(forSlot slot: Int, in records: [Any]) -> Any? {
        let index = firstToken - slot
        return slot <= firstToken && index < records.count ? records[index] : nil
    }
}

/// What `@Attribute` declares beside the initial value.
@usableFromInline
struct AttributeRecord<Value>: DeclaredAttribute {
    let coder: ValueCoder<Value>?
    let options: AttributeOptions
    let originalName: String?

    @usableFromInline
    init(coder: ValueCoder<Value>?, options: AttributeOptions, originalName: String?) {
        // A transformable attribute is stored as its transformer's Data, whatever its type offers.
        self.coder = options.contains(.transformable) ? .transformed(by: options) : coder
        self.options = options
        self.originalName = originalName
    }

    func declaration(name: String, entity: String, initialValue: Any) throws -> AttributeDeclaration {
        if let model = modelType(heldBy: Value.self) {
            throw SchemaError.modelAsAttribute(entity: entity, property: name, model: "\(model)")
        }
        guard let coder else { throw SchemaError.unsupportedType(entity: entity, property: name, type: "\(Value.self)") }
        let defaultValue: GraphStore.Value
        do { defaultValue = try coder.encode(initialValue as! Value) } catch {
            throw SchemaError.unsupportedType(entity: entity, property: name, type: "\(Value.self) (its initial value does not encode: \(error))")
        }
        return AttributeDeclaration(name: name, type: coder.type, options: options, originalName: originalName, defaultValue: defaultValue)
    }

    var coderBox: AnyAttributeCoder? { coder.map(AttributeCoder.init) }
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
    func declaration(name: String, entity: String, initialValue: Any) throws -> AttributeDeclaration
    /// The coder, kept by the class for its objects' accessors; nil for a type with none.
    var coderBox: AnyAttributeCoder? { get }
}

/// What `@Relationship` declares beside the initial value.
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

/// An attribute's coder, shared by all objects of its class (ClassMetadata.attributeCoders).
@usableFromInline
class AnyAttributeCoder {
    /// An object's initial value as stored (per-instance initial values, such as `= UUID()`).
    func encodeInitialValue(_ value: Any) -> GraphStore.Value? { nil }
}

@usableFromInline
final class AttributeCoder<Value>: AnyAttributeCoder {
    @usableFromInline let coder: ValueCoder<Value>

    init(_ coder: ValueCoder<Value>) { self.coder = coder }

    @inlinable @inline(__always)
    func decode(_ value: GraphStore.Value) throws -> Value { try coder.decode(value) }

    @inlinable @inline(__always)
    func encode(_ value: Value) throws -> GraphStore.Value { try coder.encode(value) }

    override func encodeInitialValue(_ value: Any) -> GraphStore.Value? {
        (value as? Value).flatMap { try? coder.encode($0) }
    }
}
