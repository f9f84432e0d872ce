import Foundation

/// A JSON document, written the way FlightAware's files and `enroute flights --json` print it:
/// two-space indentation, `"key" : value`, keys in byte order, slashes unescaped, explicit
/// nulls. It writes the same bytes `JSONSerialization` writes with `.prettyPrinted`,
/// `.sortedKeys` and `.withoutEscapingSlashes` for these documents (whose keys are ASCII), at a
/// small fraction of the cost: that writer sorts keys by locale collation, which dominated
/// writing a million flights.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Entries in any order; written sorted by key.
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: return false
        }
    }

    /// The pretty-printed text, with a final newline when `newline` is set.
    public func prettyPrinted(newline: Bool = false) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1_024)
        write(into: &bytes, depth: 0)
        if newline { bytes.append(0x0A) }
        return Data(bytes)
    }

    /// Writes a pretty-printed array of `elements` through `sink` a megabyte at a time, making
    /// each element's value only when it is written: a million flights print without a million
    /// values in memory. The bytes are those of `.array(elements).prettyPrinted(newline: true)`.
    public static func writeArray<S: Sequence>(_ elements: S, value: (S.Element) throws -> JSONValue,
                                              to sink: (Data) throws -> Void) throws {
        try streamArray(elements, writing: { try value($0).write(into: &$1, depth: $2) }, to: sink)
    }

    /// A top-level array, each element written by `writing`, handed to `sink` a megabyte at a
    /// time, with the final newline.
    static func streamArray<S: Sequence>(_ elements: S, writing: (S.Element, inout [UInt8], Int) throws -> Void,
                                         to sink: (Data) throws -> Void) throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 << 20 + 4_096)
        try writeArray(elements, depth: 0, into: &bytes, writing: writing) { bytes in
            guard bytes.count >= 1 << 20 else { return }
            try sink(Data(bytes))
            bytes.removeAll(keepingCapacity: true)
        }
        bytes.append(0x0A)
        try sink(Data(bytes))
    }

    /// `[`, each element on a line of its own one level deeper (`writing` writes it at the depth
    /// given), `]`; `afterEach` sees the bytes after each element (to hand them on).
    static func writeArray<S: Sequence>(_ elements: S, depth: Int, into bytes: inout [UInt8],
                                        writing: (S.Element, inout [UInt8], Int) throws -> Void,
                                        afterEach: (inout [UInt8]) throws -> Void) rethrows {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            newline(into: &bytes, depth: depth + 1)
            try writing(element, &bytes, depth + 1)
            try afterEach(&bytes)
        }
        // An empty array or object still spans lines, with a blank one between.
        if first { bytes.append(0x0A) }
        newline(into: &bytes, depth: depth)
        bytes.append(UInt8(ascii: "]"))
    }

    func write(into bytes: inout [UInt8], depth: Int) {
        switch self {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let value): bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value): Self.writeInteger(value, into: &bytes)
        case .double(let value):
            // Whole numbers print without a fraction, as JSONSerialization prints them.
            if value == value.rounded(), abs(value) < 1e15 { Self.writeInteger(Int(value), into: &bytes) } else {
                bytes.append(contentsOf: value.description.utf8)
            }
        case .string(let value): Self.writeString(value, into: &bytes)
        case .array(let elements):
            Self.writeArray(elements, depth: depth, into: &bytes, writing: { $0.write(into: &$1, depth: $2) }, afterEach: { _ in })
        case .object(let entries):
            bytes.append(UInt8(ascii: "{"))
            if entries.isEmpty { bytes.append(0x0A) } else { Self.newline(into: &bytes, depth: depth + 1) }
            let inOrder = zip(entries, entries.dropFirst()).allSatisfy { Self.precedes($0.0.key, $0.1.key) }
            for (i, entry) in (inOrder ? entries : entries.sorted { Self.precedes($0.key, $1.key) }).enumerated() {
                if i > 0 {
                    bytes.append(UInt8(ascii: ","))
                    Self.newline(into: &bytes, depth: depth + 1)
                }
                Self.writeString(entry.key, into: &bytes)
                bytes.append(contentsOf: " : ".utf8)
                entry.value.write(into: &bytes, depth: depth + 1)
            }
            Self.newline(into: &bytes, depth: depth)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Byte order, for the ASCII keys these documents have (String's `<` compares them with
    /// one memcmp; for keys beyond ASCII it is Unicode scalar order after normalization).
    static func precedes(_ a: String, _ b: String) -> Bool { a < b }

    static func newline(into bytes: inout [UInt8], depth: Int) {
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    static func writeInteger(_ value: Int, into bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }

    static func writeString(_ value: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { text in
            // Most strings need no escape: copied whole.
            var start = 0
            for (i, byte) in text.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start..<i]))
                start = i + 1
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: "\\\"".utf8)
                case UInt8(ascii: "\\"): bytes.append(contentsOf: "\\\\".utf8)
                case 0x0A: bytes.append(contentsOf: "\\n".utf8)
                case 0x0D: bytes.append(contentsOf: "\\r".utf8)
                case 0x09: bytes.append(contentsOf: "\\t".utf8)
                case 0x08: bytes.append(contentsOf: "\\b".utf8)
                case 0x0C: bytes.append(contentsOf: "\\f".utf8)
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: "\\u00".utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// A date as FlightAware writes it: ISO 8601 in UTC, whole seconds (a fraction is dropped,
    /// as `ISO8601DateFormatter` drops it).
    public static func date(_ date: Date?) -> JSONValue {
        guard let date else { return .null }
        return .string(FeedTime.text(secondsSince1970: Int((date.timeIntervalSince1970).rounded(.down))))
    }

    /// A string, or null.
    public static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    /// An integer, or null.
    public static func number(_ value: Int?) -> JSONValue { value.map(JSONValue.int) ?? .null }
    /// A Boolean, or null.
    public static func flag(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
}
