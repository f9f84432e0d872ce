/// The encoding of one log operation inside a transaction record (Docs/FILE-FORMAT.md): a tag
/// byte, then its fields. It sits beside the value encoding, below the log, so that a row
/// block's rows are encoded with their varints inlined (the compiler does not inline them
/// across modules).
package enum OperationTag: UInt8 {
    case insert = 1, update = 2, delete = 3, link = 4, unlink = 5, schema = 6
}

extension ByteWriter {
    package mutating func operation(_ op: LogOperation) {
        switch op {
        case let .insert(entity, row, values), let .update(entity, row, values):
            if case .insert = op { u8(OperationTag.insert.rawValue) } else { u8(OperationTag.update.rawValue) }
            varint(UInt64(entity))
            varint(row)
            varint(values.count)
            for pv in values {
                varint(UInt64(pv.property))
                value(pv.value)
            }
        case let .delete(entity, row):
            u8(OperationTag.delete.rawValue)
            varint(UInt64(entity))
            varint(row)
        case let .link(relationship, source, target), let .unlink(relationship, source, target):
            if case .link = op { u8(OperationTag.link.rawValue) } else { u8(OperationTag.unlink.rawValue) }
            varint(UInt64(relationship))
            varint(source)
            varint(target)
        case let .schema(payload):
            u8(OperationTag.schema.rawValue)
            lengthPrefixed(payload)
        }
    }
}

extension ByteReader {
    /// One operation; malformed bytes throw `ByteReader.Error`.
    package mutating func operation() throws -> LogOperation {
        let tagByte = try u8()
        guard let tag = OperationTag(rawValue: tagByte) else { throw fail("unknown operation tag \(tagByte)") }
        switch tag {
        case .insert, .update:
            let entity = try varintUInt32()
            let row = try varint()
            let n = try count(limit: remaining / 2)
            var values: [PropertyValue] = []
            values.reserveCapacity(n)
            for _ in 0..<n { values.append(PropertyValue(try varintUInt32(), try value())) }
            return tag == .insert ? .insert(entity: entity, row: row, values: values)
                : .update(entity: entity, row: row, values: values)
        case .delete:
            return .delete(entity: try varintUInt32(), row: try varint())
        case .link, .unlink:
            let relationship = try varintUInt32()
            let source = try varint()
            let target = try varint()
            return tag == .link ? .link(relationship: relationship, source: source, target: target)
                : .unlink(relationship: relationship, source: source, target: target)
        case .schema:
            return .schema(payload: try lengthPrefixed())
        }
    }
}
