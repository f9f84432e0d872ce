import Foundation
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreCore

extension Store {
    /// Every live row (of one entity, or all), one JSON object per line:
    /// `{"entity": "Flight", "row": 7, "attributes": {…}, "relationships": {…}}`.
    @_spi(GraphStoreInternals) public func dump(entity name: String? = nil, write: (String) throws -> Void,
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

    package static func serialize(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self)
    }

    /// The whole store as one JSON document, written in pieces:
    /// `{"format": "graphstore-export", "version": 1, "transaction": N, "schema": {…}, "entities": {"Flight": [rows…], …}}`.
    /// External-storage bytes are included (base64), so an export is self-contained.
    @_spi(GraphStoreInternals) public func export(write: (String) throws -> Void, progress: (Int, Int) -> Void = { _, _ in }) throws {
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
}
