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
        if let known = knownMetadata(for: type) { return known }
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

    /// Decodes a stored value of the attribute at `slot` of `M` with the class's coder.
    // Inlinable: on every property read. The coder comes from the object's unretained table
    // (the class's coders live as long as the process), so finding and calling it retains
    // nothing: through the class facts it took three retains and releases.
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

    /// What the attribute at `slot` of `instance` reads when it has no value: the declared
    /// initial value (an object's own evaluation of it, for one that differs per object).
    // Out of line: only unset and undecodable attributes come here.
    @usableFromInline
    static func initialValue<Value>(of instance: Model, slot: Int, as: Value.Type) -> Value {
        let metadata = instance.classMetadata.map { Unmanaged.passUnretained($0) } ?? unretainedMetadata(for: type(of: instance))
        return metadata._withUnsafeGuaranteedRef { $0.initialValue(of: instance, slot: slot, as: Value.self) }
    }

    /// What an attribute whose wrapper has no slot reads: a discovery prototype's (asked which
    /// property a key path reads), an object's made while its thread records a discovery, or one
    /// whose declaration its class could not take (`slot` then says which, ClassMetadata.prepare).
    @usableFromInline
    static func initialValue<Value>(ofUnslotted slot: Int, of instance: Model, as: Value.Type) -> Value {
        if let coder = instance.accessRecorder?.coder(forToken: slot) {
            return unsafeDowncast(coder, to: AttributeCoder<Value>.self).defaultValue
        }
        let record: Any?
        if slot <= DeclarationRecording.firstToken {
            record = DeclarationRecording.runningRecord(forToken: slot)
        } else if slot < -1 {
            record = (instance.classMetadata.map { Unmanaged.passUnretained($0) } ?? unretainedMetadata(for: type(of: instance)))
                ._withUnsafeGuaranteedRef { $0.unslottedRecord(slot) }
        } else {
            record = nil
        }
        guard let record = record as? AttributeRecord<Value> else {
            // Only an object of a class not yet discovered, read while this thread discovers
            // another (inside that class's `init()`), has neither a slot nor a record.
            fatalError("GraphStore: a \(type(of: instance)) property was read while another model class was being discovered, "
                       + "before \(type(of: instance)) itself was; create its ModelContainer (or read the object) first")
        }
        return record.initialValue()
    }

    /// The wrapper children of a model object, the declaring class's last, with names without "_".
    static func wrapperChildren(of instance: Model) -> [(name: String, value: Any)] {
        storedChildren(of: instance).compactMap { child in
            guard child.label.hasPrefix("_"), child.value is any PropertyWrapperSlot else { return nil }
            return (String(child.label.dropFirst()), child.value)
        }
    }

    /// The stored properties a model class declares that are neither persisted nor marked
    /// `@Transient` (a `lazy var` is a cache, and is left alone).
    static func unstoredProperties(of instance: Model) -> [String] {
        storedChildren(of: instance).compactMap { child in
            if child.value is any PropertyWrapperSlot || child.value is any TransientWrapper { return nil }
            if child.label.hasPrefix("$__lazy_storage_$_") { return nil }
            return child.label.hasPrefix("_") ? String(child.label.dropFirst()) : child.label
        }
    }

    /// Every stored property of the object's model classes (below `Model`), the declaring class's last.
    private static func storedChildren(of instance: Model) -> [(label: String, value: Any)] {
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: instance)
        while let current = mirror, current.subjectType != Model.self {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        return mirrors.flatMap { m in m.children.compactMap { child in child.label.map { ($0, child.value) } } }
    }
}

/// Lets discovery read a wrapper's slot without knowing its generic type.
@usableFromInline
protocol PropertyWrapperSlot {
    /// Which property the wrapper is: 32 bits, as every object carries one per property.
    var rawSlot: Int32 { get set }
}

extension PropertyWrapperSlot {
    @inlinable var slot: Int {
        @inline(__always) get { Int(rawSlot) }
        set { rawSlot = Int32(truncatingIfNeeded: newValue) }
    }
}

extension ModelDiscovery {
    /// The slot of the wrapper at `storage`, its object's slots filled in first if it has none
    /// (`fillSlots`); nil when the accessor is to use the initial value (or do nothing).
    // Inlined into every accessor, where `storage` is a literal only projected through: the
    // projection becomes a field access and no key path object is made.
    @inlinable @inline(__always)
    static func slot<M: Model, Wrapper: PropertyWrapperSlot>(of instance: M, at storage: ReferenceWritableKeyPath<M, Wrapper>) -> Int? {
        var slot = instance[keyPath: storage].slot
        if slot < 0 {
            guard fillSlots(of: instance, missingSlot: slot) else { return nil }
            slot = instance[keyPath: storage].slot
        }
        return slot >= 0 ? slot : nil
    }

    /// Every object's wrappers are given their slots when it is made (see `ClassMetadata.prepare`);
    /// this is the accessors' way out when a wrapper has none: an object made before its class
    /// was discovered, or made while its thread recorded a discovery (its wrappers hold recording
    /// tokens), gets its slots now; a discovery prototype being asked which property a key path
    /// reads has its recorder note the read instead. True when the wrapper now has its slot;
    /// false when the accessor is to use the initial value (or do nothing).
    // Out of line, and without the accessor's key paths: a key path an accessor passes anywhere
    // is made (and retained and released) on every access, while one only projected through
    // is folded into a field access.
    @usableFromInline
    static func fillSlots(of instance: Model, missingSlot slot: Int) -> Bool {
        if slot <= DeclarationRecording.firstToken, let recorder = instance.accessRecorder {
            recorder.noteRead(token: slot)
            return false
        }
        // An attribute its class could not declare keeps no slot (ClassMetadata.prepare).
        if slot < -1, slot > DeclarationRecording.firstToken { return false }
        if DeclarationRecording.isRecordingOnThisThread {
            // Discovering the class here would start a recording session inside this thread's
            // own: only a class already discovered gives its slots.
            guard let known = knownMetadata(for: type(of: instance)) else { return false }
            known._withUnsafeGuaranteedRef { $0.prepare(instance) }
            return true
        }
        unretainedMetadata(for: type(of: instance))._withUnsafeGuaranteedRef { $0.prepare(instance) }
        return true
    }

    /// The class's facts if already discovered (nil otherwise: this never discovers), unretained.
    static func knownMetadata(for type: Model.Type) -> Unmanaged<ClassMetadata>? {
        guard let address = known.value(for: ObjectIdentifier(type)), let pointer = UnsafeRawPointer(bitPattern: address) else { return nil }
        return Unmanaged<ClassMetadata>.fromOpaque(pointer)
    }
}

protocol AttributeWrapper: PropertyWrapperSlot {}

protocol RelationshipWrapper: PropertyWrapperSlot {}

/// `@Transient`: a stored property that is deliberately not persisted.
protocol TransientWrapper {}

/// Facts about one model class, shared by all its objects.
@usableFromInline
final class ClassMetadata: @unchecked Sendable {
    // Nothing here changes after init.
    let declaration: Result<EntityDeclaration, any Error>
    private let attributeIndex: [String: Int]
    private let relationshipIndex: [String: Int]
    /// Attributes whose initial value differs from object to object (`= UUID()`, `= Date()`),
    /// by slot and name: found by evaluating each initial value twice more and comparing. An
    /// object evaluates its own when it is first read or inserted, whichever comes first
    /// (`initialValue(of:slot:as:)`, `ownInitialValues`); an object made for a fetched row never does.
    let perInstanceSlots: [(slot: Int, name: String)]
    var perInstanceAttributes: Set<String> { Set(perInstanceSlots.map(\.name)) }
    /// The records of attributes the class could not declare, whose wrappers keep `-2 - i` as
    /// their slot: their properties still read their initial values.
    private let unslottedRecords: [any DeclaredAttribute]
    /// Each attribute's coder, by slot (nil for a type with none, which the declaration refuses).
    @usableFromInline let attributeCoders: [AnyAttributeCoder?]
    /// The same coders, unretained, by slot: what objects' accessors read (a class's facts
    /// live as long as the process, so this table is never freed).
    let attributeCoderTable: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    /// Where each wrapper's slot lives in an object of this class, and the slot it gets: byte
    /// offset, slot, offset, slot… (`slotFillCount` pairs; never freed, like the coder table).
    private let slotFill: UnsafeMutablePointer<Int>
    private let slotFillCount: Int
    /// The property each recording token of the prototype stands for (AccessRecorder).
    private let tokenNames: [Int: String]
    /// The key paths of the class's properties, by name. A model declared without macros has no
    /// table of them, and an accessor cannot hand its own over without making it on every access
    /// (a key path an accessor passes anywhere is made each time): each is learnt when the app
    /// passes it to GraphStore (a predicate, a sort, a lookup), through `propertyName`.
    private let learnt = LearntKeyPaths()

    init(type: Model.Type) {
        // A prototype, made while its wrappers record their declarations.
        let (prototype, records) = DeclarationRecording.record { type.init() }
        let entityName = String(describing: type)
        let prototypeLock = NSLock()
        var attributes: [AttributeDeclaration] = []
        var coders: [AnyAttributeCoder?] = []
        var relationships: [RelationshipDeclaration] = []
        var failure: (any Error)?
        for (name, value) in ModelDiscovery.wrapperChildren(of: prototype) {
            let record = (value as? any PropertyWrapperSlot).flatMap { DeclarationRecording.record(forSlot: $0.slot, in: records) }
            if value is any AttributeWrapper, let declared = record as? any DeclaredAttribute {
                do {
                    let (attribute, coder) = try declared.declaration(name: name, entity: entityName)
                    attributes.append(attribute)
                    coders.append(coder)
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
        for property in ModelDiscovery.unstoredProperties(of: prototype) {
            failure = failure ?? SchemaError.unstoredProperty(entity: entityName, property: property)
        }
        attributeCoders = coders
        attributeCoderTable = .allocate(capacity: max(1, coders.count))
        for (slot, coder) in coders.enumerated() { attributeCoderTable[slot] = coder.map { Unmanaged.passUnretained($0).toOpaque() } }
        let index = Dictionary(uniqueKeysWithValues: attributes.enumerated().map { ($1.name, $0) })
        let relationshipPositions = Dictionary(uniqueKeysWithValues: relationships.enumerated().map { ($1.name, $0) })
        attributeIndex = index
        relationshipIndex = relationshipPositions
        // Each wrapper's slot, and where objects keep it (found on the prototype by its token).
        var fill: [(offset: Int, slot: Int)] = []
        var names: [Int: String] = [:]
        var codersByToken: [Int: AnyAttributeCoder] = [:]
        var unslotted: [any DeclaredAttribute] = []
        for (name, value) in ModelDiscovery.wrapperChildren(of: prototype) {
            guard let token = (value as? any PropertyWrapperSlot)?.slot else { continue }
            let slot: Int
            if let found = value is any AttributeWrapper ? index[name] : relationshipPositions[name] {
                slot = found
            } else if value is any AttributeWrapper, let declared = DeclarationRecording.record(forSlot: token, in: records) as? any DeclaredAttribute {
                slot = -2 - unslotted.count
                unslotted.append(declared)
            } else {
                continue
            }
            names[token] = name
            if slot >= 0, value is any AttributeWrapper { codersByToken[token] = coders[slot] }
            guard let offset = SlotLocator.offset(ofWrapper: name, holding: token, in: prototype) else {
                failure = failure ?? SchemaError.unsupportedType(entity: entityName, property: name,
                                                                 type: "\(Swift.type(of: value)) (its storage in the object was not found)")
                continue
            }
            fill.append((offset, slot))
        }
        tokenNames = names
        unslottedRecords = unslotted
        let learnt = self.learnt
        slotFillCount = fill.count
        slotFill = .allocate(capacity: max(1, 2 * fill.count))
        for (i, entry) in fill.enumerated() {
            slotFill[2 * i] = entry.offset
            slotFill[2 * i + 1] = entry.slot
        }
        // An initial value that two more evaluations do not repeat differs per object. (A
        // pause first: `Date()` as a Double moves in steps of about 100 ns near now.)
        var perInstance: [(slot: Int, name: String)] = []
        for _ in 0..<2 {
            usleep(20)
            for (slot, attribute) in attributes.enumerated() where !perInstance.contains(where: { $0.slot == slot }) {
                guard let coder = coders[slot], coder.encodedFreshInitialValue() != attribute.defaultValue else { continue }
                coder.isPerInstance = true
                perInstance.append((slot, attribute.name))
            }
        }
        perInstanceSlots = perInstance.sorted { $0.slot < $1.slot }
        if let failure {
            declaration = .failure(failure)
        } else {
            // Which property a key path is: read it on the prototype with a recorder attached
            // (and learn the key path of that property). Only a settable key path that reads
            // one property is that property: a computed one reads its properties too
            // (`arrival`, `actualOn ?? estimatedOn`, reads one or both; `isEnroute` may stop
            // at its first), and is answered through the objects.
            declaration = .success(EntityDeclaration(
                name: entityName, type: type, attributes: attributes, relationships: relationships,
                propertyName: { keyPath in
                    guard (keyPath as? any SettableKeyPath)?.isSettable == true else { return nil }
                    prototypeLock.lock()
                    defer { prototypeLock.unlock() }
                    let recorder = AccessRecorder(names: names, coders: codersByToken)
                    prototype.accessRecorder = recorder
                    defer { prototype.accessRecorder = nil }
                    _ = prototype[keyPath: keyPath]
                    guard recorder.reads == 1, let name = recorder.name else { return nil }
                    learnt.remember(keyPath, forProperty: name)
                    return name
                }))
        }
    }

    /// What the attribute at `slot` of `instance` reads when it has no value (see
    /// `ModelDiscovery.initialValue`).
    func initialValue<Value>(of instance: Model, slot: Int, as: Value.Type) -> Value {
        // The slot was found by this class's declaration, whose coder at `slot` is this Value's.
        let coder = unsafeDowncast(attributeCoders[slot]!, to: AttributeCoder<Value>.self)
        guard coder.isPerInstance, instance.modelContext == nil else { return coder.defaultValue }
        // An object of its own: its evaluation is kept, so that it reads the same until saved.
        let value = coder.initialValue()
        if let stored = try? coder.encode(value) { instance.persistentBacking.setAttributeValue(stored, at: slot, of: instance) }
        return value
    }

    /// The object's own values of the attributes whose initial value differs per object, by name:
    /// what it holds, or (for an object in no context) a new evaluation, kept from then on.
    func ownInitialValues(of instance: Model) -> [String: GraphStore.Value] {
        var values: [String: GraphStore.Value] = [:]
        let backing = instance.persistentBacking
        for (slot, name) in perInstanceSlots {
            if let held = backing.attributeValue(at: slot) {
                values[name] = held
            } else if instance.modelContext == nil, let fresh = attributeCoders[slot]?.encodedFreshInitialValue() {
                backing.setAttributeValue(fresh, at: slot, of: instance)
                values[name] = fresh
            }
        }
        return values
    }

    /// The record of an attribute the class could not declare, by the slot its wrapper keeps.
    func unslottedRecord(_ slot: Int) -> Any? {
        let index = -2 - slot
        return index >= 0 && index < unslottedRecords.count ? unslottedRecords[index] : nil
    }

    /// Gives a new object of exactly this class its facts and every wrapper its slot: one store
    /// per property, instead of each accessor finding its slot on the object's first access.
    func prepare(_ instance: Model) {
        instance.classMetadata = self
        instance.attributeCoderTable = attributeCoderTable
        let base = Unmanaged.passUnretained(instance).toOpaque()
        for i in 0..<slotFillCount {
            base.storeBytes(of: Int32(truncatingIfNeeded: slotFill[2 * i + 1]), toByteOffset: slotFill[2 * i], as: Int32.self)
        }
    }

    /// The key path of the persistent property `name`, if learnt.
    func keyPath(forProperty name: String) -> AnyKeyPath? { learnt.keyPath(forProperty: name) }

    /// Tells observers of `model` that its property `name` changed.
    func notify(_ model: Model, property name: String) {
        if let slot = attributeIndex[name] {
            Model.noteMutation(model, slot: slot, isRelationship: false) {}
        } else if let slot = relationshipIndex[name] {
            Model.noteMutation(model, slot: slot, isRelationship: true) {}
        }
    }
}

/// Whether a key path can write its value: every persistent property's can (a model's
/// properties are settable), a computed property's without a setter cannot.
protocol SettableKeyPath {
    var isSettable: Bool { get }
}

extension KeyPath: SettableKeyPath {
    var isSettable: Bool { self is WritableKeyPath<Root, Value> }
}

/// The key paths of a model class's properties learnt so far, by property name (ClassMetadata).
final class LearntKeyPaths: @unchecked Sendable {
    private let lock = NSLock()
    private var keyPaths: [String: AnyKeyPath] = [:]

    func remember(_ keyPath: AnyKeyPath, forProperty name: String) {
        lock.withLock { if keyPaths[name] == nil { keyPaths[name] = keyPath } }
    }

    func keyPath(forProperty name: String) -> AnyKeyPath? { lock.withLock { keyPaths[name] } }
}
