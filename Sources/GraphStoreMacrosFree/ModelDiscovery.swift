import Foundation
import Observation

/// Reads a model class's declaration once (by reflecting a prototype: each property wrapper
/// shows up as `_name`), and keeps per-class facts the wrappers need on every access: which
/// property a wrapper is, and how to tell observers that a property changed.
@usableFromInline
enum ModelDiscovery {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var classes: [ObjectIdentifier: ClassMetadata] = [:]

    /// Every class's facts by class, read without a lock (each new object asks once).
    private static let known = IdentityTable(capacity: 512)

    @usableFromInline
    static func metadata(for type: Model.Type) -> ClassMetadata {
        unretainedMetadata(for: type).takeUnretainedValue()
    }

    /// The same without a retain (`classes` keeps every class's facts for good).
    static func unretainedMetadata(for type: Model.Type) -> Unmanaged<ClassMetadata> {
        if let address = known.value(for: ObjectIdentifier(type)), let pointer = UnsafeRawPointer(bitPattern: address) {
            return Unmanaged<ClassMetadata>.fromOpaque(pointer)
        }
        lock.lock()
        defer { lock.unlock() }
        if let existing = classes[ObjectIdentifier(type)] { return .passUnretained(existing) }
        let metadata = ClassMetadata(type: type)
        // `classes` keeps it for good, so the table may hold its address unretained.
        classes[ObjectIdentifier(type)] = metadata
        known.insert(UInt(bitPattern: Unmanaged.passUnretained(metadata).toOpaque()), for: ObjectIdentifier(type), keeping: nil)
        return .passUnretained(metadata)
    }

    static func declaration(for type: Model.Type) throws -> EntityDeclaration {
        try metadata(for: type).declaration.get()
    }

    /// An object's own initial values (as stored) of its attributes — of those in `names` only,
    /// when given — by attribute name.
    static func storedInitialValues(of instance: Model, only names: Set<String>? = nil) -> [String: GraphStore.Value] {
        metadata(for: type(of: instance)).storedInitialValues(of: instance, only: names)
    }

    /// Decodes a stored value of the attribute at `slot` of `M` with the class's coder.
    // Inlinable: on every property read. The coder comes from the object's unretained table
    // (the class's coders live as long as the process), so finding and calling it retains
    // nothing: through the class facts it took three retains and releases, a third of a read.
    @inlinable @inline(__always)
    static func decode<M: Model, Value>(_ stored: GraphStore.Value, of instance: M, slot: Int, as: Value.Type) -> Value? {
        if let table = instance.attributeCoderTable, type(of: instance) == M.self {
            guard let coder = table[slot] else { return nil }
            return Unmanaged<AttributeCoder<Value>>.fromOpaque(coder)._withUnsafeGuaranteedRef { try? $0.decode(stored) }
        }
        return try? attributeCoder(of: instance, slot: slot, as: Value.self)?.decode(stored)
    }

    /// The coder of the attribute at `slot` of `M`, shared by all its objects.
    @inlinable @inline(__always)
    static func attributeCoder<M: Model, Value>(of instance: M, slot: Int, as: Value.Type) -> AttributeCoder<Value>? {
        let classMetadata = (type(of: instance) == M.self ? instance.classMetadata : nil) ?? metadata(for: M.self)
        guard slot < classMetadata.attributeCoders.count, let coder = classMetadata.attributeCoders[slot] else { return nil }
        // The slot was found by this class's declaration, whose attribute at `slot` is this
        // wrapper's: its coder is of this Value.
        return unsafeDowncast(coder, to: AttributeCoder<Value>.self)
    }

    /// The wrapper children of a model object, the declaring class's last, with names without "_".
    static func wrapperChildren(of instance: Model) -> [(name: String, value: Any)] {
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: instance)
        while let current = mirror, current.subjectType != Model.self {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        return mirrors.flatMap { m in
            m.children.compactMap { child in
                guard let label = child.label, label.hasPrefix("_"), child.value is any PropertyWrapperSlot else { return nil }
                return (String(label.dropFirst()), child.value)
            }
        }
    }
}

/// Lets discovery find which wrapper a storage key path is, without knowing its generic type.
@usableFromInline
protocol PropertyWrapperSlot {
    var slot: Int { get set }
}

extension ModelDiscovery {
    /// What every wrapper's getter does first: find its slot, and either report the property to
    /// schema discovery's recorder (then nil: the getter returns its initial value) or register
    /// the read with Observation.
    // Inlinable (as is resolveSlot's fast path), so that in a model's property accessors the
    // wrapper's key paths are literals the optimiser turns into direct field access, instead
    // of key path projections through the runtime on every read and write.
    @inlinable @inline(__always)
    static func beginRead<M: Model, Value, Wrapper: PropertyWrapperSlot>(
        _ instance: M, _ wrapped: ReferenceWritableKeyPath<M, Value>,
        _ storage: ReferenceWritableKeyPath<M, Wrapper>, isRelationship: Bool, storedSlot: Int = -1
    ) -> Int? {
        // `storedSlot`: the slot from the copy of the wrapper the caller already made, so the
        // wrapper is read once per access, not twice.
        let slot = storedSlot >= 0 ? storedSlot : resolveSlot(instance, wrapped, storage, isRelationship: isRelationship)
        if let recorder = instance.accessRecorder {
            recorder.name = nameOfMarkedWrapperOrSlot(instance, slot: slot, isRelationship: isRelationship)
            return nil
        }
        Model.noteAccess(instance, keyPath: wrapped)
        return slot
    }

    /// The position of the wrapper at `storage` among its class's attributes (or relationships),
    /// found once per class and then kept in the wrapper itself.
    @inlinable @inline(__always)
    static func resolveSlot<M: Model, Value, Wrapper: PropertyWrapperSlot>(
        _ instance: M, _ wrapped: ReferenceWritableKeyPath<M, Value>,
        _ storage: ReferenceWritableKeyPath<M, Wrapper>, isRelationship: Bool
    ) -> Int {
        let slot = instance[keyPath: storage].slot
        if slot >= 0 { return slot }
        // Kept in the wrapper here, where the key path is a literal the optimiser turns into a
        // field store (in the out-of-line function it is a runtime key path projection).
        let resolved = resolveSlotFirstTime(instance, wrapped, storage, isRelationship: isRelationship)
        if resolved >= 0 { instance[keyPath: storage].slot = resolved }
        return resolved
    }

    @usableFromInline
    static func resolveSlotFirstTime<M: Model, Value, Wrapper: PropertyWrapperSlot>(
        _ instance: M, _ wrapped: ReferenceWritableKeyPath<M, Value>,
        _ storage: ReferenceWritableKeyPath<M, Wrapper>, isRelationship: Bool
    ) -> Int {
        // The class's facts, found once per object rather than once per property.
        // (Only when the object is exactly of the declaring class: a subclass's properties may be
        // declared at several levels.)
        // Unretained: every object made passes here (its wrappers start without their slots),
        // and retaining the class facts was a retain and a release per object.
        let classMetadata: Unmanaged<ClassMetadata>
        let exact = type(of: instance) == M.self
        if exact, let cached = instance.classMetadata {
            classMetadata = .passUnretained(cached)
        } else {
            classMetadata = unretainedMetadata(for: M.self)
            if exact {
                instance.classMetadata = classMetadata.takeUnretainedValue()
                instance.attributeCoderTable = classMetadata._withUnsafeGuaranteedRef(\.attributeCoderTable)
            }
        }
        return classMetadata._withUnsafeGuaranteedRef { classMetadata in
            if let known = classMetadata.knownSlot(for: storage) { return known }
            return classMetadata.slot(for: storage, isRelationship: isRelationship, identify: {
                // Mark this wrapper, reflect the object, and see which property carries the mark.
                instance[keyPath: storage].slot = markerSlot
                defer { instance[keyPath: storage].slot = -1 }
                return nameOfMarkedWrapper(in: instance)
            }, observe: { model in
                // From any thread (another context's save): noteMutation reads the registrar atomically.
                guard let model = model as? M else { return }
                Model.noteMutation(model, keyPath: wrapped) {}
            })
        }
    }
}

protocol AttributeWrapper: PropertyWrapperSlot {
    /// This object's initial value (its class's coder stores it).
    var initialValueAny: Any { get }
}

protocol RelationshipWrapper: PropertyWrapperSlot {}

/// Facts about one model class, shared by all its objects.
@usableFromInline
final class ClassMetadata: @unchecked Sendable {
    // `declaration` and `prototype` never change after init; the tables are guarded by `lock`.
    let declaration: Result<EntityDeclaration, any Error>
    private let lock = NSLock()
    private var slots: [AnyKeyPath: Int] = [:]
    /// The same answers by key path identity, read without the lock: the key path objects the
    /// compiler passes for a property are normally one and the same, and comparing identity is
    /// far cheaper than hashing a key path. The table keeps its key paths alive, so an identity
    /// is never reused while it is a key; it is bounded in case key paths are not uniqued.
    private let slotsByIdentity: IdentityTable
    private var notifiers: [String: (Model) -> Void] = [:]
    private let attributeIndex: [String: Int]
    private let relationshipIndex: [String: Int]
    /// Attributes whose initial value differs from object to object (`= UUID()`, `= Date()`):
    /// found by making the type twice more and comparing. Each object's own value is recorded
    /// when it is inserted (`Model.persistentInitialValues`).
    let perInstanceAttributes: Set<String>
    /// Each attribute's coder, by slot (nil for a type with none, which the declaration refuses).
    @usableFromInline let attributeCoders: [AnyAttributeCoder?]
    /// The same coders, unretained, by slot: what objects' accessors read (a class's facts
    /// live as long as the process, so this table is never freed).
    let attributeCoderTable: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    init(type: Model.Type) {
        // Three prototypes, made while their wrappers record their declarations: the first is
        // the schema's, the other two tell which initial values differ from object to object.
        let (prototypes, records) = DeclarationRecording.record { [type.init(), type.init(), type.init()] }
        let prototype = prototypes[0]
        let entityName = String(describing: type)
        let prototypeLock = NSLock()
        var attributes: [AttributeDeclaration] = []
        var coders: [AnyAttributeCoder?] = []
        var relationships: [RelationshipDeclaration] = []
        var failure: (any Error)?
        for (name, value) in ModelDiscovery.wrapperChildren(of: prototype) {
            let record = (value as? any PropertyWrapperSlot).flatMap { DeclarationRecording.record(forSlot: $0.slot, in: records) }
            if let attribute = value as? any AttributeWrapper, let declared = record as? any DeclaredAttribute {
                do {
                    attributes.append(try declared.declaration(name: name, entity: entityName, initialValue: attribute.initialValueAny))
                    coders.append(declared.coderBox)
                } catch { failure = failure ?? error }
            } else if value is any RelationshipWrapper, let declared = record as? any DeclaredRelationship {
                relationships.append(declared.declaration(name: name))
            } else {
                // Never expected: a wrapper of the prototype that did not record its declaration
                // would otherwise leave its property out of the schema without a word.
                failure = failure ?? SchemaError.unsupportedType(entity: entityName, property: name,
                                                                 type: "\(Swift.type(of: value)) (its declaration was not recorded)")
            }
        }
        attributeCoders = coders
        attributeCoderTable = .allocate(capacity: max(1, coders.count))
        for (slot, coder) in coders.enumerated() { attributeCoderTable[slot] = coder.map { Unmanaged.passUnretained($0).toOpaque() } }
        slotsByIdentity = IdentityTable(capacity: 4 * (attributes.count + relationships.count))
        let index = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
        attributeIndex = index
        relationshipIndex = Dictionary(uniqueKeysWithValues: relationships.enumerated().map { ($1.name, $0) })
        // The prototype's initial values are the declarations' defaults.
        let first = Dictionary(uniqueKeysWithValues: attributes.map { ($0.name, $0.defaultValue) })
        let others = prototypes.dropFirst().map { Self.storedInitialValues(of: $0, only: nil, index: index, coders: coders) }
        perInstanceAttributes = Set(first.keys.filter { name in others.contains { $0[name] != first[name] } })
        if let failure {
            declaration = .failure(failure)
        } else {
            // Which property a key path reads: read it on the prototype with a recorder attached.
            declaration = .success(EntityDeclaration(
                name: entityName, type: type, attributes: attributes, relationships: relationships,
                propertyName: { keyPath in
                    prototypeLock.lock()
                    defer { prototypeLock.unlock() }
                    let recorder = AccessRecorder()
                    prototype.accessRecorder = recorder
                    defer { prototype.accessRecorder = nil }
                    _ = prototype[keyPath: keyPath]
                    return recorder.name
                }))
        }
    }

    /// An object's initial values (as stored) of its attributes — of those in `names` only,
    /// when given — by attribute name.
    func storedInitialValues(of instance: Model, only names: Set<String>?) -> [String: GraphStore.Value] {
        Self.storedInitialValues(of: instance, only: names, index: attributeIndex, coders: attributeCoders)
    }

    private static func storedInitialValues(of instance: Model, only names: Set<String>?, index: [String: Int],
                                            coders: [AnyAttributeCoder?]) -> [String: GraphStore.Value] {
        var values: [String: GraphStore.Value] = [:]
        for (name, value) in ModelDiscovery.wrapperChildren(of: instance) where names?.contains(name) ?? true {
            guard let attribute = value as? any AttributeWrapper, let slot = index[name], let coder = coders[slot] else { continue }
            values[name] = coder.encodeInitialValue(attribute.initialValueAny)
        }
        return values
    }

    /// The slot of a storage key path this class has already identified (no closures made: the
    /// common case, every new object's first access to each property).
    func knownSlot(for storageKeyPath: AnyKeyPath) -> Int? {
        slotsByIdentity.value(for: ObjectIdentifier(storageKeyPath)).map { Int(bitPattern: $0) }
    }

    /// The position of the wrapper at `storageKeyPath` among the class's attributes or
    /// relationships. `identify` names the wrapper (by marking it and reflecting the object) the
    /// first time this class sees the key path; `observe` is kept to notify observers of it later.
    func slot(for storageKeyPath: AnyKeyPath, isRelationship: Bool, identify: () -> String?,
              observe: @escaping (Model) -> Void) -> Int {
        if let known = knownSlot(for: storageKeyPath) { return known }
        lock.lock()
        if let slot = slots[storageKeyPath] {
            lock.unlock()
            slotsByIdentity.insert(UInt(bitPattern: slot), for: ObjectIdentifier(storageKeyPath), keeping: storageKeyPath)
            return slot
        }
        lock.unlock()
        guard let name = identify(), let slot = isRelationship ? relationshipIndex[name] : attributeIndex[name] else { return -1 }
        lock.lock()
        slots[storageKeyPath] = slot
        notifiers[name] = observe
        lock.unlock()
        slotsByIdentity.insert(UInt(bitPattern: slot), for: ObjectIdentifier(storageKeyPath), keeping: storageKeyPath)
        return slot
    }

    func notify(_ model: Model, property name: String) {
        lock.lock()
        let notifier = notifiers[name]
        lock.unlock()
        notifier?(model)
    }
}

extension ModelDiscovery {
    /// The name of the wrapper child whose slot holds the marker value.
    static func nameOfMarkedWrapper(in instance: Model) -> String? {
        wrapperChildren(of: instance).first { ($0.value as? any PropertyWrapperSlot)?.slot == markerSlot }?.name
    }

    static let markerSlot = -2
}
