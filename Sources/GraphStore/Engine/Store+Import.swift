import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog

extension Store {
    /// What an import wrote.
    @_spi(GraphStoreInternals) public struct ImportSummary: Sendable, Equatable {
        @_spi(GraphStoreInternals) public var rows: Int
        @_spi(GraphStoreInternals) public var links: Int
        @_spi(GraphStoreInternals) public var transactions: Int
    }

    /// Creates a new store at `directory` (absent or empty) from an export: the same schema
    /// numbering and row numbers, rows in batches of `batchSize` per transaction, then the links
    /// (from the to-many side, so to-many order is kept). The whole document is checked first
    /// (`ExportDocument`): a document with anything wrong is refused naming the JSON path of the
    /// first problem, and nothing is written. A failure while writing removes the new store.
    @_spi(GraphStoreInternals) public static func importExport(_ data: Data, into directory: String, fileIO: any FileIO = PosixFileIO(), batchSize: Int = 5_000,
                                    progress: (Int, Int) -> Void = { _, _ in }) throws -> ImportSummary {
        if fileIO.isDirectory(directory), try !fileIO.listDirectory(directory).isEmpty {
            throw LogReplay.Failure.destinationNotEmpty(directory)
        }
        let document = try ExportDocument(data)
        let (inserts, links) = (document.inserts, document.links)
        let createdDirectory = !fileIO.isDirectory(directory)
        do {
            let store = try Store.open(directory: directory, schema: document.schema,
                                       options: StoreOptions(log: LogOptions(durability: .none, fileIO: fileIO), maintenance: .manual))
            defer { store.close() }
            let batches = stride(from: 0, to: inserts.count, by: batchSize).map { Array(inserts[$0..<min($0 + batchSize, inserts.count)]) }
                + stride(from: 0, to: links.count, by: batchSize * 4).map { Array(links[$0..<min($0 + batchSize * 4, links.count)]) }
            for (i, batch) in batches.enumerated() {
                try store.commit(batch, author: "import")
                progress(i + 1, batches.count)
            }
            try store.log.syncEverySegment()
            try store.checkpoint()
            return ImportSummary(rows: inserts.count, links: links.count, transactions: batches.count + 1)
        } catch {
            if createdDirectory { try? FileManager.default.removeItem(atPath: directory) }
            throw error
        }
    }
}

/// A `graphstore export` document, checked whole: its schema builds, every row is where it
/// should be and holds what its entity declares, and every link names a row the document has.
/// The first problem is thrown as `StoreJSON.Failure` with its JSON path
/// ("$.entities.Flight[3].relationships.origin"); nothing of a refused document is written.
///
/// Refused: anything but an export object of version 1; unknown keys (at the top, in a row, in
/// its attributes or relationships); rows, attributes or relationships that are not objects; a
/// row number that is not a whole number in 1...UInt32.max or would need more memory than the
/// machine has (`RowLimits`); a row number used twice in an entity; a value of the wrong type;
/// two rows with one value of a unique attribute; a to-one that is not a row number or null, a
/// to-many that is not an array of distinct row numbers; a link to a row the document does not
/// have. An attribute a row leaves out takes its default, as in the store.
package struct ExportDocument {
    package let schema: Schema
    package private(set) var inserts: [LogOperation] = []
    package private(set) var links: [LogOperation] = []

    private typealias Failure = StoreJSON.Failure

    package init(_ data: Data) throws {
        let document: Any
        do { document = try JSONSerialization.jsonObject(with: data) } catch {
            throw Failure(path: "$", reason: "not JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? error.localizedDescription)")
        }
        guard let object = document as? [String: Any], object["format"] as? String == "graphstore-export" else {
            throw Failure(path: "$.format", reason: "not a graphstore export")
        }
        if let key = object.keys.sorted().first(where: { !["format", "version", "transaction", "schema", "entities"].contains($0) }) {
            throw Failure(path: "$.\(key)", reason: "unknown key")
        }
        guard StoreJSON.number(object["version"])?.intValue == 1 else { throw Failure(path: "$.version", reason: "unknown export version") }
        let record = try StoreJSON.schemaRecord(object["schema"] as Any, path: "$.schema")
        do { schema = try Schema(record: record) } catch {
            throw Failure(path: "$.schema", reason: "\(error)")
        }
        guard let entities = object["entities"] as? [String: Any] else { throw Failure(path: "$.entities", reason: "expected an object") }
        for name in entities.keys.sorted() where schema.entity(named: name) == nil {
            throw Failure(path: "$.entities.\(name)", reason: "no such entity in the schema")
        }
        // Rows first (every entity's), so that links can be checked against them.
        var rowsByEntity: [[(number: RowNumber, json: [String: Any], path: String)]] = schema.entities.map { _ in [] }
        var present: [Set<RowNumber>] = schema.entities.map { _ in [] }
        for entity in schema.entities {
            guard let list = entities[entity.name] else { continue }
            guard let rows = list as? [Any] else { throw Failure(path: "$.entities.\(entity.name)", reason: "expected an array of rows") }
            for (i, element) in rows.enumerated() {
                let at = "$.entities.\(entity.name)[\(i)]"
                guard let row = element as? [String: Any] else { throw Failure(path: at, reason: "expected an object") }
                if let key = row.keys.sorted().first(where: { !["row", "attributes", "relationships"].contains($0) }) {
                    throw Failure(path: "\(at).\(key)", reason: "unknown key")
                }
                let number = try Self.rowNumber(row["row"], of: entity, path: "\(at).row")
                guard present[entity.index].insert(number).inserted else {
                    throw Failure(path: "\(at).row", reason: "row \(number) appears twice in \(entity.name)")
                }
                rowsByEntity[entity.index].append((number, row, at))
            }
        }
        for entity in schema.entities {
            var seenUnique: [Int: [Value: String]] = [:]
            for (number, row, at) in rowsByEntity[entity.index] {
                let attributes = try Self.object(row["attributes"], path: "\(at).attributes")
                if let key = attributes.keys.sorted().first(where: { entity.attribute(named: $0) == nil }) {
                    throw Failure(path: "\(at).attributes.\(key)", reason: "\(entity.name) has no attribute \(key)")
                }
                var values: [PropertyValue] = []
                for attribute in entity.attributes {
                    guard let json = attributes[attribute.name] else { continue }
                    let path = "\(at).attributes.\(attribute.name)"
                    let value = try StoreJSON.value(json, type: attribute.type, path: path)
                    if attribute.isUnique, value != .null {
                        if let first = seenUnique[attribute.index]?[value] {
                            throw Failure(path: path, reason: "\(entity.name).\(attribute.name) is unique and \(first) has the same value")
                        }
                        seenUnique[attribute.index, default: [:]][value] = at
                    }
                    values.append(PropertyValue(attribute.number, value))
                }
                inserts.append(.insert(entity: entity.number, row: number, values: values))
                let relationships = try Self.object(row["relationships"], path: "\(at).relationships")
                if let key = relationships.keys.sorted().first(where: { entity.relationship(named: $0) == nil }) {
                    throw Failure(path: "\(at).relationships.\(key)", reason: "\(entity.name) has no relationship \(key)")
                }
                for relationship in entity.relationships {
                    guard let json = relationships[relationship.name] else { continue }
                    let path = "\(at).relationships.\(relationship.name)"
                    let target = schema.entities[relationship.targetIndex]
                    let targets: [(Any, String)]
                    if relationship.isToMany {
                        guard let list = json as? [Any] else { throw Failure(path: path, reason: "expected an array of row numbers") }
                        targets = list.enumerated().map { ($1, "\(path)[\($0)]") }
                    } else {
                        targets = json is NSNull ? [] : [(json, path)]
                    }
                    var linked = Set<RowNumber>()
                    for (json, targetPath) in targets {
                        let t = try Self.rowNumber(json, of: target, path: targetPath)
                        guard present[target.index].contains(t) else {
                            throw Failure(path: targetPath, reason: "links to \(target.name) row \(t), which the document does not have")
                        }
                        guard linked.insert(t).inserted else { throw Failure(path: targetPath, reason: "links to \(target.name) row \(t) twice") }
                        // Written from the side that writes links; the inverse follows.
                        if schema.writesLinks(relationship) {
                            links.append(.link(relationship: relationship.number, source: number, target: t))
                        }
                    }
                }
            }
        }
    }

    /// A JSON object, or empty when absent; anything else is refused.
    private static func object(_ json: Any?, path: String) throws -> [String: Any] {
        guard let json else { return [:] }
        guard let object = json as? [String: Any] else { throw Failure(path: path, reason: "expected an object") }
        return object
    }

    /// A row number of `entity`: a whole number the store can hold (`RowLimits`).
    private static func rowNumber(_ json: Any?, of entity: Schema.Entity, path: String) throws -> RowNumber {
        guard let number = StoreJSON.number(json), let row = UInt64(number.stringValue) ?? UInt64(exactly: number.doubleValue) else {
            throw Failure(path: path, reason: "expected a row number (a whole number from 1)")
        }
        if let problem = RowLimits.problem(row: row, of: entity) { throw Failure(path: path, reason: problem) }
        return row
    }
}
