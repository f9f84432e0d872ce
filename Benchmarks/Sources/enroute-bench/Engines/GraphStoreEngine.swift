import EnrouteModels
import Foundation
import GraphStore

/// GraphStore as the Enroute app uses it: a container with `.full` durability, one context,
/// the Enroute models and queries.
final class GraphStoreEngine: Engine {
    static let name = "graphstore"
    let container: ModelContainer
    let context: ModelContext

    private init(path: String) throws {
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: path), durability: .full, autosaveEnabled: false)
        configuration.maintenance = .manual
        container = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: configuration)
        context = ModelContext(container)
    }

    static func create(at path: String) throws -> GraphStoreEngine {
        removeStore(path)
        return try GraphStoreEngine(path: path)
    }

    static func open(at path: String) throws -> GraphStoreEngine { try GraphStoreEngine(path: path) }

    /// Airports, airlines and flights as batch rows in one transaction (the import API:
    /// `BatchInsert`), flights linked to the others by their codes.
    func bulkImport(_ rows: SyntheticEnroute.Rows) throws {
        let (airports, airlines, flights) = try SyntheticEnroute.batches(rows, in: container)
        try ModelContext(container).execute(airports, airlines, flights)
    }

    /// The same import as model objects inserted into a context and saved once (reported beside it).
    func bulkImportWithObjects(_ rows: SyntheticEnroute.Rows) throws {
        // A context of its own, so its objects are released with it (as an importer would).
        let importer = ModelContext(container)
        SyntheticEnroute.insert(rows, into: importer)
        try importer.save()
    }

    /// As the seed app writes it (`Flight.withIdent`, `Airport.withICAO`, `Airline.withCode`):
    /// a `#Predicate` fetch per lookup, an insert when it finds nothing, one save.
    func importSeedPattern(_ rows: SyntheticEnroute.Rows) throws {
        let importer = ModelContext(container)
        importer.autosaveEnabled = false
        func airport(_ index: Int) throws -> Airport {
            let row = rows.airports[index], icao = row.icao
            if let found = try importer.fetch(FetchDescriptor<Airport>(predicate: #Predicate { $0.icao == icao })).first { return found }
            let airport = Airport(icao: icao)
            importer.insert(airport)
            SyntheticEnroute.setValues(of: airport, from: row)
            return airport
        }
        func airline(_ index: Int) throws -> Airline {
            let code = rows.airlines[index]
            if let found = try importer.fetch(FetchDescriptor<Airline>(predicate: #Predicate { $0.code == code })).first { return found }
            let airline = Airline(code: code)
            importer.insert(airline)
            SyntheticEnroute.setValues(of: airline, number: index)
            return airline
        }
        for row in rows.flights {
            let ident = row.ident
            let flight: Flight
            if let found = try importer.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident })).first {
                flight = found
            } else {
                flight = Flight(ident: ident)
                importer.insert(flight)
            }
            flight.origin = try airport(row.origin)
            flight.destination = try airport(row.destination)
            SyntheticEnroute.setValues(of: flight, from: row)
            flight.airline = try airline(row.airline)
        }
        try importer.save()
    }

    /// Every flight's changing values by ident, as batch rows (an upsert by the unique key).
    func upsertAll(_ rows: SyntheticEnroute.Rows, round: Int) throws {
        var batch = try BatchInsert(Flight.self, in: container)
        let ident = try batch.attribute(\.ident), distance = try batch.attribute(\.routeDistance)
        let progress = try batch.attribute(\.progressPercent), status = try batch.attribute(\.status)
        batch.reserveCapacity(rows.flights.count)
        let newStatus = UpsertValues.status(round: round)
        for row in rows.flights {
            batch.appendRow()
            batch.set(ident, row.ident)
            batch.set(distance, UpsertValues.distance(row, round: round))
            batch.set(progress, UpsertValues.progress(row, round: round))
            batch.set(status, newStatus)
        }
        let result = try ModelContext(container).execute(batch)
        guard result.updated == rows.flights.count, result.inserted == 0 else {
            throw SQLiteEngine.Failure(description: "upsert inserted \(result.inserted) and updated \(result.updated) of \(rows.flights.count)")
        }
    }

    /// `upsert_objects`, as the seed app writes it: each flight fetched by a `#Predicate` on its
    /// ident (`Flight.withIdent`), changed, one save.
    func upsertAllWithObjects(_ rows: SyntheticEnroute.Rows, round: Int) throws {
        let updater = ModelContext(container)
        updater.autosaveEnabled = false
        for row in rows.flights {
            let ident = row.ident
            guard let flight = try updater.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident })).first else {
                throw SQLiteEngine.Failure(description: "no flight \(row.ident)")
            }
            flight.routeDistance = UpsertValues.distance(row, round: round)
            flight.progressPercent = UpsertValues.progress(row, round: round)
            flight.status = UpsertValues.status(round: round)
        }
        try updater.save()
    }

    /// The Enroute filter as a prepared fetch: written once, run with each query's codes (as the
    /// `sqlite` engine prepares its statement once and binds them).
    func filter(destination: String, airline: String) throws -> [String] {
        try context.fetch(Self.enrouteFilter, Route(destination: destination, airline: airline))
            .map { "\($0.ident) \($0.routeDistance)" }
    }

    /// The same filter as the app's `FlightFilter` writes it: a `#Predicate` made per query
    /// (reported beside the prepared one).
    func filterWithPredicate(destination: String, airline: String) throws -> [String] {
        try context.fetch(FlightFilter(destination: destination, airline: airline, enrouteOnly: true, sort: .distance).fetchDescriptor)
            .map { "\($0.ident) \($0.routeDistance)" }
    }

    struct Route {
        // Optional, as the chains they are compared with are (Foundation's expressions do not promote).
        var destination: String?
        var airline: String?
    }

    static let enroutePredicate = #Predicate<Flight, Route> { flight, route in
        flight.destination?.icao == route.destination && flight.airline?.code == route.airline
            && flight.actualOff != nil && flight.actualOn == nil
    }
    static let enrouteFilter = PreparedFetch(predicate: enroutePredicate,
                                             sortBy: FlightFilter(sort: .distance).sortDescriptors)

    func lookup(ident: String) throws -> Int {
        try context.fetchUnique(\Flight.ident, equals: ident)?.routeDistance ?? -1
    }

    /// The same lookup written as a `#Predicate` fetch (reported beside the unique-key one).
    func lookupWithPredicate(ident: String) throws -> Int {
        try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident })).first?.routeDistance ?? -1
    }

    func board(airport: String) throws -> [String] {
        try EnrouteQueries.arrivals(at: airport, in: context).map { "\($0.ident) \(Int64($0.arrival.timeIntervalSince1970))" }
    }

    /// One small durable save on the loaded store (`small_save`): a flight's indexed distance
    /// changed and, every other time, a new flight inserted beside it.
    func smallSave(_ i: Int, rows: SyntheticEnroute.Rows) throws {
        let row = rows.flights[(i &* 7_919) % rows.flights.count]
        guard let flight = try context.fetchUnique(\Flight.ident, equals: row.ident) else { throw SQLiteEngine.Failure(description: "no flight \(row.ident)") }
        flight.routeDistance = row.routeDistance + 1_000 + i
        if i % 2 == 0 {
            let added = Flight(ident: "S\(i)")
            context.insert(added)
            added.scheduledOff = flight.scheduledOff
            added.estimatedOff = flight.estimatedOff
            added.scheduledOn = flight.scheduledOn
            added.estimatedOn = flight.estimatedOn
            added.aircraftType = flight.aircraftType
            added.status = flight.status
            added.routeDistance = row.routeDistance
            added.origin = flight.origin
            added.destination = flight.destination
            added.airline = flight.airline
        }
        try context.save()
    }

    /// `delete_save`: a flight found by ident, deleted, saved (durably).
    func deleteSave(ident: String) throws {
        guard let flight = try context.fetchUnique(\Flight.ident, equals: ident) else { throw SQLiteEngine.Failure(description: "no flight \(ident)") }
        context.delete(flight)
        try context.save()
    }

    /// `move_save`: a flight found by ident, given another destination airport, saved.
    func moveSave(ident: String, to icao: String) throws {
        guard let flight = try context.fetchUnique(\Flight.ident, equals: ident),
              let airport = try context.fetchUnique(\Airport.icao, equals: icao) else { throw SQLiteEngine.Failure(description: "no flight \(ident) or airport \(icao)") }
        flight.destination = airport
        try context.save()
    }

    /// `top_ten`: the ten longest routes, as an app asks for them.
    func topTen() throws -> [String] {
        var descriptor = FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.routeDistance, order: .reverse), SortDescriptor(\.ident)])
        descriptor.fetchLimit = 10
        return try context.fetch(descriptor).map { "\($0.ident) \($0.routeDistance)" }
    }

    func readAll() throws -> Int {
        var sum = 0
        for flight in try context.fetch(FetchDescriptor<Flight>()) {
            _ = (flight.ident, flight.scheduledOff, flight.estimatedOff, flight.scheduledOn, flight.estimatedOn, flight.actualOff,
                 flight.actualOn, flight.aircraftType, flight.status)
            sum &+= flight.routeDistance &+ flight.progressPercent &+ flight.filedAirspeed &+ flight.filedAltitude
            sum &+= (flight.origin?.icao.utf8.count ?? 0) &+ (flight.destination?.icao.utf8.count ?? 0) &+ (flight.airline?.code.utf8.count ?? 0)
        }
        return sum
    }

    func compact() throws {
        try container.compact(retention: .none)
    }

    func close() { container.close() }
}
