import Foundation
import GRDB

/// The `grdb` baseline: GRDB 7 records and its query interface, as a Swift programmer writes
/// them — Codable record types, a migrator, associations, a DatabasePool (WAL) with
/// synchronous=FULL.
/// Sendable: its one stored property is the pool, which GRDB makes safe to share between threads
/// (the durable throughput's writers share one, as an app's threads do).
final class GRDBEngine: Engine, Sendable {
    static let name = "grdb"
    private let pool: DatabasePool

    struct AirportRecord: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "airport"
        var id: Int64
        var icao: String
        var name: String
        var city: String
        var state: String
        var countryCode: String
        var latitude: Double
        var longitude: Double
        var timezone: String
    }

    struct AirlineRecord: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "airline"
        var id: Int64
        var code: String
        var name: String
        var shortname: String
    }

    struct FlightRecord: Codable, FetchableRecord, PersistableRecord {
        static let databaseTableName = "flight"
        static let destination = belongsTo(AirportRecord.self, key: "destination", using: ForeignKey(["destinationId"]))
        static let origin = belongsTo(AirportRecord.self, key: "origin", using: ForeignKey(["originId"]))
        static let airline = belongsTo(AirlineRecord.self, using: ForeignKey(["airlineId"]))
        var id: Int64
        var ident: String
        var actualOff: Date?
        var scheduledOff: Date
        var estimatedOff: Date
        var scheduledOn: Date
        var estimatedOn: Date
        var actualOn: Date?
        var aircraftType: String
        var progressPercent: Int
        var status: String
        var routeDistance: Int
        var filedAirspeed: Int
        var filedAltitude: Int
        var originId: Int64
        var destinationId: Int64
        var airlineId: Int64

        /// When it lands (or landed): actual if known, else estimated.
        var arrival: Date { actualOn ?? estimatedOn }
    }

    private init(path: String, migrate: Bool) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        guard migrate else { return }
        var migrator = DatabaseMigrator()
        migrator.registerMigration("enroute") { db in
            try db.create(table: "airport") { t in
                t.primaryKey("id", .integer)
                t.column("icao", .text).notNull().unique()
                t.column("name", .text).notNull()
                t.column("city", .text).notNull()
                t.column("state", .text).notNull()
                t.column("countryCode", .text).notNull()
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
                t.column("timezone", .text).notNull()
            }
            try db.create(table: "airline") { t in
                t.primaryKey("id", .integer)
                t.column("code", .text).notNull().unique()
                t.column("name", .text).notNull()
                t.column("shortname", .text).notNull()
            }
            try db.create(table: "flight") { t in
                t.primaryKey("id", .integer)
                t.column("ident", .text).notNull().unique()
                t.column("actualOff", .datetime).indexed()
                t.column("scheduledOff", .datetime).notNull()
                t.column("estimatedOff", .datetime).notNull()
                t.column("scheduledOn", .datetime).notNull()
                t.column("estimatedOn", .datetime).notNull().indexed()
                t.column("actualOn", .datetime).indexed()
                t.column("aircraftType", .text).notNull()
                t.column("progressPercent", .integer).notNull()
                t.column("status", .text).notNull()
                t.column("routeDistance", .integer).notNull().indexed()
                t.column("filedAirspeed", .integer).notNull()
                t.column("filedAltitude", .integer).notNull()
                t.belongsTo("origin", inTable: "airport").notNull()
                t.belongsTo("destination", inTable: "airport").notNull()
                t.belongsTo("airline").notNull()
            }
        }
        try migrator.migrate(pool)
    }

    static func create(at path: String) throws -> GRDBEngine {
        removeStore(path)
        return try GRDBEngine(path: path, migrate: true)
    }

    static func open(at path: String) throws -> GRDBEngine { try GRDBEngine(path: path, migrate: false) }

    func bulkImport(_ rows: SyntheticEnroute.Rows) throws {
        func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: Double(seconds)) }
        try pool.write { db in
            for (i, a) in rows.airports.enumerated() {
                try AirportRecord(id: Int64(i + 1), icao: a.icao, name: a.name, city: a.city, state: "ST", countryCode: "US",
                                  latitude: a.latitude, longitude: a.longitude, timezone: "America/Chicago").insert(db)
            }
            for (i, code) in rows.airlines.enumerated() {
                try AirlineRecord(id: Int64(i + 1), code: code, name: "Airline \(i)", shortname: "AL\(i)").insert(db)
            }
            for (i, f) in rows.flights.enumerated() {
                try FlightRecord(id: Int64(i + 1), ident: f.ident, actualOff: f.actualOff.map(date), scheduledOff: date(f.scheduledOff),
                                 estimatedOff: date(f.estimatedOff), scheduledOn: date(f.scheduledOn), estimatedOn: date(f.estimatedOn),
                                 actualOn: nil, aircraftType: f.aircraftType, progressPercent: f.progressPercent, status: f.status,
                                 routeDistance: f.routeDistance, filedAirspeed: f.filedAirspeed, filedAltitude: f.filedAltitude,
                                 originId: Int64(f.origin + 1), destinationId: Int64(f.destination + 1), airlineId: Int64(f.airline + 1)).insert(db)
            }
        }
        try pool.write { db in try db.execute(sql: "ANALYZE") }
    }

    /// The seed app's find-or-create per record, with GRDB records: a request by each unique
    /// column, an insert when it finds nothing, one write transaction.
    func importSeedPattern(_ rows: SyntheticEnroute.Rows) throws {
        func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: Double(seconds)) }
        try pool.write { db in
            var nextAirport: Int64 = 1, nextAirline: Int64 = 1, nextFlight: Int64 = 1
            func airport(_ index: Int) throws -> Int64 {
                let a = rows.airports[index]
                if let found = try AirportRecord.filter(Column("icao") == a.icao).fetchOne(db) { return found.id }
                defer { nextAirport += 1 }
                try AirportRecord(id: nextAirport, icao: a.icao, name: a.name, city: a.city, state: "ST", countryCode: "US",
                                  latitude: a.latitude, longitude: a.longitude, timezone: "America/Chicago").insert(db)
                return nextAirport
            }
            func airline(_ index: Int) throws -> Int64 {
                let code = rows.airlines[index]
                if let found = try AirlineRecord.filter(Column("code") == code).fetchOne(db) { return found.id }
                defer { nextAirline += 1 }
                try AirlineRecord(id: nextAirline, code: code, name: "Airline \(index)", shortname: "AL\(index)").insert(db)
                return nextAirline
            }
            for f in rows.flights {
                let origin = try airport(f.origin), destination = try airport(f.destination), airlineID = try airline(f.airline)
                let existing = try FlightRecord.filter(Column("ident") == f.ident).fetchOne(db)
                let flight = FlightRecord(id: existing?.id ?? nextFlight, ident: f.ident, actualOff: f.actualOff.map(date), scheduledOff: date(f.scheduledOff),
                                          estimatedOff: date(f.estimatedOff), scheduledOn: date(f.scheduledOn), estimatedOn: date(f.estimatedOn),
                                          actualOn: nil, aircraftType: f.aircraftType, progressPercent: f.progressPercent, status: f.status,
                                          routeDistance: f.routeDistance, filedAirspeed: f.filedAirspeed, filedAltitude: f.filedAltitude,
                                          originId: origin, destinationId: destination, airlineId: airlineID)
                if existing == nil {
                    try flight.insert(db)
                    nextFlight += 1
                } else {
                    try flight.update(db)
                }
            }
        }
    }

    func upsertAll(_ rows: SyntheticEnroute.Rows, round: Int) throws {
        try pool.write { db in
            for row in rows.flights {
                guard var flight = try FlightRecord.filter(Column("ident") == row.ident).fetchOne(db) else {
                    throw SQLiteEngine.Failure(description: "no flight \(row.ident)")
                }
                flight.routeDistance = UpsertValues.distance(row, round: round)
                flight.progressPercent = UpsertValues.progress(row, round: round)
                flight.status = UpsertValues.status(round: round)
                try flight.update(db)
            }
        }
    }

    func filter(destination: String, airline: String) throws -> [String] {
        try pool.read { db in
            try FlightRecord
                .joining(required: FlightRecord.destination.filter(Column("icao") == destination))
                .joining(required: FlightRecord.airline.filter(Column("code") == airline))
                .filter(Column("actualOff") != nil && Column("actualOn") == nil)
                .order(Column("routeDistance"), Column("ident"))
                .fetchAll(db)
        }.map { "\($0.ident) \($0.routeDistance)" }
    }

    func lookup(ident: String) throws -> Int {
        try pool.read { db in try FlightRecord.filter(Column("ident") == ident).fetchOne(db) }?.routeDistance ?? -1
    }

    func board(airport: String) throws -> [String] {
        try pool.read { db in
            try FlightRecord
                .joining(required: FlightRecord.destination.filter(Column("icao") == airport))
                .order(Column("estimatedOn"), Column("ident"))
                .fetchAll(db)
        }.map { "\($0.ident) \(Int64($0.arrival.timeIntervalSince1970))" }
    }

    func compact() throws {
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            try db.execute(sql: "VACUUM")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Every flight record with its origin, destination and airline, as GRDB's associations
    /// fetch them.
    struct FlightWithRelations: Decodable, FetchableRecord {
        var flight: FlightRecord
        var origin: AirportRecord
        var destination: AirportRecord
        var airline: AirlineRecord
    }

    func readAll() throws -> Int {
        try pool.read { db in
            let request = FlightRecord.including(required: FlightRecord.origin).including(required: FlightRecord.destination)
                .including(required: FlightRecord.airline).asRequest(of: FlightWithRelations.self)
            var sum = 0
            for row in try request.fetchAll(db) {
                let f = row.flight
                sum &+= f.routeDistance &+ f.progressPercent &+ f.filedAirspeed &+ f.filedAltitude
                sum &+= row.origin.icao.utf8.count &+ row.destination.icao.utf8.count &+ row.airline.code.utf8.count
            }
            return sum
        }
    }

    func close() { try? pool.close() }

    /// `durable_commit`'s one small transaction: a flight's progress and status, through its
    /// record (the same row the sqlite engine updates for `i`).
    func commitSmallUpdate(_ i: Int) throws {
        try pool.write { db in
            guard var flight = try FlightRecord.fetchOne(db, key: Int64(i % 1000 + 1)) else {
                throw SQLiteEngine.Failure(description: "no flight \(i % 1000 + 1)")
            }
            flight.progressPercent = i % 100
            flight.status = "En Route \(i)"
            try flight.update(db)
        }
    }
}
