import Foundation
import Observation

/// A stored property of a model: `@Attribute var name: String = ""`, with options as in
/// SwiftData (`@Attribute(.unique) var icao: String = ""`, `.indexed`, `.externalStorage`) and
/// `originalName:` for renames. The type may be any `Storable` type, a RawRepresentable (stored
/// as its raw value), or any Codable type (stored as JSON); anything else is a schema error
/// when the container is created.
@propertyWrapper
public struct Attribute<Value>: AttributeWrapper {
    // Inlinable, so that a model's initialiser (which creates every wrapper, each time an object
    // is made for a fetched row) is specialised for the concrete types: no generic metadata
    // lookups and no heap-allocated closure contexts per wrapper.
    @usableFromInline var slot = -1
    @usableFromInline let initialValue: Value
    @usableFromInline let coder: ValueCoder<Value>?
    @usableFromInline let options: AttributeOptions
    @usableFromInline let originalName: String?

    @inlinable
    init(initialValue: Value, coder: ValueCoder<Value>?, options: [AttributeOptions], originalName: String?) {
        self.initialValue = initialValue
        self.coder = coder
        self.options = options.reduce(into: []) { $0.formUnion($1) }
        self.originalName = originalName
    }

    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions..., originalName: String? = nil) where Value: Storable {
        self.init(initialValue: wrappedValue, coder: .storable, options: options, originalName: originalName)
    }

    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions..., originalName: String? = nil) where Value: Storable & Codable {
        self.init(initialValue: wrappedValue, coder: .storable, options: options, originalName: originalName)
    }

    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions..., originalName: String? = nil)
        where Value: RawRepresentable, Value.RawValue: Storable {
        self.init(initialValue: wrappedValue, coder: .rawRepresentable, options: options, originalName: originalName)
    }

    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions..., originalName: String? = nil)
        where Value: RawRepresentable & Codable, Value.RawValue: Storable {
        self.init(initialValue: wrappedValue, coder: .rawRepresentable, options: options, originalName: originalName)
    }

    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions..., originalName: String? = nil) where Value: OptionalRawRepresentable {
        self.init(initialValue: wrappedValue, coder: .optionalRawRepresentable, options: options, originalName: originalName)
    }

    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions..., originalName: String? = nil)
        where Value: OptionalRawRepresentable & Codable {
        self.init(initialValue: wrappedValue, coder: .optionalRawRepresentable, options: options, originalName: originalName)
    }

    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions..., originalName: String? = nil) where Value: Codable {
        self.init(initialValue: wrappedValue, coder: .codable, options: options, originalName: originalName)
    }

    /// Any other type compiles, and is refused by name when the container is created.
    @inlinable
    public init(wrappedValue: Value, _ options: AttributeOptions..., originalName: String? = nil) {
        self.init(initialValue: wrappedValue, coder: nil, options: options, originalName: originalName)
    }

    @available(*, unavailable, message: "@Attribute is only available on Model subclasses")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    var storedInitialValue: GraphStore.Value? { coder.flatMap { try? $0.encode(initialValue) } }

    func declaration(name: String, entity: String) throws -> AttributeDeclaration {
        guard let coder else { throw SchemaError.unsupportedType(entity: entity, property: name, type: "\(Value.self)") }
        let defaultValue: GraphStore.Value
        do { defaultValue = try coder.encode(initialValue) } catch {
            throw SchemaError.unsupportedType(entity: entity, property: name, type: "\(Value.self) (its initial value does not encode: \(error))")
        }
        return AttributeDeclaration(name: name, type: coder.type, options: options, originalName: originalName, defaultValue: defaultValue)
    }


    @inlinable
    public static subscript<M: Model>(
        _enclosingInstance instance: M,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<M, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<M, Self>
    ) -> Value {
        @inline(__always) get {
            let wrapper = instance[keyPath: storageKeyPath]
            guard let slot = ModelDiscovery.beginRead(instance, wrappedKeyPath, storageKeyPath, isRelationship: false, storedSlot: wrapper.slot),
                  slot >= 0, let coder = wrapper.coder, let stored = instance.persistentBacking.attributeValue(at: slot) else {
                return wrapper.initialValue
            }
            // A stored value that no longer decodes stays in the store untouched; the property
            // reads as its initial value.
            return (try? coder.decode(stored)) ?? wrapper.initialValue
        }
        @inline(__always) set {
            let slot = ModelDiscovery.resolveSlot(instance, wrappedKeyPath, storageKeyPath, isRelationship: false)
            guard slot >= 0, let coder = instance[keyPath: storageKeyPath].coder else { return }
            let stored: GraphStore.Value
            do { stored = try coder.encode(newValue) } catch {
                instance.persistentBacking.recordEncodingFailure(at: slot, reason: "\(error)", of: instance)
                return
            }
            guard instance.mayBeObserved else {
                instance.persistentBacking.setAttributeValue(stored, at: slot, of: instance)
                return
            }
            instance.observationRegistrar.withMutation(of: instance, keyPath: wrappedKeyPath) {
                instance.persistentBacking.setAttributeValue(stored, at: slot, of: instance)
            }
        }
    }
}

/// A property that is not stored: `@Transient var cache = 0`. It lives only in the object.
@propertyWrapper
public struct Transient<Value> {
    public var wrappedValue: Value
    public init(wrappedValue: Value) { self.wrappedValue = wrappedValue }
}

extension ModelDiscovery {
    @usableFromInline
    static func nameOfMarkedWrapperOrSlot(_ instance: Model, slot: Int, isRelationship: Bool) -> String? {
        guard slot >= 0, let declaration = try? declaration(for: type(of: instance)) else { return nil }
        return isRelationship ? declaration.relationships[slot].name : declaration.attributes[slot].name
    }
}
