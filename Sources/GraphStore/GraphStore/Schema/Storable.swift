import Foundation
import GraphStoreCore

/// A type GraphStore stores natively, converting to and from `Value` without going through
/// Codable. Optional, Array and String-keyed Dictionary of storable types are storable too.
/// Other types reach the store as RawRepresentable (their raw value) or Codable (JSON).
public protocol Storable: Sendable {
    static var storageType: AttributeType { get }
    var storedValue: Value { get }
    /// Throws `ValueConversionError` when the stored value has another shape.
    init(storedValue: Value) throws
}

public struct ValueConversionError: Error, CustomStringConvertible, Sendable {
    public var expected: String
    public var found: Value
    public var description: String { "expected \(expected), found \(found)" }

    public init(expected: String, found: Value) {
        self.expected = expected
        self.found = found
    }
}

extension Bool: Storable {
    public static var storageType: AttributeType { AttributeType(kind: .bool, isOptional: false) }
    public var storedValue: Value { .bool(self) }
    public init(storedValue: Value) throws {
        guard case let .bool(v) = storedValue else { throw ValueConversionError(expected: "Bool", found: storedValue) }
        self = v
    }
}

/// Fixed-width signed integers share one stored form (`Value.int`).
public protocol StorableSignedInteger: Storable, FixedWidthInteger, SignedInteger {}
extension StorableSignedInteger {
    public static var storageType: AttributeType { AttributeType(kind: .int(bits: bitWidth), isOptional: false) }
    public var storedValue: Value { .int(Int64(self)) }
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
    public static var storageType: AttributeType { AttributeType(kind: .uint(bits: bitWidth), isOptional: false) }
    public var storedValue: Value { .uint(UInt64(self)) }
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
    public static var storageType: AttributeType { AttributeType(kind: .double, isOptional: false) }
    public var storedValue: Value { .double(self) }
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
    public static var storageType: AttributeType { AttributeType(kind: .float, isOptional: false) }
    public var storedValue: Value { .float(self) }
    public init(storedValue: Value) throws {
        switch storedValue {
        case let .float(v): self = v
        case let .double(v): self = Float(v)
        default: throw ValueConversionError(expected: "Float", found: storedValue)
        }
    }
}

extension String: Storable {
    public static var storageType: AttributeType { AttributeType(kind: .string, isOptional: false) }
    public var storedValue: Value { .string(self) }
    public init(storedValue: Value) throws {
        guard case let .string(v) = storedValue else { throw ValueConversionError(expected: "String", found: storedValue) }
        self = v
    }
}

extension Date: Storable {
    public static var storageType: AttributeType { AttributeType(kind: .date, isOptional: false) }
    public var storedValue: Value { .date(self) }
    public init(storedValue: Value) throws {
        guard case let .date(v) = storedValue else { throw ValueConversionError(expected: "Date", found: storedValue) }
        self = v
    }
}

extension Data: Storable {
    public static var storageType: AttributeType { AttributeType(kind: .data, isOptional: false) }
    public var storedValue: Value { .data(self) }
    public init(storedValue: Value) throws {
        guard case let .data(v) = storedValue else { throw ValueConversionError(expected: "Data", found: storedValue) }
        self = v
    }
}

extension UUID: Storable {
    public static var storageType: AttributeType { AttributeType(kind: .uuid, isOptional: false) }
    public var storedValue: Value { .uuid(self) }
    public init(storedValue: Value) throws {
        guard case let .uuid(v) = storedValue else { throw ValueConversionError(expected: "UUID", found: storedValue) }
        self = v
    }
}

extension URL: Storable {
    public static var storageType: AttributeType { AttributeType(kind: .url, isOptional: false) }
    public var storedValue: Value { .url(self) }
    public init(storedValue: Value) throws {
        guard case let .url(v) = storedValue else { throw ValueConversionError(expected: "URL", found: storedValue) }
        self = v
    }
}

extension Decimal: Storable {
    public static var storageType: AttributeType { AttributeType(kind: .decimal, isOptional: false) }
    public var storedValue: Value { .decimal(self) }
    public init(storedValue: Value) throws {
        guard case let .decimal(v) = storedValue else { throw ValueConversionError(expected: "Decimal", found: storedValue) }
        self = v
    }
}

extension Optional: Storable where Wrapped: Storable {
    public static var storageType: AttributeType { AttributeType(kind: Wrapped.storageType.kind, isOptional: true) }
    public var storedValue: Value { self?.storedValue ?? .null }
    public init(storedValue: Value) throws {
        self = storedValue == .null ? nil : try Wrapped(storedValue: storedValue)
    }
}

extension Array: Storable where Element: Storable {
    public static var storageType: AttributeType { AttributeType(kind: .array(Element.storageType.kind), isOptional: false) }
    public var storedValue: Value { .array(map(\.storedValue)) }
    public init(storedValue: Value) throws {
        guard case let .array(items) = storedValue else { throw ValueConversionError(expected: "Array", found: storedValue) }
        self = try items.map(Element.init(storedValue:))
    }
}

extension Dictionary: Storable where Key == String, Value: Storable {
    public static var storageType: AttributeType { AttributeType(kind: .dictionary(Value.storageType.kind), isOptional: false) }
    public var storedValue: GraphStore.Value { .dictionary(mapValues(\.storedValue)) }
    public init(storedValue: GraphStore.Value) throws {
        guard case let .dictionary(entries) = storedValue else { throw ValueConversionError(expected: "Dictionary", found: storedValue) }
        self = try entries.mapValues(Value.init(storedValue:))
    }
}
