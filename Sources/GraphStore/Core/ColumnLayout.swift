/// How a column keeps its values in memory, the same for the graph's columns and a batch's:
/// bools, integers, floating-point numbers and dates as 8-byte words (or their typed arrays),
/// strings as strings, anything else as `Value`s. The raw values are the checkpoint format's
/// column layouts (Docs/FILE-FORMAT.md).
@usableFromInline package enum ColumnLayout: UInt8, Sendable {
    /// Nothing stored yet: a batch column before its first value. A graph column is never made
    /// with it, and would keep `Value`s.
    case none = 0
    case bool, int, uint, double, float, date, string, value

    /// The layout a column of attributes of `kind` keeps.
    package init(storing kind: StorageKind) {
        switch kind {
        case .bool: self = .bool
        case .int: self = .int
        case .uint: self = .uint
        case .double: self = .double
        case .float: self = .float
        case .date: self = .date
        case .string: self = .string
        default: self = .value
        }
    }

    /// The layout that keeps `value` without making it a `Value`.
    package init(holding value: Value) {
        switch value {
        case .bool: self = .bool
        case .int: self = .int
        case .uint: self = .uint
        case .double: self = .double
        case .float: self = .float
        case .date: self = .date
        case .string: self = .string
        default: self = .value
        }
    }
}
