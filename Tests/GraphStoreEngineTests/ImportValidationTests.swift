import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog
@_spi(GraphStoreInternals) import GraphStoreGraph

/// A hostile or damaged export is refused whole, naming the JSON path of its first problem, and
/// nothing is written: no store, no directory. Rows the graph could not hold never reach it.
@Suite struct ImportValidationTests {
    /// An export of two airports and three flights (origin and destination links), as JSON.
    func sampleExport() throws -> [String: Any] {
        let store = TemporaryStore()
        let container = try ModelContainer(for: [Flight.self], configurations: ModelConfiguration(url: store.url, durability: .none))
        let context = ModelContext(container)
        let sfo = Airport(icao: "KSFO"), ord = Airport(icao: "KORD")
        for (i, ident) in ["UAL1", "UAL2", "AAL3"].enumerated() {
            let flight = Flight(ident: ident)
            flight.routeDistance = 100 * (i + 1)
            flight.origin = sfo
            flight.destination = ord
            context.insert(flight)
        }
        try context.save()
        var text = ""
        try container.store!.export { text += $0 }
        container.close()
        return try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Imports `document` (changed by `change`) into a new directory: the failure, and whether
    /// the directory exists afterwards.
    func importing(_ change: (inout [String: Any]) throws -> Void) throws -> (StoreJSON.Failure?, Bool) {
        var document = try sampleExport()
        try change(&document)
        let data = try JSONSerialization.data(withJSONObject: document)
        let target = TemporaryStore()
        do {
            _ = try Store.importExport(data, into: target.url.path)
            return (nil, FileManager.default.fileExists(atPath: target.url.path))
        } catch let failure as StoreJSON.Failure {
            return (failure, FileManager.default.fileExists(atPath: target.url.path))
        }
    }

    func rows(_ document: [String: Any], _ entity: String) -> [[String: Any]] {
        (document["entities"] as! [String: Any])[entity] as! [[String: Any]]
    }

    func setRows(_ document: inout [String: Any], _ entity: String, _ rows: [[String: Any]]) {
        var entities = document["entities"] as! [String: Any]
        entities[entity] = rows
        document["entities"] = entities
    }

    func changeRow(_ document: inout [String: Any], _ entity: String, _ index: Int, _ change: (inout [String: Any]) -> Void) {
        var list = rows(document, entity)
        change(&list[index])
        setRows(&document, entity, list)
    }

    func changeSchemaEntities(_ document: inout [String: Any], _ change: (inout [[String: Any]]) -> Void) {
        var schema = document["schema"] as! [String: Any]
        var entities = schema["entities"] as! [[String: Any]]
        change(&entities)
        schema["entities"] = entities
        document["schema"] = schema
    }

    @Test func aSoundExportImports() throws {
        let (failure, exists) = try importing { _ in }
        #expect(failure == nil && exists)
    }

    @Test(arguments: [1_000_000_000.0, 4_294_967_297.0, 18_446_744_073_709_551_615.0, 0.0, -3.0, 2.5])
    func implausibleRowNumbersAreRefused(row: Double) throws {
        let (failure, exists) = try importing { changeRow(&$0, "Flight", 1) { $0["row"] = row } }
        #expect(failure?.path == "$.entities.Flight[1].row", "\(String(describing: failure))")
        #expect(!exists)
    }

    @Test func aRowNumberUsedTwiceIsRefused() throws {
        let (failure, exists) = try importing { document in
            let first = rows(document, "Flight")[0]["row"]!
            changeRow(&document, "Flight", 2) { $0["row"] = first }
        }
        #expect(failure?.path == "$.entities.Flight[2].row" && failure?.reason.contains("appears twice") == true)
        #expect(!exists)
    }

    @Test func aLinkToAMissingRowIsRefused() throws {
        let (failure, exists) = try importing { document in
            changeRow(&document, "Flight", 0) { row in
                var relationships = row["relationships"] as! [String: Any]
                relationships["origin"] = 999
                row["relationships"] = relationships
            }
        }
        #expect(failure?.path == "$.entities.Flight[0].relationships.origin" && failure?.reason.contains("does not have") == true,
                "\(String(describing: failure))")
        #expect(!exists)
    }

    @Test(arguments: ["attributes", "relationships"])
    func wrongTypedAttributesOrRelationshipsAreRefused(key: String) throws {
        let (failure, exists) = try importing { changeRow(&$0, "Flight", 0) { $0[key] = [1, 2, 3] } }
        #expect(failure?.path == "$.entities.Flight[0].\(key)" && failure?.reason == "expected an object")
        #expect(!exists)
    }

    @Test func unknownKeysAreRefused() throws {
        var (failure, exists) = try importing { changeRow(&$0, "Flight", 0) { row in
            var attributes = row["attributes"] as! [String: Any]
            attributes["speed"] = 5
            row["attributes"] = attributes
        } }
        #expect(failure?.path == "$.entities.Flight[0].attributes.speed" && !exists)
        (failure, exists) = try importing { changeRow(&$0, "Flight", 0) { $0["extra"] = true } }
        #expect(failure?.path == "$.entities.Flight[0].extra" && !exists)
    }

    @Test func duplicateValuesOfAUniqueAttributeAreRefused() throws {
        let (failure, exists) = try importing { changeRow(&$0, "Flight", 2) { row in
            var attributes = row["attributes"] as! [String: Any]
            attributes["ident"] = "UAL1"
            row["attributes"] = attributes
        } }
        #expect(failure?.reason.contains("is unique") == true, "\(String(describing: failure))")
        #expect(failure?.path.hasSuffix(".attributes.ident") == true && !exists)
    }

    @Test func aSchemaWithADuplicateEntityOrAttributeNameIsRefused() throws {
        var (failure, exists) = try importing { document in
            changeSchemaEntities(&document) { entities in
                var copy = entities[0]
                copy["number"] = 99
                entities.append(copy)
            }
        }
        #expect(failure?.path == "$.schema" && failure?.reason.contains("two entities are named") == true, "\(String(describing: failure))")
        #expect(!exists)
        (failure, exists) = try importing { document in
            changeSchemaEntities(&document) { entities in
                var attributes = entities[0]["attributes"] as! [[String: Any]]
                var copy = attributes[0]
                copy["number"] = 999
                attributes.append(copy)
                entities[0]["attributes"] = attributes
            }
        }
        #expect(failure?.path == "$.schema" && failure?.reason.contains("two properties named") == true, "\(String(describing: failure))")
        #expect(!exists)
    }

    /// A type nested 50,000 deep used to take seconds to parse (each level copied the rest); it
    /// is refused at once.
    @Test func aDeeplyNestedTypeIsRefusedQuickly() throws {
        let started = Date()
        let (failure, exists) = try importing { document in
            changeSchemaEntities(&document) { entities in
                var attributes = entities[0]["attributes"] as! [[String: Any]]
                attributes[0]["type"] = String(repeating: "[", count: 50_000) + "Int" + String(repeating: "]", count: 50_000)
                entities[0]["attributes"] = attributes
            }
        }
        #expect(failure?.reason.contains("nested too deep") == true, "\(String(describing: failure))")
        #expect(!exists)
        #expect(Date().timeIntervalSince(started) < 10)
    }

    /// The log's side: a transaction whose record is sound but whose row no graph can hold fails
    /// the open with a typed error (it used to trap, or allocate without bound).
    @Test(arguments: [UInt64(0), 1 << 40, UInt64.max])
    func aLoggedRowNoGraphCanHoldFailsTheOpen(row: UInt64) throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: [Flight.self], configurations: ModelConfiguration(url: store.url, durability: .none))
        let entity = try #require(container.schema.entity(named: "Flight"))
        container.close()
        let log = try TransactionLog.open(directory: store.url.path, options: LogOptions(durability: .none))
        try log.append([.insert(entity: entity.number, row: row, values: [])])
        log.close()
        #expect {
            _ = try ModelContainer(for: [Flight.self], configurations: ModelConfiguration(url: store.url, durability: .none))
        } throws: { error in
            guard case let .damagedTransaction(_, reason)? = error as? StorageError else { return false }
            return reason.contains("row number")
        }
    }
}
