import Foundation

/// A type GraphStore stores natively, converting to and from `Value` without going through
/// Codable. Optional, Array and String-keyed Dictionary of storable types are storable too.
/// Other types reach the store as RawRepresentable (their raw value) or Codable (JSON).
public protocol Storable: Sendable {
    /// How values of the type are stored: the kind of column and whether nil is allowed.
    static var storageType: AttributeType { get }
    /// The value as the graph stores it.
    var storedValue: Value { get }
    /// Throws `ValueConversionError` when the stored value has another shape.
    init(storedValue: Value) throws
}

/// A stored value had another shape than the property's type expects (a model read a store written
/// with another type for the attribute).
public struct ValueConversionError: Error, CustomStringConvertible, Sendable {
    /// The type the property expects.
    public var expected: String
    /// The value found.
    public var found: Value
    /// What was expected and what was found.
    public var description: String { "expected \(expected), found \(found)" }

    /// An error for `found`, where a value of `expected` was wanted.
    public init(expected: String, found: Value) {
        self.expected = expected
        self.found = found
    }
}

extension Bool: Storable {
    /// A non-optional Bool column.
    public static var storageType: AttributeType { AttributeType(kind: .bool, isOptional: false) }
    /// `.bool`.
    public var storedValue: Value { .bool(self) }
    /// From `.bool`; anything else throws `ValueConversionError`.
    public init(storedValue: Value) throws {
        guard case let .bool(v) = storedValue else { throw ValueConversionError(expected: "Bool", found: storedValue) }
        self = v
    }
}

/// Fixed-width signed integers share one stored form (`Value.int`).
public protocol StorableSignedInteger: Storable, FixedWidthInteger, SignedInteger {}
extension StorableSignedInteger {
    /// A non-optional signed integer column of the type's width.
    public static var storageType: AttributeType { AttributeType(kind: .int(bits: bitWidth), isOptional: false) }
    /// `.int`, widened to 64 bits.
    public var storedValue: Value { .int(Int64(self)) }
    /// From `.int` or `.uint` when the value fits the type; anything else throws
    /// `ValueConversionError`.
    public init(storedValue: Value) throws {
        switch storedValue {
        case let .int(v) where Self(exactly: v) != nil: self = Self(v)
        case let .uint(v) where Self(exactly: v) != nil: self = Self(v)
        default: throw ValueConversionError(expected: "\(Self.self)", found: storedValue)
        }
    }
}
extension Int: StorableSignedInteger {}
extension Int8: StorableSignedInteger {}
extension Int16: StorableSignedInteger {}
extension Int32: StorableSignedInteger {}
extension Int64: StorableSignedInteger {}

/// Fixed-width unsigned integers share one stored form (`Value.uint`).
public protocol StorableUnsignedInteger: Storable, FixedWidthInteger, UnsignedInteger {}
extension StorableUnsignedInteger {
    /// A non-optional unsigned integer column of the type's width.
    public static var storageType: AttributeType { AttributeType(kind: .uint(bits: bitWidth), isOptional: false) }
    /// `.uint`, widened to 64 bits.
    public var storedValue: Value { .uint(UInt64(self)) }
    /// From `.uint` or `.int` when the value fits the type; anything else throws
    /// `ValueConversionError`.
    public init(storedValue: Value) throws {
        switch storedValue {
        case let .uint(v) where Self(exactly: v) != nil: self = Self(v)
        case let .int(v) where Self(exactly: v) != nil: self = Self(v)
        default: throw ValueConversionError(expected: "\(Self.self)", found: storedValue)
        }
    }
}
extension UInt: StorableUnsignedInteger {}
extension UInt8: StorableUnsignedInteger {}
extension UInt16: StorableUnsignedInteger {}
extension UInt32: StorableUnsignedInteger {}
extension UInt64: StorableUnsignedInteger {}

extension Double: Storable {
    /// A non-optional Double column.
    public static var storageType: AttributeType { AttributeType(kind: .double, isOptional: false) }
    /// `.double`.
    public var storedValue: Value { .double(self) }
    /// From `.double`, `.float` or `.int`; anything else throws `ValueConversionError`.
    public init(storedValue: Value) throws {
        switch storedValue {
        case let .double(v): self = v
        case let .float(v): self = Double(v)
        case let .int(v): self = Double(v)
        default: throw ValueConversionError(expected: "Double", found: storedValue)
        }
    }
}

extension Float: Storable {
    /// A non-optional Float column.
    public static var storageType: AttributeType { AttributeType(kind: .float, isOptional: false) }
    /// `.float`.
    public var storedValue: Value { .float(self) }
    /// From `.float` or `.double`; anything else throws `ValueConversionError`.
    public init(storedValue: Value) throws {
        switch storedValue {
        case let .float(v): self = v
        case let .double(v): self = Float(v)
        default: throw ValueConversionError(expected: "Float", found: storedValue)
        }
    }
}

extension String: Storable {
    /// A non-optional String column.
    public static var storageType: AttributeType { AttributeType(kind: .string, isOptional: false) }
    /// `.string`.
    public var storedValue: Value { .string(self) }
    /// From `.string`; anything else throws `ValueConversionError`.
    public init(storedValue: Value) throws {
        guard case let .string(v) = storedValue else { throw ValueConversionError(expected: "String", found: storedValue) }
        self = v
    }
}

extension Date: Storable {
    /// A non-optional Date column.
    public static var storageType: AttributeType { AttributeType(kind: .date, isOptional: false) }
    /// `.date`.
    public var storedValue: Value { .date(self) }
    /// From `.date`; anything else throws `ValueConversionError`.
    public init(storedValue: Value) throws {
        guard case let .date(v) = storedValue else { throw ValueConversionError(expected: "Date", found: storedValue) }
        self = v
    }
}

extension Data: Storable {
    /// A non-optional Data column.
    public static var storageType: AttributeType { AttributeType(kind: .data, isOptional: false) }
    /// `.data`.
    public var storedValue: Value { .data(self) }
    /// From `.data`; anything else throws `ValueConversionError`.
    public init(storedValue: Value) throws {
        guard case let .data(v) = storedValue else { throw ValueConversionError(expected: "Data", found: storedValue) }
        self = v
    }
}

extension UUID: Storable {
    /// A non-optional UUID column.
    public static var storageType: AttributeType { AttributeType(kind: .uuid, isOptional: false) }
    /// `.uuid`.
    public var storedValue: Value { .uuid(self) }
    /// From `.uuid`; anything else throws `ValueConversionError`.
    public init(storedValue: Value) throws {
        guard case let .uuid(v) = storedValue else { throw ValueConversionError(expected: "UUID", found: storedValue) }
        self = v
    }
}

extension URL: Storable {
    /// A non-optional URL column.
    public static var storageType: AttributeType { AttributeType(kind: .url, isOptional: false) }
    /// `.url`.
    public var storedValue: Value { .url(self) }
    /// From `.url`; anything else throws `ValueConversionError`.
    public init(storedValue: Value) throws {
        guard case let .url(v) = storedValue else { throw ValueConversionError(expected: "URL", found: storedValue) }
        self = v
    }
}

extension Decimal: Storable {
    /// A non-optional Decimal column.
    public static var storageType: AttributeType { AttributeType(kind: .decimal, isOptional: false) }
    /// `.decimal`.
    public var storedValue: Value { .decimal(self) }
    /// From `.decimal`; anything else throws `ValueConversionError`.
    public init(storedValue: Value) throws {
        guard case let .decimal(v) = storedValue else { throw ValueConversionError(expected: "Decimal", found: storedValue) }
        self = v
    }
}

// Inlinable, so that an optional attribute's accessors (`Date?`) specialise the conversion
// instead of looking the optional's type up at run time on every read and write.
extension Optional: Storable where Wrapped: Storable {
    /// The wrapped type's column, with nil allowed.
    public static var storageType: AttributeType { AttributeType(kind: Wrapped.storageType.kind, isOptional: true) }
    /// `.null` for nil, otherwise the wrapped value's.
    @inlinable public var storedValue: Value {
        guard let wrapped = self else { return .null }
        return wrapped.storedValue
    }
    /// nil from `.null`, otherwise the wrapped type's conversion.
    @inlinable public init(storedValue: Value) throws {
        if case .null = storedValue { self = nil } else { self = try Wrapped(storedValue: storedValue) }
    }
}

extension Array: Storable where Element: Storable {
    /// An array column of the element type.
    public static var storageType: AttributeType { AttributeType(kind: .array(Element.storageType.kind), isOptional: false) }
    /// The elements' stored values, in order.
    public var storedValue: Value { .array(map(\.storedValue)) }
    /// The elements, each converted as its type converts; throws `ValueConversionError` for anything but an array.
    public init(storedValue: Value) throws {
        guard case let .array(items) = storedValue else { throw ValueConversionError(expected: "Array", found: storedValue) }
        self = try items.map(Element.init(storedValue:))
    }
}

extension Dictionary: Storable where Key == String, Value: Storable {
    /// A dictionary column of the value type, keyed by string.
    public static var storageType: AttributeType { AttributeType(kind: .dictionary(Value.storageType.kind), isOptional: false) }
    /// The values' stored forms, by key.
    public var storedValue: GraphStore.Value { .dictionary(mapValues(\.storedValue)) }
    /// The values, each converted as its type converts; throws `ValueConversionError` for anything but a dictionary.
    public init(storedValue: GraphStore.Value) throws {
        guard case let .dictionary(entries) = storedValue else { throw ValueConversionError(expected: "Dictionary", found: storedValue) }
        self = try entries.mapValues(Value.init(storedValue:))
    }
}
