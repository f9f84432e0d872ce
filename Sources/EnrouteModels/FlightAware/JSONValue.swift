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
        var text = JSONText(capacity: 1_024)
        defer { text.deallocate() }
        write(into: &text, depth: 0)
        if newline { text.append(0x0A) }
        return text.data
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
    static func streamArray<S: Sequence>(_ elements: S, writing: (S.Element, inout JSONText, Int) throws -> Void,
                                         to sink: (Data) throws -> Void) throws {
        var text = JSONText(capacity: 1 << 20 + 4_096)
        defer { text.deallocate() }
        try writeArray(elements, depth: 0, into: &text, writing: writing) { text in
            guard text.count >= 1 << 20 else { return }
            try sink(text.data)
            text.removeAll()
        }
        text.append(0x0A)
        try sink(text.data)
    }

    /// `[`, each element on a line of its own one level deeper (`writing` writes it at the depth
    /// given), `]`; `afterEach` sees the bytes after each element (to hand them on).
    static func writeArray<S: Sequence>(_ elements: S, depth: Int, into bytes: inout JSONText,
                                        writing: (S.Element, inout JSONText, Int) throws -> Void,
                                        afterEach: (inout JSONText) throws -> Void) rethrows {
        bytes.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            bytes.appendNewline(depth: depth + 1)
            try writing(element, &bytes, depth + 1)
            try afterEach(&bytes)
        }
        // An empty array or object still spans lines, with a blank one between.
        if first { bytes.append(0x0A) }
        bytes.appendNewline(depth: depth)
        bytes.append(UInt8(ascii: "]"))
    }

    func write(into bytes: inout JSONText, depth: Int) {
        switch self {
        case .null: bytes.append(literal: "null")
        case .bool(let value): bytes.append(literal: value ? "true" : "false")
        case .int(let value): Self.writeInteger(value, into: &bytes)
        case .double(let value):
            // Whole numbers print without a fraction, as JSONSerialization prints them.
            if value == value.rounded(), abs(value) < 1e15 { Self.writeInteger(Int(value), into: &bytes) } else {
                var description = value.description
                description.withUTF8 { bytes.append($0) }
            }
        case .string(let value): Self.writeString(value, into: &bytes)
        case .array(let elements):
            Self.writeArray(elements, depth: depth, into: &bytes, writing: { $0.write(into: &$1, depth: $2) }, afterEach: { _ in })
        case .object(let entries):
            bytes.append(UInt8(ascii: "{"))
            if entries.isEmpty { bytes.append(0x0A) } else { bytes.appendNewline(depth: depth + 1) }
            let inOrder = zip(entries, entries.dropFirst()).allSatisfy { Self.precedes($0.0.key, $0.1.key) }
            for (i, entry) in (inOrder ? entries : entries.sorted { Self.precedes($0.key, $1.key) }).enumerated() {
                if i > 0 {
                    bytes.append(UInt8(ascii: ","))
                    bytes.appendNewline(depth: depth + 1)
                }
                Self.writeString(entry.key, into: &bytes)
                bytes.append(literal: " : ")
                entry.value.write(into: &bytes, depth: depth + 1)
            }
            bytes.appendNewline(depth: depth)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Byte order, for the ASCII keys these documents have (String's `<` compares them with
    /// one memcmp; for keys beyond ASCII it is Unicode scalar order after normalization).
    static func precedes(_ a: String, _ b: String) -> Bool { a < b }

    static func writeInteger(_ value: Int, into bytes: inout JSONText) {
        // Twenty bytes hold Int.min's sign and nineteen digits.
        bytes.append(atMost: 20) { out in
            var digits = 1, rest = value.magnitude / 10
            while rest > 0 { digits += 1; rest /= 10 }
            let sign = value < 0 ? 1 : 0
            if sign == 1 { out[0] = UInt8(ascii: "-") }
            var magnitude = value.magnitude
            for i in stride(from: sign + digits - 1, through: sign, by: -1) {
                out[i] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            return sign + digits
        }
    }

    static func writeString(_ value: String, into bytes: inout JSONText) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { text in
            // Most strings need no escape: copied whole, after one pass that finds none.
            var start = 0, i = 0
            while i < text.count {
                let byte = text[i]
                i += 1
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(UnsafeBufferPointer(rebasing: text[start..<(i - 1)]))
                start = i
                switch byte {
                case UInt8(ascii: "\""): bytes.append(literal: "\\\"")
                case UInt8(ascii: "\\"): bytes.append(literal: "\\\\")
                case 0x0A: bytes.append(literal: "\\n")
                case 0x0D: bytes.append(literal: "\\r")
                case 0x09: bytes.append(literal: "\\t")
                case 0x08: bytes.append(literal: "\\b")
                case 0x0C: bytes.append(literal: "\\f")
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(literal: "\\u00")
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                }
            }
            bytes.append(UnsafeBufferPointer(rebasing: text[start...]))
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
