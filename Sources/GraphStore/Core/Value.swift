import Foundation

/// A stored attribute value: the closed set of shapes the log and the graph hold.
///
/// Model property types map onto these (issue-level detail in Docs/guides/modelling.md):
/// fixed-width integers onto `int`/`uint`, enums onto their raw value, Codable structs onto
/// `array`/`dictionary` trees, Optional's nil onto `null`.
///
/// The two payloads wider than 16 bytes (`Decimal`, `BlobReference`) are boxed (`indirect`), so
/// a value is 17 bytes, not 29: every column of values, batch slot and record value is a
/// quarter smaller for the price of an allocation per rare decimal or blob.
public enum Value: Hashable, Sendable {
    /// No value: an optional attribute's nil.
    case null
    /// A `Bool`.
    case bool(Bool)
    /// A signed integer of any width, widened to 64 bits.
    case int(Int64)
    /// An unsigned integer of any width, widened to 64 bits.
    case uint(UInt64)
    /// A `Double`.
    case double(Double)
    /// A `Float`.
    case float(Float)
    /// A `String`.
    case string(String)
    /// `Data` kept inline.
    case data(Data)
    /// A `Date`.
    case date(Date)
    /// A `UUID`.
    case uuid(UUID)
    /// A `URL`.
    case url(URL)
    /// A `Decimal`.
    indirect case decimal(Decimal)
    /// An array (a Codable value's, or an array attribute's elements).
    case array([Value])
    /// A dictionary with string keys (a Codable value's fields).
    case dictionary([String: Value])
    /// An external-storage `Data` attribute's bytes, kept in a blob file beside the log; models
    /// never see this case (reads resolve it to `.data`).
    indirect case blob(BlobReference)
}

extension Value: CustomStringConvertible {
    /// The value as a person reads it: strings quoted, dates in ISO 8601, data by size.
    public var description: String {
        switch self {
        case .null: return "nil"
        case let .bool(v): return String(v)
        case let .int(v): return String(v)
        case let .uint(v): return String(v)
        case let .double(v): return String(v)
        case let .float(v): return String(v)
        case let .string(v): return String(reflecting: v)
        case let .data(v): return "<\(v.count) bytes>"
        case let .date(v): return v.formatted(.iso8601)
        case let .uuid(v): return v.uuidString
        case let .url(v): return v.absoluteString
        case let .decimal(v): return v.description
        case let .array(v): return "[" + v.map(\.description).joined(separator: ", ") + "]"
        case let .dictionary(v):
            return "[" + v.sorted { $0.key < $1.key }.map { "\(String(reflecting: $0.key)): \($0.value)" }
                .joined(separator: ", ") + "]"
        case let .blob(reference): return "<blob \(reference.id.uuidString), \(reference.length) bytes>"
        }
    }
}
