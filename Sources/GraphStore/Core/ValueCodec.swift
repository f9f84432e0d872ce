import Foundation

/// The binary encoding of a `Value`: one tag byte, then the tag's payload (Docs/FILE-FORMAT.md).
package enum ValueTag: UInt8 {
    case null = 0, `false` = 1, `true` = 2, int = 3, uint = 4, double = 5, float = 6
    case string = 7, data = 8, date = 9, uuid = 10, url = 11, decimal = 12, array = 13, dictionary = 14
    case blob = 15
}

/// Nested arrays and dictionaries deeper than this are refused when decoding (a stack guard).
package let maximumValueDepth = 64

extension ByteWriter {
    package mutating func value(_ stored: Value) {
        switch stored {
        case .null: u8(ValueTag.null.rawValue)
        case let .bool(b): u8(b ? ValueTag.true.rawValue : ValueTag.false.rawValue)
        case let .int(v):
            u8(ValueTag.int.rawValue)
            zigzag(v)
        case let .uint(v):
            u8(ValueTag.uint.rawValue)
            varint(v)
        case let .double(v):
            u8(ValueTag.double.rawValue)
            u64(v.bitPattern)
        case let .float(v):
            u8(ValueTag.float.rawValue)
            u32(v.bitPattern)
        case let .string(s):
            u8(ValueTag.string.rawValue)
            string(s)
        case let .data(d):
            u8(ValueTag.data.rawValue)
            lengthPrefixed(d)
        case let .date(d):
            u8(ValueTag.date.rawValue)
            u64(d.timeIntervalSinceReferenceDate.bitPattern)
        case let .uuid(u):
            u8(ValueTag.uuid.rawValue)
            withUnsafeBytes(of: u.uuid) { raw($0) }
        case let .url(u):
            u8(ValueTag.url.rawValue)
            string(u.absoluteString)
        case let .decimal(d):
            u8(ValueTag.decimal.rawValue)
            string(d.description)
        case let .array(items):
            u8(ValueTag.array.rawValue)
            varint(items.count)
            for item in items { value(item) }
        case let .blob(reference):
            u8(ValueTag.blob.rawValue)
            withUnsafeBytes(of: reference.id.uuid) { raw($0) }
            varint(reference.length)
            u32(reference.checksum)
        case let .dictionary(entries):
            u8(ValueTag.dictionary.rawValue)
            varint(entries.count)
            // Sorted keys make the encoding deterministic.
            for key in entries.keys.sorted() {
                string(key)
                value(entries[key]!)
            }
        }
    }
}

extension ByteReader {
    package mutating func value() throws -> Value { try value(depth: 0) }

    private mutating func value(depth: Int) throws -> Value {
        let tagByte = try u8()
        guard let tag = ValueTag(rawValue: tagByte) else { throw fail("unknown value tag \(tagByte)") }
        switch tag {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .int: return .int(try zigzag())
        case .uint: return .uint(try varint())
        case .double: return .double(Double(bitPattern: try u64()))
        case .float: return .float(Float(bitPattern: try u32()))
        case .string: return .string(try string())
        case .data: return .data(Data(try lengthPrefixed()))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try u64())))
        case .uuid:
            return .uuid(try uuid())
        case .blob:
            return .blob(BlobReference(id: try uuid(), length: try varint(), checksum: try u32()))
        case .url:
            let text = try string()
            guard let url = URL(string: text) else { throw fail("invalid URL \(String(reflecting: text))") }
            return .url(url)
        case .decimal:
            let text = try string()
            guard let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw fail("invalid decimal \(String(reflecting: text))")
            }
            return .decimal(d)
        case .array:
            guard depth < maximumValueDepth else { throw fail("values nested deeper than \(maximumValueDepth)") }
            // Each element takes at least one byte, which bounds the count before allocating.
            let n = try count(limit: remaining)
            var items: [Value] = []
            items.reserveCapacity(n)
            for _ in 0..<n { items.append(try value(depth: depth + 1)) }
            return .array(items)
        case .dictionary:
            guard depth < maximumValueDepth else { throw fail("values nested deeper than \(maximumValueDepth)") }
            let n = try count(limit: remaining / 2)
            var entries: [String: Value] = [:]
            entries.reserveCapacity(n)
            for _ in 0..<n {
                let key = try string()
                guard entries[key] == nil else { throw fail("duplicate dictionary key \(String(reflecting: key))") }
                entries[key] = try value(depth: depth + 1)
            }
            return .dictionary(entries)
        }
    }
}

extension ByteReader {
    package mutating func uuid() throws -> UUID {
        let b = try bytes(16)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
