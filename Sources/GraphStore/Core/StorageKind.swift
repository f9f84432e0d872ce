/// The stored shape of an attribute: what the schema records and the graph keeps columns of.
/// Only the recursive cases are `indirect`: an indirect payload is a heap box, and every model
/// object's property wrappers carry their kind (`.int(bits: 64)` was an allocation per Int
/// property of every object made, and a retain on every read).
public enum StorageKind: Hashable, Sendable, CustomStringConvertible {
    /// `Bool`.
    case bool
    /// Signed integers of the given bit width (Int is 64).
    case int(bits: Int)
    /// Unsigned integers of the given bit width (UInt is 64).
    case uint(bits: Int)
    /// `Double`.
    case double
    /// `Float`, stored as its own 32 bits.
    case float
    /// `String`.
    case string
    /// `Date`, stored as seconds since 2001-01-01 (a `Double`).
    case date
    /// `Data`, inline or in a blob file (`.externalStorage`).
    case data
    /// `UUID`.
    case uuid
    /// `URL`, stored as its absolute string.
    case url
    /// `Decimal`, stored as its description.
    case decimal
    /// A Codable type, stored as its JSON encoding (the type name is recorded for diagnostics).
    case codable(typeName: String)
    /// An array of values of one kind.
    indirect case array(StorageKind)
    /// A dictionary from strings to values of one kind.
    indirect case dictionary(StorageKind)

    /// The Swift spelling of the type: `Int`, `[String]`, `Codable(Gate)`.
    public var description: String {
        switch self {
        case .bool: return "Bool"
        case let .int(bits): return bits == 64 ? "Int" : "Int\(bits)"
        case let .uint(bits): return bits == 64 ? "UInt" : "UInt\(bits)"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .date: return "Date"
        case .data: return "Data"
        case .uuid: return "UUID"
        case .url: return "URL"
        case .decimal: return "Decimal"
        case let .codable(name): return "Codable(\(name))"
        case let .array(element): return "[\(element)]"
        case let .dictionary(value): return "[String: \(value)]"
        }
    }
}

/// An attribute's declared type: its stored shape and whether it may be nil.
public struct AttributeType: Hashable, Sendable, CustomStringConvertible {
    /// How the values are stored.
    public var kind: StorageKind
    /// Whether the attribute may hold nil.
    public var isOptional: Bool

    /// An attribute type of `kind`, optional or not.
    public init(kind: StorageKind, isOptional: Bool) {
        self.kind = kind
        self.isOptional = isOptional
    }

    /// The Swift spelling: `Int`, `String?`.
    public var description: String { isOptional ? "\(kind)?" : "\(kind)" }
}
