import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph
import GraphStoreLog

/// The JSON form of a store's rows, shared by `graphstore dump`, `export` and `import`
/// (Docs/guides/recovery.md, "Export and import"). Values are written by what they are and read
/// back by the attribute's declared type:
///
///     Bool → true/false          Int…, UInt… → number         Double, Float → number, or "nan"/"inf"/"-inf"
///     String, UUID, URL, Decimal → string                     Date → seconds since 1970 (number)
///     Data, Codable → base64 string (external-storage bytes included)
///     arrays → arrays            [String: T] → objects         nil → null
package enum StoreJSON {
    package struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// Where in the document: "entities.Flight[12].attributes.ident".
        package var path: String
        package var reason: String
        package var description: String { "\(path): \(reason)" }
    }

    // MARK: Values

    /// JSON true/false. (Parsed numbers also cast to Bool on Linux, so booleans are told by
    /// their Objective-C type code, "c".)
    package static func bool(_ json: Any) -> Bool? {
        guard let n = json as? NSNumber, String(cString: n.objCType) == "c" else { return nil }
        return n.boolValue
    }

    /// A JSON number that is not a boolean.
    package static func number(_ json: Any?) -> NSNumber? {
        guard let json, let n = json as? NSNumber, bool(json) == nil else { return nil }
        return n
    }

    package static func json(_ value: Value, blobs: BlobStore?) throws -> Any {
        switch value {
        case .null: return NSNull()
        case let .bool(v): return v
        case let .int(v): return v
        case let .uint(v): return v
        case let .double(v): return finite(v)
        case let .float(v): return finite(Double(v))
        case let .string(v): return v
        case let .data(v): return v.base64EncodedString()
        case let .date(v): return v.timeIntervalSince1970
        case let .uuid(v): return v.uuidString
        case let .url(v): return v.absoluteString
        case let .decimal(v): return v.description
        case let .array(items): return try items.map { try json($0, blobs: blobs) }
        case let .dictionary(entries): return try entries.mapValues { try json($0, blobs: blobs) }
        case let .blob(reference):
            guard let blobs else { return NSNull() }
            return try blobs.read(reference).base64EncodedString()
        }
    }

    private static func finite(_ v: Double) -> Any {
        if v.isNaN { return "nan" }
        if v.isInfinite { return v > 0 ? "inf" : "-inf" }
        return v
    }

    package static func value(_ json: Any, type: AttributeType, path: String) throws -> Value {
        if json is NSNull {
            guard type.isOptional else { throw Failure(path: path, reason: "null for the non-optional type \(type)") }
            return .null
        }
        return try value(json, kind: type.kind, path: path)
    }

    private static func value(_ json: Any, kind: StorageKind, path: String) throws -> Value {
        func fail(_ expected: String) -> Failure { Failure(path: path, reason: "expected \(expected) for \(kind), found \(String(describing: json).prefix(40))") }
        func number() throws -> NSNumber {
            guard let n = StoreJSON.number(json) else { throw fail("a number") }
            return n
        }
        func double() throws -> Double {
            if let text = json as? String {
                switch text {
                case "nan": return .nan
                case "inf": return .infinity
                case "-inf": return -.infinity
                default: throw fail("a number")
                }
            }
            return try number().doubleValue
        }
        func text() throws -> String {
            guard let s = json as? String else { throw fail("a string") }
            return s
        }
        switch kind {
        case .bool:
            guard let b = bool(json) else { throw fail("true or false") }
            return .bool(b)
        case .int:
            let n = try number()
            guard let v = Int64(exactly: n.doubleValue) ?? Int64(n.stringValue) else { throw fail("an integer") }
            return .int(v)
        case .uint:
            let n = try number()
            guard let v = UInt64(n.stringValue) ?? UInt64(exactly: n.doubleValue) else { throw fail("an unsigned integer") }
            return .uint(v)
        case .double: return .double(try double())
        case .float: return .float(Float(try double()))
        case .string: return .string(try text())
        case .date: return .date(Date(timeIntervalSince1970: try number().doubleValue))
        case .data, .codable:
            guard let data = Data(base64Encoded: try text()) else { throw fail("base64") }
            return .data(data)
        case .uuid:
            guard let u = UUID(uuidString: try text()) else { throw fail("a UUID") }
            return .uuid(u)
        case .url:
            guard let u = URL(string: try text()) else { throw fail("a URL") }
            return .url(u)
        case .decimal:
            guard let d = Decimal(string: try text(), locale: Locale(identifier: "en_US_POSIX")) else { throw fail("a decimal") }
            return .decimal(d)
        case let .array(element):
            guard let items = json as? [Any] else { throw fail("an array") }
            return .array(try items.enumerated().map { try value($1, kind: element, path: "\(path)[\($0)]") })
        case let .dictionary(element):
            guard let entries = json as? [String: Any] else { throw fail("an object") }
            var result: [String: Value] = [:]
            for (key, item) in entries { result[key] = try value(item, kind: element, path: "\(path).\(key)") }
            return .dictionary(result)
        }
    }

    // MARK: Rows

    /// One row: {"row": n, "attributes": {…}, "relationships": {name: row, [rows] or null}}.
    package static func row(_ row: RowNumber, of entity: Schema.Entity, in view: GraphView, blobs: BlobStore?) throws -> [String: Any] {
        var attributes: [String: Any] = [:]
        for attribute in entity.attributes {
            attributes[attribute.name] = try json(view.value(entity: entity.index, row: row, attribute: attribute.index), blobs: blobs)
        }
        var relationships: [String: Any] = [:]
        for relationship in entity.relationships {
            if relationship.isToMany {
                relationships[relationship.name] = view.toMany(entity: entity.index, row: row, relationship: relationship.index).map { UInt64($0) }
            } else {
                relationships[relationship.name] = view.toOne(entity: entity.index, row: row, relationship: relationship.index) ?? NSNull()
            }
        }
        return ["row": row, "attributes": attributes, "relationships": relationships]
    }

    // MARK: Schema

    package static func json(_ record: SchemaRecord) -> [String: Any] {
        [
            "fingerprint": record.fingerprint,
            "nextEntityNumber": record.nextEntityNumber,
            "nextPropertyNumber": record.nextPropertyNumber,
            "entities": record.entities.map { entity in
                [
                    "name": entity.name, "number": entity.number,
                    "attributes": entity.attributes.map { ["name": $0.name, "number": $0.number, "type": $0.type, "options": $0.options] as [String: Any] },
                    "relationships": entity.relationships.map {
                        ["name": $0.name, "number": $0.number, "target": $0.type, "toMany": $0.isToMany,
                         "deleteRule": $0.deleteRule, "inverse": $0.inverseName] as [String: Any]
                    },
                ] as [String: Any]
            },
        ]
    }

    package static func schemaRecord(_ json: Any, path: String = "schema") throws -> SchemaRecord {
        func fail(_ where: String, _ reason: String) -> Failure { Failure(path: "\(path)\(`where`)", reason: reason) }
        guard let object = json as? [String: Any] else { throw fail("", "expected an object") }
        func field<T>(_ object: [String: Any], _ key: String, _ at: String) throws -> T {
            guard let v = object[key] as? T else { throw fail("\(at).\(key)", "missing or of the wrong type") }
            return v
        }
        func number(_ object: [String: Any], _ key: String, _ at: String) throws -> UInt32 {
            guard let n = StoreJSON.number(object[key]), let v = UInt32(exactly: n.doubleValue) else {
                throw fail("\(at).\(key)", "expected a number")
            }
            return v
        }
        func toMany(_ object: [String: Any], _ at: String) throws -> Bool {
            guard let b = bool(object["toMany"] as Any) else { throw fail("\(at).toMany", "expected true or false") }
            return b
        }
        let entities: [[String: Any]] = try field(object, "entities", "")
        var records: [SchemaRecord.EntityRecord] = []
        for (i, entity) in entities.enumerated() {
            let at = ".entities[\(i)]"
            let attributes: [[String: Any]] = try field(entity, "attributes", at)
            let relationships: [[String: Any]] = try field(entity, "relationships", at)
            records.append(SchemaRecord.EntityRecord(
                name: try field(entity, "name", at), number: try number(entity, "number", at),
                attributes: try attributes.enumerated().map { j, a in
                    SchemaRecord.Property(name: try field(a, "name", "\(at).attributes[\(j)]"), number: try number(a, "number", "\(at).attributes[\(j)]"),
                                          type: try field(a, "type", "\(at).attributes[\(j)]"),
                                          options: UInt8(try number(a, "options", "\(at).attributes[\(j)]") & 0xFF))
                },
                relationships: try relationships.enumerated().map { j, r in
                    let rat = "\(at).relationships[\(j)]"
                    return SchemaRecord.Property(name: try field(r, "name", rat), number: try number(r, "number", rat), type: try field(r, "target", rat),
                                                 isToMany: try toMany(r, rat), deleteRule: try field(r, "deleteRule", rat),
                                                 inverseName: try field(r, "inverse", rat))
                }))
        }
        return SchemaRecord(fingerprint: (object["fingerprint"] as? String) ?? "", nextEntityNumber: try number(object, "nextEntityNumber", ""),
                            nextPropertyNumber: try number(object, "nextPropertyNumber", ""), entities: records)
    }
}
