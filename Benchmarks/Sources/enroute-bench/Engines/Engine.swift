import Foundation

/// One store engine doing the Enroute work: GraphStore, or one of the two SQLite baselines.
/// Every engine loads the same `SyntheticEnroute` rows and must give the same answers.
protocol Engine: AnyObject {
    /// "graphstore", "sqlite" or "grdb": the JSON key prefix.
    static var name: String { get }
    /// An empty store at `path` (whatever was there is removed).
    static func create(at path: String) throws -> Self
    /// The existing store at `path` (cold open).
    static func open(at path: String) throws -> Self
    /// All airports, airlines and flights with their relationships, in one transaction/save.
    func bulkImport(_ rows: SyntheticEnroute.Rows) throws
    /// The seed app's import into an empty store: per flight record, find-or-create its airports
    /// and airline by their codes, then find-or-create the flight by ident and set its values;
    /// one transaction/save at the end.
    func importSeedPattern(_ rows: SyntheticEnroute.Rows) throws
    /// Every flight updated by ident (distance, progress, status), in one transaction/save.
    func upsertAll(_ rows: SyntheticEnroute.Rows, round: Int) throws
    /// The Enroute filter: flights to `destination` of `airline` in the air, by distance:
    /// "ident distance" per flight.
    func filter(destination: String, airline: String) throws -> [String]
    /// A flight's route distance, fetched by its unique ident.
    func lookup(ident: String) throws -> Int
    /// An airport's arrivals board, by arrival time: "ident arrival-seconds" per flight.
    func board(airport: String) throws -> [String]
    /// `open_read_all`, after a cold open: every flight fetched, every attribute read and its
    /// origin's, destination's and airline's code (a to-one read each). Returns a checksum of
    /// what it read (route distances and code lengths), the same for every engine.
    func readAll() throws -> Int
    /// Gives back the space dead rows and old versions take.
    func compact() throws
    func close()
}

/// The values an upsert round writes, the same for every engine.
enum UpsertValues {
    static func distance(_ row: SyntheticEnroute.FlightRow, round: Int) -> Int { row.routeDistance + round + 1 }
    static func progress(_ row: SyntheticEnroute.FlightRow, round: Int) -> Int { (row.progressPercent + round + 1) % 100 }
    static func status(round: Int) -> String { "Updated \(round)" }
}

/// Bytes the files at `path` take (a directory's files, or a database and its -wal and -shm).
func storeBytes(_ path: String) -> UInt64 {
    let manager = FileManager.default
    var isDirectory: ObjCBool = false
    if manager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
        return (manager.subpaths(atPath: path) ?? []).reduce(0) { total, name in
            total + ((try? manager.attributesOfItem(atPath: path + "/" + name)[.size] as? UInt64) ?? 0)
        }
    }
    return ["", "-wal", "-shm"].reduce(0) { total, suffix in
        total + ((try? manager.attributesOfItem(atPath: path + suffix)[.size] as? UInt64) ?? 0)
    }
}

func removeStore(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}
