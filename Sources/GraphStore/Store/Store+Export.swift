import Foundation

extension Store {
    /// Every live row (of one entity, or all), one JSON object per line:
    /// `{"entity": "Flight", "row": 7, "attributes": {…}, "relationships": {…}}`.
    public func dump(entity name: String? = nil, write: (String) throws -> Void,
                     progress: (Int, Int) -> Void = { _, _ in }) throws {
        let entities = try selectEntities(name)
        try graph.read { view in
            let total = entities.reduce(0) { $0 + view.table($1.index).liveCount }
            var done = 0
            for entity in entities {
                for row in view.table(entity.index).liveRows {
                    var object = try StoreJSON.row(row, of: entity, in: view, blobs: blobs)
                    object["entity"] = entity.name
                    try write(try Self.serialize(object))
                    done += 1
                    if done % 1024 == 0 { progress(done, total) }
                }
            }
            progress(total, total)
        }
    }

    private func selectEntities(_ name: String?) throws -> [Schema.Entity] {
        guard let name else { return schema.entities }
        guard let entity = schema.entity(named: name) else {
            throw StoreJSON.Failure(path: "--entity", reason: "no entity \(name); the store has \(schema.entities.map(\.name).joined(separator: ", "))")
        }
        return [entity]
    }

    static func serialize(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    /// The whole store as one JSON document, written in pieces:
    /// `{"format": "graphstore-export", "version": 1, "transaction": N, "schema": {…}, "entities": {"Flight": [rows…], …}}`.
    /// External-storage bytes are included (base64), so an export is self-contained.
    public func export(write: (String) throws -> Void, progress: (Int, Int) -> Void = { _, _ in }) throws {
        let record = SchemaRecord(schema: schema)
        try graph.read { view in
            let total = schema.entities.reduce(0) { $0 + view.table($1.index).liveCount }
            try write("{\"format\":\"graphstore-export\",\"version\":1,\"transaction\":\(view.lastTransaction),\"schema\":")
            try write(try Self.serialize(StoreJSON.json(record)))
            try write(",\"entities\":{")
            var done = 0
            for (i, entity) in schema.entities.enumerated() {
                try write((i == 0 ? "" : ",") + (try Self.serialize(entity.name)) + ":[")
                for (j, row) in view.table(entity.index).liveRows.enumerated() {
                    try write((j == 0 ? "\n" : ",\n") + (try Self.serialize(try StoreJSON.row(row, of: entity, in: view, blobs: blobs))))
                    done += 1
                    if done % 1024 == 0 { progress(done, total) }
                }
                try write("]")
            }
            try write("}}\n")
            progress(total, total)
        }
    }

    /// What an import wrote.
    public struct ImportSummary: Sendable, Equatable {
        public var rows: Int
        public var links: Int
        public var transactions: Int
    }

    /// Creates a new store at `directory` (absent or empty) from an export: the same schema
    /// numbering and row numbers, rows in batches of `batchSize` per transaction, then the links
    /// (from the to-many side, so to-many order is kept). A malformed document is refused before
    /// anything is written, naming the JSON path; a failure while writing removes the new store.
    public static func importExport(_ data: Data, into directory: String, fileIO: any FileIO = PosixFileIO(), batchSize: Int = 5_000,
                                    progress: (Int, Int) -> Void = { _, _ in }) throws -> ImportSummary {
        if fileIO.isDirectory(directory), try !fileIO.listDirectory(directory).isEmpty {
            throw LogReplay.Failure.destinationNotEmpty(directory)
        }
        let document: Any
        do { document = try JSONSerialization.jsonObject(with: data) } catch {
            throw StoreJSON.Failure(path: "$", reason: "not JSON: \(error.localizedDescription)")
        }
        guard let object = document as? [String: Any], object["format"] as? String == "graphstore-export" else {
            throw StoreJSON.Failure(path: "$.format", reason: "not a graphstore export")
        }
        guard StoreJSON.number(object["version"])?.intValue == 1 else { throw StoreJSON.Failure(path: "$.version", reason: "unknown export version") }
        let record = try StoreJSON.schemaRecord(object["schema"] as Any, path: "$.schema")
        let schema = try Schema(record: record)
        guard let entities = object["entities"] as? [String: Any] else { throw StoreJSON.Failure(path: "$.entities", reason: "expected an object") }

        // Decode everything first: a bad document writes nothing.
        var inserts: [LogOperation] = []
        var links: [LogOperation] = []
        for (name, rowsJSON) in entities {
            guard let entity = schema.entity(named: name) else { throw StoreJSON.Failure(path: "$.entities.\(name)", reason: "no such entity in the schema") }
            guard let rows = rowsJSON as? [[String: Any]] else { throw StoreJSON.Failure(path: "$.entities.\(name)", reason: "expected an array of rows") }
            for (i, row) in rows.enumerated() {
                let at = "$.entities.\(name)[\(i)]"
                guard let number = StoreJSON.number(row["row"]).flatMap({ UInt64(exactly: $0.doubleValue) }), number > 0 else {
                    throw StoreJSON.Failure(path: "\(at).row", reason: "expected a row number above 0")
                }
                let attributes = row["attributes"] as? [String: Any] ?? [:]
                var values: [PropertyValue] = []
                for attribute in entity.attributes {
                    guard let json = attributes[attribute.name] else { continue }
                    values.append(PropertyValue(attribute.number, try StoreJSON.value(json, type: attribute.type, path: "\(at).attributes.\(attribute.name)")))
                }
                inserts.append(.insert(entity: entity.number, row: number, values: values))
                let relationships = row["relationships"] as? [String: Any] ?? [:]
                for relationship in entity.relationships where schema.writesLinks(relationship) {
                    let json = relationships[relationship.name]
                    let targets: [Any] = relationship.isToMany ? (json as? [Any] ?? []) : (json.map { $0 is NSNull ? [] : [$0] } ?? [])
                    for (k, target) in targets.enumerated() {
                        guard let t = StoreJSON.number(target).flatMap({ UInt64(exactly: $0.doubleValue) }), t > 0 else {
                            throw StoreJSON.Failure(path: "\(at).relationships.\(relationship.name)[\(k)]", reason: "expected a row number")
                        }
                        links.append(.link(relationship: relationship.number, source: number, target: t))
                    }
                }
            }
        }

        let createdDirectory = !fileIO.isDirectory(directory)
        do {
            let store = try Store.open(directory: directory, schema: schema,
                                       options: StoreOptions(log: LogOptions(durability: .none, fileIO: fileIO), maintenance: .manual))
            defer { store.close() }
            let batches = stride(from: 0, to: inserts.count, by: batchSize).map { Array(inserts[$0..<min($0 + batchSize, inserts.count)]) }
                + stride(from: 0, to: links.count, by: batchSize * 4).map { Array(links[$0..<min($0 + batchSize * 4, links.count)]) }
            for (i, batch) in batches.enumerated() {
                try store.commitLock.withLock { _ = try store.commit(batch, author: "import") }
                progress(i + 1, batches.count)
            }
            try store.log.sync()
            try store.checkpoint()
            return ImportSummary(rows: inserts.count, links: links.count, transactions: batches.count + 1)
        } catch {
            if createdDirectory { try? FileManager.default.removeItem(atPath: directory) }
            throw error
        }
    }
}
