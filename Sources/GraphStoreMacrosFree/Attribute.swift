import Foundation
import Observation

/// A stored property of a model: `@Attribute var name: String = ""`, with options as in
/// SwiftData (`@Attribute(.unique) var icao: String = ""`, `.indexed`, `.externalStorage`) and
/// `originalName:` for renames. The type may be any `Storable` type, a RawRepresentable (stored
/// as its raw value), or any Codable type (stored as JSON); anything else is a schema error
/// when the container is created.
@propertyWrapper
public struct Attribute<Value>: AttributeWrapper {
    // An object's wrapper holds only its slot (given when the object is made). The initial value
    // is an expression, not a value: the class records it once, with the coder, options and
    // original name, when schema discovery makes its prototypes (DeclarationRecording), and
    // evaluates it again only for an object that needs its own (`= UUID()`, see
    // ClassMetadata.perInstanceSlots). A value per wrapper was most of a model object's size,
    // and an object made for a fetched row never reads it.
    // Inlinable, so that a model's initialiser (which creates every wrapper, each time an object
    // is made for a fetched row) is specialised for the concrete types.
    @usableFromInline var rawSlot: Int32

    @inlinable
    init(initialValue: @escaping () -> Value, coder: @autoclosure () -> ValueCoder<Value>?, options: @autoclosure () -> AttributeOptions,
         originalName: String?) {
        rawSlot = DeclarationRecording.isRecording ? Self.recordedSlot(initialValue: initialValue, coder: coder(), options: options(),
                                                                      originalName: originalName) : -1
    }

    // Out of line, so that an object's initialiser keeps only a test per wrapper: inlined, each
    // wrapper's recording made the class's initialiser large enough that the compiler left
    // some wrappers' initialisers out of line, and those converted the initial value's closure
    // (a heap allocation) before testing, for every object made.
    @usableFromInline @inline(never)
    static func recordedSlot(initialValue: @escaping () -> Value, coder: ValueCoder<Value>?, options: AttributeOptions, originalName: String?) -> Int32 {
        DeclarationRecording.slot(recording: AttributeRecord(initialValue: initialValue, coder: coder, options: options, originalName: originalName))
    }

    // Each kind of type has two initialisers: one option or none (`@Attribute(.unique)`), and
    // any number (`@Attribute(.unique, .indexed)`). A variadic parameter makes its array at
    // every call, and a wrapper is made for every object: the single-option form, which the
    // compiler prefers, makes none.

    /// A stored attribute of a `Storable` type (`String`, numbers, `Date`, `Data`, `UUID`, `URL`,
    /// optionals and collections of them), with at most one option: `@Attribute(.unique) var code =
    /// ""`.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ option: AttributeOptions = [], originalName: String? = nil) where Value: Storable {
        self.init(initialValue: wrappedValue, coder: .storable, options: option, originalName: originalName)
    }

    /// A stored attribute of a `Storable` type with several options: `@Attribute(.unique,
    /// .spotlight) var code = ""`.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions..., originalName: String? = nil) where Value: Storable {
        self.init(initialValue: wrappedValue, coder: .storable, options: options.reduce(into: []) { $0.formUnion($1) },
                  originalName: originalName)
    }

    /// A `Storable` type that is also `Codable` is stored natively, not as JSON (this overload
    /// settles the choice).
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ option: AttributeOptions = [], originalName: String? = nil) where Value: Storable & Codable {
        self.init(initialValue: wrappedValue, coder: .storable, options: option, originalName: originalName)
    }

    /// A `Storable` and `Codable` type with several options, stored natively.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions..., originalName: String? = nil) where Value: Storable & Codable {
        self.init(initialValue: wrappedValue, coder: .storable, options: options.reduce(into: []) { $0.formUnion($1) },
                  originalName: originalName)
    }

    /// An enum or other `RawRepresentable` whose raw value is `Storable`: stored as its raw value.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ option: AttributeOptions = [], originalName: String? = nil)
        where Value: RawRepresentable, Value.RawValue: Storable {
        self.init(initialValue: wrappedValue, coder: .rawRepresentable, options: option, originalName: originalName)
    }

    /// A `RawRepresentable` with a `Storable` raw value and several options, stored as its raw value.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions..., originalName: String? = nil)
        where Value: RawRepresentable, Value.RawValue: Storable {
        self.init(initialValue: wrappedValue, coder: .rawRepresentable, options: options.reduce(into: []) { $0.formUnion($1) },
                  originalName: originalName)
    }

    /// A `RawRepresentable` that is also `Codable`: stored as its raw value, not as JSON.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ option: AttributeOptions = [], originalName: String? = nil)
        where Value: RawRepresentable & Codable, Value.RawValue: Storable {
        self.init(initialValue: wrappedValue, coder: .rawRepresentable, options: option, originalName: originalName)
    }

    /// A `Codable` `RawRepresentable` with several options, stored as its raw value.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions..., originalName: String? = nil)
        where Value: RawRepresentable & Codable, Value.RawValue: Storable {
        self.init(initialValue: wrappedValue, coder: .rawRepresentable, options: options.reduce(into: []) { $0.formUnion($1) },
                  originalName: originalName)
    }

    /// An optional `RawRepresentable` (`FlightStatus?`): stored as its raw value, or nil.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ option: AttributeOptions = [], originalName: String? = nil) where Value: OptionalRawRepresentable {
        self.init(initialValue: wrappedValue, coder: .optionalRawRepresentable, options: option, originalName: originalName)
    }

    /// An optional `RawRepresentable` with several options, stored as its raw value or nil.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions..., originalName: String? = nil) where Value: OptionalRawRepresentable {
        self.init(initialValue: wrappedValue, coder: .optionalRawRepresentable, options: options.reduce(into: []) { $0.formUnion($1) },
                  originalName: originalName)
    }

    /// An optional `RawRepresentable` that is also `Codable`: stored as its raw value or nil, not
    /// as JSON.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ option: AttributeOptions = [], originalName: String? = nil)
        where Value: OptionalRawRepresentable & Codable {
        self.init(initialValue: wrappedValue, coder: .optionalRawRepresentable, options: option, originalName: originalName)
    }

    /// An optional `Codable` `RawRepresentable` with several options, stored as its raw value or nil.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions..., originalName: String? = nil)
        where Value: OptionalRawRepresentable & Codable {
        self.init(initialValue: wrappedValue, coder: .optionalRawRepresentable, options: options.reduce(into: []) { $0.formUnion($1) },
                  originalName: originalName)
    }

    /// Any other `Codable` type (a struct, an enum with payloads): stored as its JSON encoding.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ option: AttributeOptions = [], originalName: String? = nil) where Value: Codable {
        self.init(initialValue: wrappedValue, coder: .codable, options: option, originalName: originalName)
    }

    /// A `Codable` type with several options, stored as its JSON encoding.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions..., originalName: String? = nil) where Value: Codable {
        self.init(initialValue: wrappedValue, coder: .codable, options: options.reduce(into: []) { $0.formUnion($1) },
                  originalName: originalName)
    }

    /// Any other type compiles, and is refused by name when the container is created.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ option: AttributeOptions = [], originalName: String? = nil) {
        self.init(initialValue: wrappedValue, coder: nil, options: option, originalName: originalName)
    }

    /// Any other type with several options: compiles, and is refused by name when the container is
    /// created.
    @inlinable
    public init(wrappedValue: @autoclosure @escaping () -> Value, _ options: AttributeOptions..., originalName: String? = nil) {
        self.init(initialValue: wrappedValue, coder: nil, options: options.reduce(into: []) { $0.formUnion($1) },
                  originalName: originalName)
    }

    @available(*, unavailable, message: "@Attribute is only available on Model subclasses")
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
        // The key paths are only projected through (each becomes a field access): passed anywhere,
        // they would be made, retained and released on every access (see ModelDiscovery.slot).
        @inline(__always) get {
            // (Only the fields needed are read: copying the whole wrapper would copy its initial
            // value on every read.)
            guard let slot = ModelDiscovery.slot(of: instance, at: storageKeyPath) else {
                return ModelDiscovery.initialValue(ofUnslotted: instance[keyPath: storageKeyPath].slot, of: instance, as: Value.self)
            }
            Model.noteAccess(instance, slot: slot, isRelationship: false)
            // A stored value that no longer decodes stays in the store untouched; the property
            // reads as its initial value.
            guard let stored = instance.persistentBacking.attributeValue(at: slot),
                  let value = ModelDiscovery.decode(stored, of: instance, slot: slot, as: Value.self) else {
                return ModelDiscovery.initialValue(of: instance, slot: slot, as: Value.self)
            }
            return value
        }
        @inline(__always) set {
            guard let slot = ModelDiscovery.slot(of: instance, at: storageKeyPath),
                  let coder = ModelDiscovery.attributeCoder(of: instance, slot: slot, as: Value.self) else { return }
            let stored: GraphStore.Value
            do { stored = try coder.encode(newValue) } catch {
                instance.persistentBacking.recordEncodingFailure(at: slot, reason: "\(error)", of: instance)
                return
            }
            Model.noteMutation(instance, slot: slot, isRelationship: false) {
                instance.persistentBacking.setAttributeValue(stored, at: slot, of: instance)
            }
        }
    }
}

/// A property that is not stored: `@Transient var cache = 0`. It lives only in the object.
@propertyWrapper
public struct Transient<Value>: TransientWrapper {
    /// The value, kept in the object only.
    public var wrappedValue: Value
    /// A transient property starting at `wrappedValue`.
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
}
