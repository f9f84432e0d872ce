import CSQLite
import Foundation

/// The `sqlite` baseline: SQLite through its C API as a C programmer would use it — the Enroute
/// schema with foreign keys and an index on every queried column, WAL, synchronous=FULL,
/// prepared statements kept and reused, dates as integers, one transaction per batch.
final class SQLiteEngine: Engine {
    static let name = "sqlite"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private var db: OpaquePointer?
    let path: String
    private var statements: [String: Statement] = [:]

    private init(path: String) throws {
        self.path = path
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw Failure(description: "cannot open \(path)") }
        // Concurrent writers (durable_commit's throughput) wait for the lock instead of failing.
        sqlite3_busy_timeout(db, 10_000)
        try exec("PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;")
    }

    static func open(at path: String) throws -> SQLiteEngine { try SQLiteEngine(path: path) }

    static func create(at path: String) throws -> SQLiteEngine {
        removeStore(path)
        let engine = try SQLiteEngine(path: path)
        try engine.exec("""
            PRAGMA journal_mode=WAL;
            CREATE TABLE airports(id INTEGER PRIMARY KEY, icao TEXT NOT NULL UNIQUE, name TEXT, city TEXT, state TEXT,
                country_code TEXT, latitude REAL, longitude REAL, timezone TEXT);
            CREATE TABLE airlines(id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT, shortname TEXT);
            CREATE TABLE flights(id INTEGER PRIMARY KEY, ident TEXT NOT NULL UNIQUE,
                actual_off INTEGER, scheduled_off INTEGER, estimated_off INTEGER, scheduled_on INTEGER, estimated_on INTEGER,
                actual_on INTEGER, aircraft_type TEXT, progress_percent INTEGER, status TEXT, route_distance INTEGER,
                filed_airspeed INTEGER, filed_altitude INTEGER,
                origin_id INTEGER REFERENCES airports(id), destination_id INTEGER REFERENCES airports(id),
                airline_id INTEGER REFERENCES airlines(id));
            CREATE INDEX flights_origin ON flights(origin_id);
            CREATE INDEX flights_destination ON flights(destination_id);
            CREATE INDEX flights_airline ON flights(airline_id);
            CREATE INDEX flights_distance ON flights(route_distance);
            CREATE INDEX flights_actual_off ON flights(actual_off);
            CREATE INDEX flights_actual_on ON flights(actual_on);
            CREATE INDEX flights_estimated_on ON flights(estimated_on);
            -- What an expert adds for the two multi-table queries (--explain shows their plans):
            -- the Enroute filter answered from one partial index in its order, and the arrivals
            -- board from one expression index in its order, with no sort step.
            CREATE INDEX flights_enroute ON flights(destination_id, airline_id, route_distance, ident)
                WHERE actual_off IS NOT NULL AND actual_on IS NULL;
            CREATE INDEX flights_arrival ON flights(destination_id, COALESCE(actual_on, estimated_on), ident);
            """)
        return engine
    }

    func close() {
        statements.removeAll()
        if db != nil { sqlite3_close(db) }
        db = nil
    }

    deinit { close() }

    func exec(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "?"
            sqlite3_free(message)
            throw Failure(description: "sqlite: \(text)")
        }
    }

    final class Statement {
        let handle: OpaquePointer
        init(_ db: OpaquePointer?, _ sql: String) throws {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
                throw Failure(description: "prepare failed: \(String(cString: sqlite3_errmsg(db)))")
            }
            handle = statement
        }
        deinit { sqlite3_finalize(handle) }

        func reset() {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        func bind(_ index: Int32, _ text: String) { sqlite3_bind_text(handle, index, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self)) }
        func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
        func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }
        func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }
        func step() -> Int32 { sqlite3_step(handle) }
        func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
        func text(_ column: Int32) -> String { String(cString: sqlite3_column_text(handle, column)) }
    }

    func prepare(_ sql: String) throws -> Statement { try Statement(db, sql) }

    /// The statements the workloads run (kept here so that `--explain` shows the plan of each).
    enum SQL {
        static let filter = """
            SELECT f.ident, f.route_distance FROM flights f
            JOIN airports d ON d.id = f.destination_id JOIN airlines a ON a.id = f.airline_id
            WHERE d.icao = ? AND a.code = ? AND f.actual_off IS NOT NULL AND f.actual_on IS NULL
            ORDER BY f.route_distance, f.ident
            """
        static let lookup = "SELECT ident, route_distance FROM flights WHERE ident = ?"
        static let board = """
            SELECT f.ident, COALESCE(f.actual_on, f.estimated_on) AS arrival FROM flights f
            JOIN airports d ON d.id = f.destination_id
            WHERE d.icao = ? ORDER BY arrival, f.ident
            """
        static let upsert = "UPDATE flights SET route_distance = ?, progress_percent = ?, status = ? WHERE ident = ?"
        static let findAirport = "SELECT id FROM airports WHERE icao = ?"
        static let findAirline = "SELECT id FROM airlines WHERE code = ?"
        static let upsertFlight = """
            INSERT INTO flights(ident, actual_off, scheduled_off, estimated_off, scheduled_on, estimated_on, actual_on,
                aircraft_type, progress_percent, status, route_distance, filed_airspeed, filed_altitude, origin_id, destination_id, airline_id)
            VALUES (?,?,?,?,?,?,NULL,?,?,?,?,?,?,?,?,?)
            ON CONFLICT(ident) DO UPDATE SET actual_off = excluded.actual_off, scheduled_off = excluded.scheduled_off,
                estimated_off = excluded.estimated_off, scheduled_on = excluded.scheduled_on, estimated_on = excluded.estimated_on,
                aircraft_type = excluded.aircraft_type, progress_percent = excluded.progress_percent, status = excluded.status,
                route_distance = excluded.route_distance, filed_airspeed = excluded.filed_airspeed, filed_altitude = excluded.filed_altitude,
                origin_id = excluded.origin_id, destination_id = excluded.destination_id, airline_id = excluded.airline_id
            """
        static let readAll = """
            SELECT f.ident, f.scheduled_off, f.estimated_off, f.scheduled_on, f.estimated_on, f.actual_off, f.actual_on,
                f.aircraft_type, f.status, f.route_distance, f.progress_percent, f.filed_airspeed, f.filed_altitude,
                o.icao, d.icao, a.code
            FROM flights f LEFT JOIN airports o ON o.id = f.origin_id LEFT JOIN airports d ON d.id = f.destination_id
                LEFT JOIN airlines a ON a.id = f.airline_id
            """
        static let smallSaveUpdate = "UPDATE flights SET route_distance = ? WHERE ident = ?"
        static let smallSaveInsert = """
                INSERT INTO flights(ident, scheduled_off, estimated_off, scheduled_on, estimated_on, aircraft_type, progress_percent,
                    status, route_distance, filed_airspeed, filed_altitude, origin_id, destination_id, airline_id)
                SELECT ?, scheduled_off, estimated_off, scheduled_on, estimated_on, aircraft_type, 0, status, ?, 0, 0,
                    origin_id, destination_id, airline_id FROM flights WHERE ident = ?
                """
        static let deleteFlight = "DELETE FROM flights WHERE ident = ?"
        static let moveFlight = "UPDATE flights SET destination_id = (SELECT id FROM airports WHERE icao = ?) WHERE ident = ?"
        static let topTen = "SELECT ident, route_distance FROM flights ORDER BY route_distance DESC, ident LIMIT 10"

        /// By workload, for `--explain`.
        static let byWorkload: [(workload: String, sql: String)] = [
            ("filter_query", filter), ("point_lookup", lookup), ("board", board), ("upsert", upsert),
            ("import_seed_pattern", findAirport), ("import_seed_pattern", findAirline), ("import_seed_pattern", upsertFlight),
            ("small_save", smallSaveUpdate), ("small_save", smallSaveInsert), ("open_read_all", readAll),
            ("delete_save", deleteFlight), ("move_save", moveFlight), ("top_ten", topTen),
        ]
    }

    /// SQLite's plan for `sql` (EXPLAIN QUERY PLAN), one line per step.
    func queryPlan(_ sql: String) throws -> [String] {
        let explain = try prepare("EXPLAIN QUERY PLAN " + sql)
        var lines: [String] = []
        while explain.step() == SQLITE_ROW { lines.append(explain.text(3)) }
        return lines
    }


    /// A statement prepared once and kept, reset for each use.
    private func statement(_ sql: String) throws -> Statement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let prepared = try prepare(sql)
        statements[sql] = prepared
        return prepared
    }

    func bulkImport(_ data: SyntheticEnroute.Rows) throws {
        try exec("BEGIN")
        let airport = try statement("INSERT INTO airports(id, icao, name, city, state, country_code, latitude, longitude, timezone) VALUES (?,?,?,?,?,?,?,?,?)")
        for (i, a) in data.airports.enumerated() {
            airport.reset()
            airport.bind(1, Int64(i + 1)); airport.bind(2, a.icao); airport.bind(3, a.name); airport.bind(4, a.city)
            airport.bind(5, "ST"); airport.bind(6, "US"); airport.bind(7, a.latitude); airport.bind(8, a.longitude); airport.bind(9, "America/Chicago")
            guard airport.step() == SQLITE_DONE else { throw Failure(description: "insert airport") }
        }
        let airline = try statement("INSERT INTO airlines(id, code, name, shortname) VALUES (?,?,?,?)")
        for (i, code) in data.airlines.enumerated() {
            airline.reset()
            airline.bind(1, Int64(i + 1)); airline.bind(2, code); airline.bind(3, "Airline \(i)"); airline.bind(4, "AL\(i)")
            guard airline.step() == SQLITE_DONE else { throw Failure(description: "insert airline") }
        }
        let flight = try statement("""
            INSERT INTO flights(id, ident, actual_off, scheduled_off, estimated_off, scheduled_on, estimated_on, actual_on,
                aircraft_type, progress_percent, status, route_distance, filed_airspeed, filed_altitude, origin_id, destination_id, airline_id)
            VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
            """)
        for (i, f) in data.flights.enumerated() {
            flight.reset()
            flight.bind(1, Int64(i + 1)); flight.bind(2, f.ident)
            if let off = f.actualOff { flight.bind(3, off) } else { flight.bindNull(3) }
            flight.bind(4, f.scheduledOff); flight.bind(5, f.estimatedOff); flight.bind(6, f.scheduledOn); flight.bind(7, f.estimatedOn)
            flight.bindNull(8)
            flight.bind(9, f.aircraftType); flight.bind(10, Int64(f.progressPercent)); flight.bind(11, f.status)
            flight.bind(12, Int64(f.routeDistance)); flight.bind(13, Int64(f.filedAirspeed)); flight.bind(14, Int64(f.filedAltitude))
            flight.bind(15, Int64(f.origin + 1)); flight.bind(16, Int64(f.destination + 1)); flight.bind(17, Int64(f.airline + 1))
            guard flight.step() == SQLITE_DONE else { throw Failure(description: "insert flight: \(String(cString: sqlite3_errmsg(db)))") }
        }
        try exec("COMMIT")
        try exec("ANALYZE")
    }

    /// The seed app's find-or-create per record, as SQLite does it best: the lookups by the
    /// unique indexes, prepared once; the flight as one upsert on its unique ident.
    func importSeedPattern(_ data: SyntheticEnroute.Rows) throws {
        try exec("BEGIN")
        let findAirport = try statement(SQL.findAirport)
        let insertAirport = try statement("INSERT INTO airports(icao, name, city, state, country_code, latitude, longitude, timezone) VALUES (?,?,?,?,?,?,?,?)")
        let findAirline = try statement(SQL.findAirline)
        let insertAirline = try statement("INSERT INTO airlines(code, name, shortname) VALUES (?,?,?)")
        let upsertFlight = try statement(SQL.upsertFlight)
        func airport(_ index: Int) throws -> Int64 {
            let a = data.airports[index]
            findAirport.reset()
            findAirport.bind(1, a.icao)
            if findAirport.step() == SQLITE_ROW { return findAirport.int(0) }
            insertAirport.reset()
            insertAirport.bind(1, a.icao); insertAirport.bind(2, a.name); insertAirport.bind(3, a.city); insertAirport.bind(4, "ST")
            insertAirport.bind(5, "US"); insertAirport.bind(6, a.latitude); insertAirport.bind(7, a.longitude); insertAirport.bind(8, "America/Chicago")
            guard insertAirport.step() == SQLITE_DONE else { throw Failure(description: "insert airport") }
            return sqlite3_last_insert_rowid(db)
        }
        func airline(_ index: Int) throws -> Int64 {
            let code = data.airlines[index]
            findAirline.reset()
            findAirline.bind(1, code)
            if findAirline.step() == SQLITE_ROW { return findAirline.int(0) }
            insertAirline.reset()
            insertAirline.bind(1, code); insertAirline.bind(2, "Airline \(index)"); insertAirline.bind(3, "AL\(index)")
            guard insertAirline.step() == SQLITE_DONE else { throw Failure(description: "insert airline") }
            return sqlite3_last_insert_rowid(db)
        }
        for f in data.flights {
            let origin = try airport(f.origin), destination = try airport(f.destination), airlineID = try airline(f.airline)
            upsertFlight.reset()
            upsertFlight.bind(1, f.ident)
            if let off = f.actualOff { upsertFlight.bind(2, off) } else { upsertFlight.bindNull(2) }
            upsertFlight.bind(3, f.scheduledOff); upsertFlight.bind(4, f.estimatedOff); upsertFlight.bind(5, f.scheduledOn); upsertFlight.bind(6, f.estimatedOn)
            upsertFlight.bind(7, f.aircraftType); upsertFlight.bind(8, Int64(f.progressPercent)); upsertFlight.bind(9, f.status)
            upsertFlight.bind(10, Int64(f.routeDistance)); upsertFlight.bind(11, Int64(f.filedAirspeed)); upsertFlight.bind(12, Int64(f.filedAltitude))
            upsertFlight.bind(13, origin); upsertFlight.bind(14, destination); upsertFlight.bind(15, airlineID)
            guard upsertFlight.step() == SQLITE_DONE else { throw Failure(description: "upsert flight: \(String(cString: sqlite3_errmsg(db)))") }
        }
        try exec("COMMIT")
    }

    func upsertAll(_ rows: SyntheticEnroute.Rows, round: Int) throws {
        try exec("BEGIN")
        let update = try statement(SQL.upsert)
        for row in rows.flights {
            update.reset()
            update.bind(1, Int64(UpsertValues.distance(row, round: round)))
            update.bind(2, Int64(UpsertValues.progress(row, round: round)))
            update.bind(3, UpsertValues.status(round: round))
            update.bind(4, row.ident)
            guard update.step() == SQLITE_DONE, sqlite3_changes(db) == 1 else { throw Failure(description: "update \(row.ident)") }
        }
        try exec("COMMIT")
    }

    func filter(destination: String, airline: String) throws -> [String] {
        let query = try statement(SQL.filter)
        query.bind(1, destination)
        query.bind(2, airline)
        var found: [String] = []
        while query.step() == SQLITE_ROW { found.append("\(query.text(0)) \(query.int(1))") }
        return found
    }

    func lookup(ident: String) throws -> Int {
        let query = try statement(SQL.lookup)
        query.bind(1, ident)
        return query.step() == SQLITE_ROW ? Int(query.int(1)) : -1
    }

    func board(airport: String) throws -> [String] {
        let query = try statement(SQL.board)
        query.bind(1, airport)
        var found: [String] = []
        while query.step() == SQLITE_ROW { found.append("\(query.text(0)) \(query.int(1))") }
        return found
    }

    func readAll() throws -> Int {
        let query = try statement(SQL.readAll)
        var sum = 0
        while query.step() == SQLITE_ROW {
            // Every column read as the app would hold it: text as String, times and numbers as integers.
            _ = (query.text(0), query.int(1), query.int(2), query.int(3), query.int(4), query.int(5), query.int(6),
                 query.text(7), query.text(8))
            sum &+= Int(query.int(9) &+ query.int(10) &+ query.int(11) &+ query.int(12))
            sum &+= query.text(13).utf8.count &+ query.text(14).utf8.count &+ query.text(15).utf8.count
        }
        return sum
    }

    func compact() throws {
        statements.removeAll()
        try exec("PRAGMA wal_checkpoint(TRUNCATE); VACUUM; PRAGMA wal_checkpoint(TRUNCATE);")
    }

    /// `small_save`: the same change as GraphStore's, one durable transaction.
    func smallSave(_ i: Int, rows: SyntheticEnroute.Rows) throws {
        let row = rows.flights[(i &* 7_919) % rows.flights.count]
        let update = try statement(SQL.smallSaveUpdate)
        try exec("BEGIN IMMEDIATE")
        update.bind(1, Int64(row.routeDistance + 1_000 + i))
        update.bind(2, row.ident)
        guard update.step() == SQLITE_DONE else { throw Failure(description: "small save: \(String(cString: sqlite3_errmsg(db)))") }
        if i % 2 == 0 {
            let insert = try statement(SQL.smallSaveInsert)
            insert.bind(1, "S\(i)")
            insert.bind(2, Int64(row.routeDistance))
            insert.bind(3, row.ident)
            guard insert.step() == SQLITE_DONE else { throw Failure(description: "small save insert: \(String(cString: sqlite3_errmsg(db)))") }
        }
        try exec("COMMIT")
    }

    /// `delete_save`: one durable transaction deleting a flight by ident.
    func deleteSave(ident: String) throws {
        let delete = try statement(SQL.deleteFlight)
        try exec("BEGIN IMMEDIATE")
        delete.bind(1, ident)
        guard delete.step() == SQLITE_DONE, sqlite3_changes(db) == 1 else { throw Failure(description: "delete \(ident): \(String(cString: sqlite3_errmsg(db)))") }
        try exec("COMMIT")
    }

    /// `move_save`: one durable transaction giving a flight another destination airport.
    func moveSave(ident: String, to icao: String) throws {
        let move = try statement(SQL.moveFlight)
        try exec("BEGIN IMMEDIATE")
        move.bind(1, icao)
        move.bind(2, ident)
        guard move.step() == SQLITE_DONE, sqlite3_changes(db) == 1 else { throw Failure(description: "move \(ident): \(String(cString: sqlite3_errmsg(db)))") }
        try exec("COMMIT")
    }

    /// `top_ten`: the ten longest routes.
    func topTen() throws -> [String] {
        let query = try statement(SQL.topTen)
        var found: [String] = []
        while query.step() == SQLITE_ROW { found.append("\(query.text(0)) \(query.int(1))") }
        return found
    }

    /// One small durable transaction: a flight's progress and status (the durable_commit
    /// workload). The values differ every time: SQLite writes nothing for an unchanged row.
    func commitSmallUpdate(_ i: Int) throws {
        let update = try statement("UPDATE flights SET progress_percent = ?, status = ? WHERE id = ?")
        try exec("BEGIN IMMEDIATE")
        update.bind(1, Int64(i % 100))
        update.bind(2, "En Route \(i)")
        update.bind(3, Int64(i % 1000 + 1))
        guard update.step() == SQLITE_DONE else { throw Failure(description: "small update: \(String(cString: sqlite3_errmsg(db)))") }
        try exec("COMMIT")
    }
}
