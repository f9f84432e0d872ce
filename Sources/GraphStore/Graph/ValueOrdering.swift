import Foundation
import GraphStoreCore

/// A total order over values, for sorted indexes: nil first, then by kind, then within a kind
/// numerically or by Swift's String ordering (what #Predicate's comparisons use).
extension Value {
    private var kindRank: Int {
        switch self {
        case .null: return 0
        case .bool: return 1
        case .int, .uint, .double, .float: return 2
        case .date: return 3
        case .string: return 4
        case .data: return 5
        case .uuid: return 6
        case .url: return 7
        case .decimal: return 8
        case .array: return 9
        case .dictionary: return 10
        case .blob: return 11
        }
    }

    /// Orders two values; numbers of different widths compare by magnitude.
    package static func ordered(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case let (.bool(x), .bool(y)): return !x && y
        case let (.int(x), .int(y)): return x < y
        case let (.uint(x), .uint(y)): return x < y
        case let (.int(x), .uint(y)): return x < 0 || UInt64(x) < y
        case let (.uint(x), .int(y)): return y >= 0 && x < UInt64(y)
        case let (.string(x), .string(y)): return x < y
        case let (.date(x), .date(y)): return x < y
        case let (.uuid(x), .uuid(y)): return x.uuidString < y.uuidString
        case let (.url(x), .url(y)): return x.absoluteString < y.absoluteString
        case let (.decimal(x), .decimal(y)): return x < y
        case let (.data(x), .data(y)): return x.lexicographicallyPrecedes(y)
        default:
            if a.kindRank == 2 && b.kindRank == 2, let x = a.numericValue, let y = b.numericValue { return x < y }
            if a.kindRank != b.kindRank { return a.kindRank < b.kindRank }
            return a.description < b.description
        }
    }

    package var numericValue: Double? {
        switch self {
        case let .int(v): return Double(v)
        case let .uint(v): return Double(v)
        case let .double(v): return v
        case let .float(v): return Double(v)
        default: return nil
        }
    }
}
