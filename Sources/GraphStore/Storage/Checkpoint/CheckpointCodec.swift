/// Turns a graph image into checkpoint records and back (Docs/FILE-FORMAT.md, "Checkpoint files").
///
/// Tables are written in the numbering of the schema current at the checkpoint (the last entry
/// of its schema history) and read back through a translation onto the opening schema, so a
/// checkpoint survives renamed, added and removed properties like the log does.
enum CheckpointCodec {
    /// The graph and schema history as of one transaction.
    struct Image {
        var transaction: UInt64
        var timestampMicros: Int64
        var schemaHistory: [SchemaHistoryEntry]
        var tables: [EntityTable.Image]
    }

    // MARK: Encoding

    static func encodeSchemas(_ history: [SchemaHistoryEntry]) -> [UInt8] {
        var w = ByteWriter()
        w.varint(history.count)
        for entry in history {
            w.u64(entry.transaction)
            w.u64(UInt64(bitPattern: entry.timestampMicros))
            w.lengthPrefixed(entry.record.encoded())
        }
        return w.bytes
    }

    static func encodeTable(_ table: EntityTable.Image, entity: Schema.Entity) -> [UInt8] {
        let slots = table.slotCount
        var w = ByteWriter(capacity: 64 + slots * (1 + entity.attributes.count * 9 + entity.relationships.count * 4))
        w.varint(UInt64(entity.number))
        w.varint(slots)
        w.bools(table.live)
        w.varint(entity.attributes.count)
        for attribute in entity.attributes {
            let column = table.columns[attribute.index]!
            w.varint(UInt64(attribute.number))
            w.u8(column.layout.rawValue)
            w.bools(column.nulls)
            switch column.layout {
            case .bool: w.bools(column.bools)
            case .int, .uint: w.elements(column.ints)
            case .double, .float, .date: w.elements(column.doubles)
            case .string: for s in column.strings { w.string(s) }
            case .value: for v in column.values { w.value(v) }
            }
        }
        w.varint(entity.relationships.count)
        for relationship in entity.relationships {
            w.varint(UInt64(relationship.number))
            if relationship.isToMany {
                w.u8(1)
                for targets in table.toMany[relationship.index]! {
                    w.varint(targets.count)
                    w.elements(targets)
                }
            } else {
                w.u8(0)
                w.elements(table.toOne[relationship.index]!)
            }
        }
        w.varint(table.sorted.count)
        for (index, rows) in table.sorted.sorted(by: { $0.key < $1.key }) {
            w.varint(UInt64(entity.attributes[index].number))
            w.varint(rows.count)
            w.elements(rows)
        }
        return w.bytes
    }

    static func encodeEnd(transaction: UInt64, tableCount: Int) -> [UInt8] {
        var w = ByteWriter()
        w.u64(transaction)
        w.varint(tableCount)
        return w.bytes
    }

    // MARK: Decoding

    static func decodeSchemas(_ payload: [UInt8]) throws -> [SchemaHistoryEntry] {
        try payload.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            var history: [SchemaHistoryEntry] = []
            for _ in 0..<(try r.count(limit: r.remaining / 17)) {
                let transaction = try r.u64()
                let time = Int64(bitPattern: try r.u64())
                history.append(SchemaHistoryEntry(transaction: transaction, timestampMicros: time,
                                                  record: try SchemaRecord(decoding: try r.lengthPrefixed())))
            }
            guard r.isAtEnd else { throw r.fail("stray bytes after the schema history") }
            return history
        }
    }

    /// Reads checked contents into table images of `schema` (the opening schema). Throws
    /// `ByteReader.Error` or `SchemaError.incompatible` naming what does not fit.
    static func decode(_ contents: CheckpointFile.Contents, schema: Schema) throws -> Image {
        guard contents.records.first?.kind == .checkpointSchemas else {
            throw ByteReader.Error(offset: CheckpointFile.headerSize, reason: "the first record is not the schema history")
        }
        let history = try decodeSchemas(contents.records[0].payload)
        guard let recorded = history.last?.record else {
            throw ByteReader.Error(offset: CheckpointFile.headerSize, reason: "empty schema history")
        }
        let translation = SchemaTranslation(record: recorded, schema: schema)
        if !translation.incompatibilities.isEmpty { throw SchemaError.incompatible(differences: translation.incompatibilities) }
        let entityIndex = Dictionary(uniqueKeysWithValues: schema.entities.map { ($0.number, $0.index) })
        var tables = schema.entities.map { entity in
            EntityTable.Image(slotCount: 0, live: [], columns: entity.attributes.map { _ in nil },
                              toOne: entity.relationships.map { _ in nil }, toMany: entity.relationships.map { _ in nil }, sorted: [:])
        }
        for record in contents.records.dropFirst() where record.kind == .checkpointTable {
            try record.payload.withUnsafeBytes { raw in
                var r = ByteReader(raw)
                try decodeTable(&r, translation: translation, entityIndex: entityIndex, schema: schema, into: &tables)
                guard r.isAtEnd else { throw r.fail("stray bytes after a table") }
            }
        }
        let end = contents.records.last!.payload
        let endTransaction = try end.withUnsafeBytes { raw -> UInt64 in
            var r = ByteReader(raw)
            return try r.u64()
        }
        guard endTransaction == contents.header.transaction else {
            throw ByteReader.Error(offset: 0, reason: "closing record names transaction \(endTransaction), header \(contents.header.transaction)")
        }
        return Image(transaction: contents.header.transaction, timestampMicros: contents.header.timestampMicros,
                     schemaHistory: history, tables: tables)
    }

    private static func decodeTable(_ r: inout ByteReader, translation: SchemaTranslation, entityIndex: [EntityNumber: Int],
                                    schema: Schema, into tables: inout [EntityTable.Image]) throws {
        let recordedEntity = try r.varintUInt32()
        let slots = try r.count(limit: r.remaining)
        let live = try r.bools(count: slots)
        // An entity the models no longer have is read (to check it) and dropped.
        let target = translation.entities[recordedEntity].flatMap { entityIndex[$0] }
        let entity = target.map { schema.entities[$0] }
        var image = EntityTable.Image(slotCount: slots, live: live, columns: entity?.attributes.map { _ in nil } ?? [],
                                      toOne: entity?.relationships.map { _ in nil } ?? [],
                                      toMany: entity?.relationships.map { _ in nil } ?? [], sorted: [:])
        func attributeIndex(_ recorded: PropertyNumber) -> Int? {
            guard let entity, let number = translation.properties[recorded] else { return nil }
            return entity.attributes.first { $0.number == number }?.index
        }
        for _ in 0..<(try r.count(limit: r.remaining)) {
            let number = try r.varintUInt32()
            let layoutByte = try r.u8()
            guard let layout = Column.Layout(rawValue: layoutByte) else { throw r.fail("unknown column layout \(layoutByte)") }
            var column = Column.Image(layout: layout, nulls: try r.bools(count: slots))
            switch layout {
            case .bool: column.bools = try r.bools(count: slots)
            case .int, .uint: column.ints = try r.elements(Int64.self, count: slots)
            case .double, .float, .date: column.doubles = try r.elements(Double.self, count: slots)
            case .string:
                column.strings.reserveCapacity(slots)
                for _ in 0..<slots { column.strings.append(try r.string()) }
            case .value:
                column.values.reserveCapacity(slots)
                for _ in 0..<slots { column.values.append(try r.value()) }
            }
            if let index = attributeIndex(number) { image.columns[index] = column }
        }
        for _ in 0..<(try r.count(limit: r.remaining)) {
            let number = try r.varintUInt32()
            let isToMany = try r.u8()
            let runtime = translation.properties[number].flatMap { n in entity?.relationships.first { $0.number == n } }
            if isToMany == 1 {
                var lists: [[UInt32]] = []
                lists.reserveCapacity(slots)
                for _ in 0..<slots { lists.append(try r.elements(UInt32.self, count: try r.count(limit: r.remaining / 4))) }
                if let runtime, runtime.isToMany { image.toMany[runtime.index] = lists }
            } else if isToMany == 0 {
                let targets = try r.elements(UInt32.self, count: slots)
                if let runtime, !runtime.isToMany { image.toOne[runtime.index] = targets }
            } else {
                throw r.fail("relationship flag \(isToMany)")
            }
        }
        for _ in 0..<(try r.count(limit: r.remaining)) {
            let number = try r.varintUInt32()
            let rows = try r.elements(UInt32.self, count: try r.count(limit: r.remaining / 4))
            if let index = attributeIndex(number) { image.sorted[index] = rows }
        }
        guard let target else { return }
        // Row targets must stay inside the tables they point into.
        tables[target] = image
    }

    /// Checks that every relationship target names a slot of its target table.
    static func validateTargets(_ image: Image, schema: Schema) throws {
        for entity in schema.entities {
            let table = image.tables[entity.index]
            for relationship in entity.relationships {
                let limit = UInt32(clamping: image.tables[relationship.targetIndex].slotCount)
                let outOfRange: Bool
                if relationship.isToMany {
                    outOfRange = table.toMany[relationship.index]?.contains { $0.contains { $0 == 0 || $0 > limit } } ?? false
                } else {
                    outOfRange = table.toOne[relationship.index]?.contains { $0 > limit } ?? false
                }
                if outOfRange {
                    throw ByteReader.Error(offset: 0, reason: "\(entity.name).\(relationship.name) points past the rows of \(relationship.targetName)")
                }
            }
            for (index, rows) in table.sorted where rows.contains(where: { $0 == 0 || Int($0) > table.slotCount }) {
                throw ByteReader.Error(offset: 0, reason: "sorted order of \(entity.name).\(entity.attributes[index].name) names a row past the table")
            }
        }
    }
}
