import EnrouteModels
import Foundation
import GraphStore
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog

/// Well-formed inputs for each target, made by the code that writes them (so they follow the
/// formats as they are now): the fuzzer starts from them, and the regression tests replay them.
package enum FuzzSeeds {
    /// Airports and flights with every kind of value and both kinds of relationship.
    static let record = SchemaRecord(fingerprint: "fuzz-seeds-1", nextEntityNumber: 3, nextPropertyNumber: 20, entities: [
        SchemaRecord.EntityRecord(name: "Airport", number: 1, attributes: [
            SchemaRecord.Property(name: "icao", number: 1, type: "String", options: 1),
            SchemaRecord.Property(name: "latitude", number: 2, type: "Double"),
            SchemaRecord.Property(name: "tags", number: 3, type: "[String]"),
        ], relationships: [
            SchemaRecord.Property(name: "departures", number: 4, type: "Flight", isToMany: true, deleteRule: "cascade", inverseName: "origin"),
        ]),
        SchemaRecord.EntityRecord(name: "Flight", number: 2, attributes: [
            SchemaRecord.Property(name: "ident", number: 10, type: "String", options: 1),
            SchemaRecord.Property(name: "distance", number: 11, type: "Int", options: 2),
            SchemaRecord.Property(name: "off", number: 12, type: "Date?"),
            SchemaRecord.Property(name: "payload", number: 13, type: "Data"),
            SchemaRecord.Property(name: "small", number: 14, type: "UInt8"),
        ], relationships: [
            SchemaRecord.Property(name: "origin", number: 15, type: "Airport", deleteRule: "nullify", inverseName: "departures"),
        ]),
    ])

    // Built from a record that `validate` accepts.
    // swiftlint:disable:next force_try
    static let schema = try! Schema(record: record)

    /// Seeds for `target`.
    package static func seeds(for target: FuzzTarget) -> [[UInt8]] {
        switch target {
        case .segment: return [store().segment]
        case .checkpoint: return [store().checkpoint]
        case .export: return [Array(store().export.utf8)]
        case .flightaware: return EnrouteSample.files.compactMap { try? [UInt8](Data(contentsOf: $0)) }
        case .arguments:
            return [["flights", "--to", "KSFO", "--enroute", "--sort", "distance", "--limit", "5"], ["board", "KORD", "--arrivals", "--json"],
                    ["--store=/tmp/x", "status"], ["generate", "--flights", "1000", "--seed", "7", "--out", "dir"], ["--", "-x"]]
                .map { Array($0.joined(separator: "\u{0}").utf8) }
        }
    }

    /// A small store: the schema, airports and flights inserted, linked, updated and deleted
    /// over four more transactions (the checkpoint is at transaction 5, where the checkpoint
    /// target expects it).
    private static func store() -> (segment: [UInt8], checkpoint: [UInt8], export: String) {
        let fs = MemoryFileIO()
        let options = StoreOptions(log: LogOptions(durability: .none, fileIO: fs), maintenance: .manual)
        // swiftlint:disable:next force_try
        let store = try! Store.open(directory: "/seed", schema: schema, options: options)
        defer { store.close() }
        let airport = schema.entity(named: "Airport")!, flight = schema.entity(named: "Flight")!
        func attribute(_ entity: Schema.Entity, _ name: String) -> PropertyNumber { entity.attribute(named: name)!.number }
        let origin = flight.relationship(named: "origin")!.number
        let airports: [LogOperation] = [
            .insert(entity: airport.number, row: 1, values: [
                PropertyValue(attribute(airport, "icao"), .string("KSFO")), PropertyValue(attribute(airport, "latitude"), .double(37.6)),
                PropertyValue(attribute(airport, "tags"), .array([.string("hub")])),
            ]),
            .insert(entity: airport.number, row: 2, values: [PropertyValue(attribute(airport, "icao"), .string("KORD"))]),
        ]
        var flights: [LogOperation] = []
        for row in 1...4 {
            let off: Value = row % 2 == 0 ? .date(Date(timeIntervalSince1970: 1_800_000_000)) : .null
            flights.append(.insert(entity: flight.number, row: UInt64(row), values: [
                PropertyValue(attribute(flight, "ident"), .string("UAL\(row)")),
                PropertyValue(attribute(flight, "distance"), .int(Int64(row * 700))),
                PropertyValue(attribute(flight, "off"), off),
                PropertyValue(attribute(flight, "payload"), .data(Data([1, 2, 3, UInt8(row)]))),
                PropertyValue(attribute(flight, "small"), .uint(UInt64(row))),
            ]))
        }
        for row in 1...4 { flights.append(.link(relationship: origin, source: UInt64(row), target: UInt64(1 + row % 2))) }
        let changes: [LogOperation] = [
            .update(entity: flight.number, row: 2, values: [PropertyValue(attribute(flight, "distance"), .int(9_999))]),
            .unlink(relationship: origin, source: 3, target: 2),
        ]
        let transactions = [airports, flights, changes, [LogOperation.delete(entity: flight.number, row: 4)]]
        for operations in transactions {
            // swiftlint:disable:next force_try
            try! store.commit(operations, author: "seed")
        }
        _ = try? store.checkpoint()
        var export = ""
        try? store.export { export += $0 }
        let segment = fs.contents(of: "/seed/" + SegmentFormat.fileName(segment: 1)) ?? []
        let checkpoint = fs.contents(of: "/seed/" + CheckpointFile.fileName(transaction: 5)) ?? []
        // The zero-filled preallocated end says nothing: seeds end with the last record.
        let end = (segment.lastIndex { $0 != 0 } ?? 0) + 1
        return (Array(segment[..<end]), checkpoint, export)
    }
}
