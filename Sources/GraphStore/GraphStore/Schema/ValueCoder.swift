import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Converts one Swift type to and from `Value`: chosen once per property from what the type
/// offers — `Storable` (native), `RawRepresentable` (its raw value), or `Codable` (JSON bytes).
/// A type with none of these has no coder, which schema discovery reports as an error.
public struct ValueCoder<T> {
    /// The stored type values of `T` have.
    public let type: AttributeType
    /// `T` to its stored value.
    public let encode: (T) throws -> Value
    /// A stored value back to `T`; throws `ValueConversionError` for one of another shape.
    public let decode: (Value) throws -> T

    /// A coder with these conversions.
    public init(type: AttributeType, encode: @escaping (T) throws -> Value, decode: @escaping (Value) throws -> T) {
        self.type = type
        self.encode = encode
        self.decode = decode
    }
}

extension ValueCoder where T: Storable {
    /// The coder of a `Storable` type: its own conversions.
    @inlinable public static var storable: ValueCoder {
        ValueCoder(type: T.storageType, encode: { $0.storedValue }, decode: { try T(storedValue: $0) })
    }
}

extension ValueCoder where T: RawRepresentable, T.RawValue: Storable {
    /// The coder of a `RawRepresentable` with a `Storable` raw value: the raw value is stored.
    @inlinable public static var rawRepresentable: ValueCoder {
        ValueCoder(type: T.RawValue.storageType, encode: { $0.rawValue.storedValue }, decode: { value in
            let raw = try T.RawValue(storedValue: value)
            guard let result = T(rawValue: raw) else {
                throw ValueConversionError(expected: "a raw value of \(T.self)", found: value)
            }
            return result
        })
    }
}

/// Optional of a RawRepresentable (an optional enum).
public protocol OptionalRawRepresentable {
    /// The wrapped `RawRepresentable` type.
    associatedtype WrappedRaw: RawRepresentable where WrappedRaw.RawValue: Storable
    /// The optional of `wrapped`.
    init(wrapped: WrappedRaw?)
    /// The wrapped value, or nil.
    var wrapped: WrappedRaw? { get }
}

extension Optional: OptionalRawRepresentable where Wrapped: RawRepresentable, Wrapped.RawValue: Storable {
    /// `wrapped` as it is.
    public init(wrapped: Wrapped?) { self = wrapped }
    /// The optional itself.
    public var wrapped: Wrapped? { self }
}

extension ValueCoder where T: OptionalRawRepresentable {
    /// The coder of an optional `RawRepresentable`: its raw value, or `.null`.
    @inlinable public static var optionalRawRepresentable: ValueCoder {
        let inner = ValueCoder<T.WrappedRaw>.rawRepresentable
        return ValueCoder(type: AttributeType(kind: inner.type.kind, isOptional: true), encode: { value in
            try value.wrapped.map(inner.encode) ?? .null
        }, decode: { value in
            value == .null ? T(wrapped: nil) : T(wrapped: try inner.decode(value))
        })
    }
}

/// Marks Optional so a Codable coder can tell an optional type and encode nil as `.null`.
public protocol AnyOptional {
    /// The wrapped type's name, for errors.
    static var wrappedTypeName: String { get }
    /// The wrapped type.
    static var wrappedType: Any.Type { get }
    /// Whether this is nil.
    var isNil: Bool { get }
    /// The wrapped value, or nil.
    var wrappedValue: Any? { get }
    /// nil, of this optional type.
    static var nilValue: Self { get }
}

/// `value` with one level of `Optional` taken off: nil when it is an optional holding nil,
/// `value` itself when it is no optional.
func unwrappingOptional(_ value: Any) -> Any? {
    guard let optional = value as? any AnyOptional else { return value }
    return optional.wrappedValue
}

extension Optional: AnyOptional {
    /// The wrapped type's name.
    public static var wrappedTypeName: String { String(describing: Wrapped.self) }
    /// The wrapped type.
    public static var wrappedType: Any.Type { Wrapped.self }
    /// Whether this is nil.
    public var isNil: Bool { self == nil }
    /// The wrapped value as `Any`, or nil.
    public var wrappedValue: Any? { self.map { $0 as Any } }
    /// nil.
    public static var nilValue: Self { nil }
}

extension ValueCoder where T: Codable {
    /// The coder of any other `Codable` type: its JSON encoding is stored (nil as `.null` for an
    /// optional).
    public static var codable: ValueCoder {
        let optional = T.self as? any AnyOptional.Type
        let name = optional?.wrappedTypeName ?? String(describing: T.self)
        return ValueCoder(type: AttributeType(kind: .codable(typeName: name), isOptional: optional != nil), encode: { value in
            if let optional = value as? any AnyOptional, optional.isNil { return .null }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return .data(try encoder.encode(value))
        }, decode: { value in
            if value == .null, let optional = T.self as? any AnyOptional.Type { return optional.nilValue as! T }
            guard case let .data(json) = value else { throw ValueConversionError(expected: "JSON of \(name)", found: value) }
            return try JSONDecoder().decode(T.self, from: json)
        })
    }
}

extension ValueCoder {
    /// A transformable attribute's coder: the value is stored as the `Data` its transformer
    /// makes of it (`AttributeOptions.transformable(by:)`), and read back with the reverse.
    public static func transformed(by options: AttributeOptions) -> ValueCoder {
        let optional = T.self as? any AnyOptional.Type
        let transformer = TransformerInHand(options)
        return ValueCoder(type: AttributeType(kind: .data, isOptional: optional != nil), encode: { value in
            guard let unwrapped = unwrappingOptional(value) else { return .null }
            let made = try transformer.get().transformedValue(unwrapped)
            guard let data = made as? Data else {
                throw ValueConversionError(expected: "Data from \(Swift.type(of: try transformer.get())) for a \(T.self)",
                                           found: .string(made.map { "\(Swift.type(of: $0))" } ?? "nil"))
            }
            return .data(data)
        }, decode: { stored in
            if stored == .null, let optional, let none = optional.nilValue as? T { return none }
            guard case let .data(data) = stored else { throw ValueConversionError(expected: "transformed Data", found: stored) }
            guard let value = try transformer.get().reverseTransformedValue(data) as? T else {
                throw ValueConversionError(expected: "a \(T.self) from \(Swift.type(of: try transformer.get()))'s reverse transformation", found: stored)
            }
            return value
        })
    }
}

/// A transformable attribute's transformer: a type's, made on first use; a name's, looked up
/// at each use (the app may register another under the name).
private final class TransformerInHand: @unchecked Sendable {
    private let options: AttributeOptions
    private let made = Locked<ValueTransformer?>(nil)

    init(_ options: AttributeOptions) { self.options = options }

    func get() throws -> ValueTransformer {
        if let transformer = made.value { return transformer }
        guard let transformer = options.transformer else {
            throw ValueConversionError(expected: "the attribute's ValueTransformer to be registered", found: .null)
        }
        if options.transformerIsAType { made.withLock { $0 = transformer } }
        return transformer
    }
}
