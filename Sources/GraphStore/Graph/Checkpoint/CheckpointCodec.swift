@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreLog

/// Turns a graph image into checkpoint records and back (Docs/FILE-FORMAT.md, "Checkpoint files").
///
/// Each entity is a table record (rows, relationships, sorted orders) followed by one column
/// record per attribute, so that checksums and decoding of a big table's columns run side by
/// side. Tables are written in the numbering of the schema current at the checkpoint (the last
/// entry of its schema history) and read back through a translation onto the opening schema,
/// so a checkpoint survives renamed, added and removed properties like the log does.
package enum CheckpointCodec {
    /// The graph and schema history as of one transaction.
    package struct Image {
        package var transaction: UInt64
        package var timestampMicros: Int64
        package var schemaHistory: [SchemaHistoryEntry]
        package var tables: [EntityTable.Image]
    }

    /// The records of a checkpoint of `schema`, in file order.
    package enum Part {
        case schemas
        case table(entity: Int)
        case column(entity: Int, attribute: Int)
        case end
    }

    package static func parts(of schema: Schema) -> [Part] {
        [.schemas] + schema.entities.flatMap { entity in
            [Part.table(entity: entity.index)] + entity.attributes.map { Part.column(entity: entity.index, attribute: $0.index) }
        } + [.end]
    }

    // MARK: Encoding

    package static func encode(_ part: Part, transaction: UInt64, history: [SchemaHistoryEntry], tables: [EntityTable.Image],
                       schema: Schema) -> (RecordFormat.Kind, [UInt8]) {
        switch part {
        case .schemas:
            return (.checkpointSchemas, encodeSchemas(history))
        case let .table(entity):
            return (.checkpointTable, encodeTable(tables[entity], entity: schema.entities[entity]))
        case let .column(entity, attribute):
            let slots = tables[entity].slotCount
            return (.checkpointColumn, encodeColumn(tables[entity].columns[attribute]!, slots: slots,
                                                    number: schema.entities[entity].attributes[attribute].number))
        case .end:
            var w = ByteWriter()
            w.u64(transaction)
            w.varint(schema.entities.count)
            return (.checkpointEnd, w.bytes)
        }
    }

    package static func encodeSchemas(_ history: [SchemaHistoryEntry]) -> [UInt8] {
        var w = ByteWriter()
        w.varint(history.count)
        for entry in history {
            w.u64(entry.transaction)
            w.u64(UInt64(bitPattern: entry.timestampMicros))
            w.lengthPrefixed(entry.record.encoded())
        }
        return w.bytes
    }

    package static func encodeTable(_ table: EntityTable.Image, entity: Schema.Entity) -> [UInt8] {
        let slots = table.slotCount
        var w = ByteWriter(capacity: 64 + slots * (1 + entity.relationships.count * 4))
        w.varint(UInt64(entity.number))
        w.varint(slots)
        w.bools(table.live)
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
        w.varint(entity.attributes.count)
        return w.bytes
    }

    package static func encodeColumn(_ column: Column.Image, slots: Int, number: PropertyNumber) -> [UInt8] {
        var w = ByteWriter(capacity: 16 + slots * 9)
        w.varint(UInt64(number))
        w.u8(column.layout.rawValue)
        w.varint(slots)
        w.bools(column.nulls)
        switch column.layout {
        case .bool: w.bools(column.bools)
        case .int, .uint: w.elements(column.ints)
        case .double, .float, .date: w.elements(column.doubles)
        case .string: for s in column.strings { w.string(s) }
        case .value, .none: for v in column.values { w.value(v) }
        }
        return w.bytes
    }

    // MARK: Decoding

    package static func decodeSchemas<Bytes: Collection<UInt8>>(_ payload: Bytes) throws -> [SchemaHistoryEntry] {
        try Array(payload).withUnsafeBytes { raw in
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

    /// A table record as read, in the recorded numbering, before its columns.
    private struct TableHeader {
        package enum Targets {
            case toOne(ChunkedArray<UInt32>)
            case toMany([[UInt32]])
        }
        package var recordedEntity: EntityNumber
        package var slotCount: Int
        package var live: ChunkedArray<Bool>
        package var relationships: [(PropertyNumber, Targets)]
        package var sorted: [(PropertyNumber, [UInt32])]
        package var columnCount: Int
    }

    /// Reads checked contents into table images of `schema` (the opening schema). Throws
    /// `ByteReader.Error` for malformed records. Records are decoded side by side.
    package static func decode(_ contents: CheckpointFile.Contents, schema: Schema) throws -> Image {
        let records = contents.records
        guard records.first?.kind == .checkpointSchemas else {
            throw ByteReader.Error(offset: CheckpointFile.headerSize, reason: "the first record is not the schema history")
        }
        let history = try decodeSchemas(records[0].payload)
        guard let recorded = history.last?.record else {
            throw ByteReader.Error(offset: CheckpointFile.headerSize, reason: "empty schema history")
        }
        // Incompatible properties are not mapped (dropped); whether that is acceptable is the
        // opener's decision, by the schema the store is in after the log (Store.open).
        let translation = SchemaTranslation(record: recorded, schema: schema)
        guard records.last?.kind == .checkpointEnd else { throw ByteReader.Error(offset: 0, reason: "no closing record") }
        let endTransaction = try Array(records.last!.payload).withUnsafeBytes { raw -> UInt64 in
            var r = ByteReader(raw)
            return try r.u64()
        }
        guard endTransaction == contents.header.transaction else {
            throw ByteReader.Error(offset: 0, reason: "closing record names transaction \(endTransaction), header \(contents.header.transaction)")
        }

        // Which records belong to which table: a table record, then its column records.
        var tableRecords: [Int] = []
        var columnOwner: [Int: Int] = [:]  // record index → position in tableRecords
        for (i, record) in records.enumerated().dropFirst().dropLast() {
            switch record.kind {
            case .checkpointTable: tableRecords.append(i)
            case .checkpointColumn:
                guard let owner = tableRecords.indices.last else { throw ByteReader.Error(offset: 0, reason: "a column before any table") }
                columnOwner[i] = owner
            default: throw ByteReader.Error(offset: 0, reason: "unexpected record kind \(record.kind) inside a checkpoint")
            }
        }
        let headers = ResultSlots<TableHeader>(count: tableRecords.count)
        let columns = ResultSlots<(PropertyNumber, Column.Image)>(count: records.count)
        let failures = ResultSlots<any Error>(count: records.count)
        var jobs: [() -> Void] = []
        for (position, i) in tableRecords.enumerated() {
            jobs.append {
                do { headers[position] = try decodeTableHeader(records[i].payload) } catch { failures[i] = error }
            }
        }
        for (i, _) in columnOwner {
            jobs.append {
                do { columns[i] = try decodeColumn(records[i].payload) } catch { failures[i] = error }
            }
        }
        runSideBySide(jobs)
        if let failure = records.indices.compactMap({ failures[$0] }).first { throw failure }

        var tables = schema.entities.map { entity in
            EntityTable.Image(slotCount: 0, live: [], columns: entity.attributes.map { _ in nil },
                              toOne: entity.relationships.map { _ in nil }, toMany: entity.relationships.map { _ in nil }, sorted: [:])
        }
        for (position, _) in tableRecords.enumerated() {
            guard let header = headers[position] else { continue }
            let owned = columnOwner.filter { $0.value == position }.keys.sorted()
            guard owned.count == header.columnCount else {
                throw ByteReader.Error(offset: 0, reason: "a table promises \(header.columnCount) columns and has \(owned.count)")
            }
            // An entity the models no longer have is read (to check it) and dropped.
            guard let target = translation.entities[header.recordedEntity].flatMap({ schema.entityIndexByNumber[$0] }) else { continue }
            let entity = schema.entities[target]
            var image = EntityTable.Image(slotCount: header.slotCount, live: header.live,
                                          columns: entity.attributes.map { _ in nil },
                                          toOne: entity.relationships.map { _ in nil }, toMany: entity.relationships.map { _ in nil }, sorted: [:])
            func attributeIndex(_ recorded: PropertyNumber) -> Int? {
                guard let number = translation.properties[recorded] else { return nil }
                return entity.attributes.first { $0.number == number }?.index
            }
            for i in owned {
                let (number, column) = columns[i]!
                guard column.nulls.count == header.slotCount else {
                    throw ByteReader.Error(offset: 0, reason: "a column of \(column.nulls.count) slots in a table of \(header.slotCount)")
                }
                if let index = attributeIndex(number) { image.columns[index] = column }
            }
            for (recorded, value) in header.relationships {
                guard let number = translation.properties[recorded], let runtime = entity.relationships.first(where: { $0.number == number }) else { continue }
                switch value {
                case let .toOne(targets) where !runtime.isToMany: image.toOne[runtime.index] = targets
                case let .toMany(lists) where runtime.isToMany: image.toMany[runtime.index] = lists
                default: continue
                }
            }
            for (recorded, rows) in header.sorted {
                if let index = attributeIndex(recorded) { image.sorted[index] = rows }
            }
            tables[target] = image
        }
        return Image(transaction: contents.header.transaction, timestampMicros: contents.header.timestampMicros,
                     schemaHistory: history, tables: tables)
    }

    private static func decodeTableHeader(_ payload: ArraySlice<UInt8>) throws -> TableHeader {
        try payload.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            let entity = try r.varintUInt32()
            let slots = try r.count(limit: r.remaining)
            let live = try r.chunkedBools(count: slots)
            var relationships: [(PropertyNumber, TableHeader.Targets)] = []
            for _ in 0..<(try r.count(limit: r.remaining / 2)) {
                let number = try r.varintUInt32()
                switch try r.u8() {
                case 0:
                    relationships.append((number, .toOne(try r.chunkedElements(UInt32.self, count: slots))))
                case 1:
                    var lists: [[UInt32]] = []
                    lists.reserveCapacity(slots)
                    for _ in 0..<slots { lists.append(try r.elements(UInt32.self, count: try r.count(limit: r.remaining / 4))) }
                    relationships.append((number, .toMany(lists)))
                case let flag:
                    throw r.fail("relationship flag \(flag)")
                }
            }
            var sorted: [(PropertyNumber, [UInt32])] = []
            for _ in 0..<(try r.count(limit: r.remaining / 2)) {
                let number = try r.varintUInt32()
                sorted.append((number, try r.elements(UInt32.self, count: try r.count(limit: r.remaining / 4))))
            }
            let columnCount = try r.count(limit: Int(UInt32.max))
            guard r.isAtEnd else { throw r.fail("stray bytes after a table") }
            return TableHeader(recordedEntity: entity, slotCount: slots, live: live, relationships: relationships,
                               sorted: sorted, columnCount: columnCount)
        }
    }

    private static func decodeColumn(_ payload: ArraySlice<UInt8>) throws -> (PropertyNumber, Column.Image) {
        try payload.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            let number = try r.varintUInt32()
            let layoutByte = try r.u8()
            guard let layout = ColumnLayout(rawValue: layoutByte), layout != .none else { throw r.fail("unknown column layout \(layoutByte)") }
            let slots = try r.count(limit: r.remaining)
            var column = Column.Image(layout: layout, nulls: try r.chunkedBools(count: slots))
            switch layout {
            case .bool: column.bools = try r.chunkedBools(count: slots)
            case .int, .uint: column.ints = try r.chunkedElements(Int64.self, count: slots)
            case .double, .float, .date: column.doubles = try r.chunkedElements(Double.self, count: slots)
            case .string: column.strings = try r.chunked(count: slots) { try $0.string() }
            case .value, .none: column.values = try r.chunked(count: slots) { try $0.value() }
            }
            guard r.isAtEnd else { throw r.fail("stray bytes after a column") }
            return (number, column)
        }
    }

    /// Checks that every relationship target names a slot of its target table.
    package static func validateTargets(_ image: Image, schema: Schema) throws {
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

    /// Moves a graph's contents into a graph of another schema, through the same encoding and
    /// translation a checkpoint takes (a migration's data step; nothing touches the disk).
    package static func transfer(from source: Graph, history: [SchemaHistoryEntry], into target: Graph) throws {
        let (transaction, tables) = source.captureImage()
        let sourceHistory = history + [SchemaHistoryEntry(transaction: transaction, timestampMicros: 0, record: SchemaRecord(schema: source.schema))]
        let parts = parts(of: source.schema)
        let records = parts.map { part -> (kind: RecordFormat.Kind, payload: ArraySlice<UInt8>) in
            let (kind, payload) = encode(part, transaction: transaction, history: sourceHistory, tables: tables, schema: source.schema)
            return (kind, payload[...])
        }
        let contents = CheckpointFile.Contents(header: .init(transaction: transaction, timestampMicros: 0, recordCount: UInt64(records.count)),
                                               records: records)
        let image = try decode(contents, schema: target.schema)
        try validateTargets(image, schema: target.schema)
        target.install(image.tables, number: transaction)
    }
}
