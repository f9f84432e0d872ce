import Foundation

/// Writes one object's entries straight into a document's text, laid out as `JSONValue` lays
/// out an object, without making a value per entry: printing a million flights as values made
/// and freed sixteen million of them, and as many date strings.
///
/// Entries come in their keys' byte order, the order `JSONValue` sorts an object's keys into
/// (checked in debug builds). `JSONValue.writeArray(_:entries:to:)` makes one for each element.
public struct JSONObjectWriter {
    private var bytes: [UInt8]
    private let depth: Int
    private var entries = 0
    #if DEBUG
    private var lastKey: String?
    #endif

    /// Writes an object at `depth` onto the end of `bytes`, its entries written by `entries`.
    static func write(into bytes: inout [UInt8], depth: Int, entries: (inout JSONObjectWriter) throws -> Void) rethrows {
        var object = JSONObjectWriter(bytes: [], depth: depth)
        swap(&object.bytes, &bytes)
        defer { swap(&object.bytes, &bytes) }
        object.bytes.append(UInt8(ascii: "{"))
        try entries(&object)
        object.finish()
    }

    private init(bytes: [UInt8], depth: Int) {
        self.bytes = bytes
        self.depth = depth
    }

    /// A string entry; nil writes `null`.
    public mutating func string(_ key: StaticString, _ value: String?) {
        self.key(key)
        if let value { JSONValue.writeString(value, into: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
    }

    /// An integer entry; nil writes `null`.
    public mutating func int(_ key: StaticString, _ value: Int?) {
        self.key(key)
        if let value { JSONValue.writeInteger(value, into: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
    }

    /// A date entry as `JSONValue.date` writes it (ISO 8601, UTC, whole seconds); nil writes `null`.
    public mutating func date(_ key: StaticString, _ value: Date?) {
        self.key(key)
        guard let value else { return bytes.append(contentsOf: "null".utf8) }
        bytes.append(UInt8(ascii: "\""))
        FeedTime.write(secondsSince1970: Int(value.timeIntervalSince1970.rounded(.down)), into: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// Any other value.
    public mutating func value(_ key: StaticString, _ value: JSONValue) {
        self.key(key)
        value.write(into: &bytes, depth: depth + 1)
    }

    private mutating func key(_ key: StaticString) {
        #if DEBUG
        let text = key.description
        assert(lastKey.map { JSONValue.precedes($0, text) } ?? true, "JSONObjectWriter: \(text) written after \(lastKey ?? "")")
        lastKey = text
        #endif
        if entries > 0 { bytes.append(UInt8(ascii: ",")) }
        entries += 1
        JSONValue.newline(into: &bytes, depth: depth + 1)
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\" : ".utf8)
    }

    /// Closes the object: what `JSONValue.write` writes after the last entry (a blank line in an empty object).
    private mutating func finish() {
        if entries == 0 { bytes.append(0x0A) }
        JSONValue.newline(into: &bytes, depth: depth)
        bytes.append(UInt8(ascii: "}"))
    }
}

extension JSONValue {
    /// Writes a pretty-printed array of objects through `sink` a megabyte at a time, each
    /// element's entries written by `entries` straight into the text. The bytes are those of
    /// `writeArray(_:value:to:)` given the same entries as values, with keys that need no escape.
    public static func writeArray<S: Sequence>(_ elements: S, entries: (S.Element, inout JSONObjectWriter) throws -> Void,
                                              to sink: (Data) throws -> Void) throws {
        try streamArray(elements, writing: { element, bytes, depth in
            try JSONObjectWriter.write(into: &bytes, depth: depth) { try entries(element, &$0) }
        }, to: sink)
    }
}
