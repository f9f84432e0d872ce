import Foundation

/// Writes one object's entries straight into a document's text, laid out as `JSONValue` lays
/// out an object, without making a value per entry: printing a million flights as values made
/// and freed sixteen million of them, and as many date strings.
///
/// Entries come in their keys' byte order, the order `JSONValue` sorts an object's keys into
/// (checked in debug builds). `JSONValue.writeArray(_:entries:to:)` makes one for each element.
/// Not copyable: it writes into the document's text, lent to it for the object's entries only.
public struct JSONObjectWriter: ~Copyable {
    private let text: UnsafeMutablePointer<JSONText>
    private let depth: Int
    private var entries = 0
    #if DEBUG
    private var lastKey: String?
    #endif

    /// Writes an object at `depth` onto the end of `text`, its entries written by `entries`.
    static func write(into text: inout JSONText, depth: Int, entries: (inout JSONObjectWriter) throws -> Void) rethrows {
        text.append(UInt8(ascii: "{"))
        try withUnsafeMutablePointer(to: &text) { text in
            var object = JSONObjectWriter(text: text, depth: depth)
            try entries(&object)
            object.finish()
        }
    }

    private init(text: UnsafeMutablePointer<JSONText>, depth: Int) {
        self.text = text
        self.depth = depth
    }

    /// A string entry; nil writes `null`.
    public mutating func string(_ key: StaticString, _ value: String?) {
        self.key(key)
        if let value { JSONValue.writeString(value, into: &text.pointee) } else { text.pointee.append(literal: "null") }
    }

    /// An integer entry; nil writes `null`.
    public mutating func int(_ key: StaticString, _ value: Int?) {
        self.key(key)
        if let value { JSONValue.writeInteger(value, into: &text.pointee) } else { text.pointee.append(literal: "null") }
    }

    /// A date entry as `JSONValue.date` writes it (ISO 8601, UTC, whole seconds); nil writes `null`.
    public mutating func date(_ key: StaticString, _ value: Date?) {
        self.key(key)
        guard let value else { return text.pointee.append(literal: "null") }
        let seconds = Int(value.timeIntervalSince1970.rounded(.down))
        text.pointee.append(atMost: FeedTime.length + 2) { out in
            out[0] = UInt8(ascii: "\"")
            FeedTime.write(secondsSince1970: seconds, to: out + 1)
            out[FeedTime.length + 1] = UInt8(ascii: "\"")
            return FeedTime.length + 2
        }
    }

    /// Any other value.
    public mutating func value(_ key: StaticString, _ value: JSONValue) {
        self.key(key)
        value.write(into: &text.pointee, depth: depth + 1)
    }

    private mutating func key(_ key: StaticString) {
        #if DEBUG
        let name = key.description
        assert(lastKey.map { JSONValue.precedes($0, name) } ?? true, "JSONObjectWriter: \(name) written after \(lastKey ?? "")")
        lastKey = name
        #endif
        let afterEntry = entries > 0
        entries += 1
        key.withUTF8Buffer { text.pointee.appendKey($0, afterEntry: afterEntry, depth: depth + 1) }
    }

    /// Closes the object: what `JSONValue.write` writes after the last entry (a blank line in an empty object).
    private mutating func finish() {
        if entries == 0 { text.pointee.append(0x0A) }
        text.pointee.appendNewline(depth: depth)
        text.pointee.append(UInt8(ascii: "}"))
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
