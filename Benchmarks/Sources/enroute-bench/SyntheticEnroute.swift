import EnrouteModels
import Foundation
import GraphStore

/// Deterministic Enroute data for the workloads, generated once as plain rows so that GraphStore
/// and SQLite load exactly the same flights: N flights over N/250 airports (50 to 4,000) and
/// 200 airlines, with realistic attribute values; about half are in the air.
struct SyntheticEnroute {
    let flights: Int
    var airportCount: Int { max(50, min(4_000, flights / 250)) }
    let airlineCount = 200

    struct AirportRow { var icao, name, city: String; var latitude, longitude: Double }
    struct FlightRow {
        var ident: String
        var scheduledOff, estimatedOff, scheduledOn, estimatedOn: Int64
        var actualOff: Int64?
        var aircraftType, status: String
        var progressPercent, routeDistance, filedAirspeed, filedAltitude: Int
        var origin, destination, airline: Int
    }
    struct Rows {
        var airports: [AirportRow]
        var airlines: [String]
        var flights: [FlightRow]
    }

    func airportCode(_ i: Int) -> String { "K" + String(format: "%03d", i % 1000) + (i >= 1000 ? String(UnicodeScalar(UInt8(65 + i / 1000))) : "") }
    func airlineCode(_ i: Int) -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return String([letters[i % 26], letters[(i / 26) % 26], letters[(i / 676 + 7) % 26]])
    }

    func rows() -> Rows {
        let airports = (0..<airportCount).map {
            AirportRow(icao: airportCode($0), name: "Airport \($0) Intl", city: "City \($0 % 700)",
                       latitude: Double($0 % 90), longitude: -Double($0 % 180))
        }
        let airlines = (0..<airlineCount).map(airlineCode)
        var rng = SeededRandom(seed: 42)
        let base: Int64 = 1_763_000_000
        var flightRows: [FlightRow] = []
        flightRows.reserveCapacity(flights)
        for i in 0..<flights {
            let airline = Int(rng.next() % UInt64(airlineCount))
            let off = base + Int64(rng.next() % 86_400)
            let estimatedOff = off + Int64(rng.next() % 1_200)
            let on = off + 3_600 + Int64(rng.next() % 20_000)
            let estimatedOn = on + Int64(rng.next() % 1_200)
            let airborne = rng.next() % 2 == 0
            let origin = Int(rng.next() % UInt64(airportCount))
            let destination = (origin + 1 + Int(rng.next() % UInt64(airportCount - 1))) % airportCount
            flightRows.append(FlightRow(
                ident: airlines[airline] + String(i), scheduledOff: off, estimatedOff: estimatedOff, scheduledOn: on,
                estimatedOn: estimatedOn, actualOff: airborne ? estimatedOff : nil,
                aircraftType: ["B738", "A320", "B77W", "E175", "A21N"][Int(rng.next() % 5)],
                status: airborne ? "En Route / On Time" : "Scheduled", progressPercent: airborne ? Int(rng.next() % 100) : 0,
                routeDistance: 100 + Int(rng.next() % 5_000), filedAirspeed: 300 + Int(rng.next() % 250),
                filedAltitude: 250 + Int(rng.next() % 200), origin: origin, destination: destination, airline: airline))
        }
        return Rows(airports: airports, airlines: airlines, flights: flightRows)
    }

    /// Everything as batch rows: airports and airlines by code, flights linked to them by code.
    static func batches(_ rows: Rows, in container: ModelContainer) throws
        -> (BatchInsert<Airport>, BatchInsert<Airline>, BatchInsert<Flight>) {
        var airports = try BatchInsert(Airport.self, in: container)
        let icao = try airports.attribute(\.icao), name = try airports.attribute(\.name), city = try airports.attribute(\.city)
        let state = try airports.attribute(\.state), country = try airports.attribute(\.countryCode)
        let latitude = try airports.attribute(\.latitude), longitude = try airports.attribute(\.longitude)
        let timezone = try airports.attribute(\.timezone)
        for row in rows.airports {
            airports.appendRow()
            airports.set(icao, row.icao)
            airports.set(name, row.name)
            airports.set(city, row.city)
            airports.set(state, "ST")
            airports.set(country, "US")
            airports.set(latitude, row.latitude)
            airports.set(longitude, row.longitude)
            airports.set(timezone, "America/Chicago")
        }
        var airlines = try BatchInsert(Airline.self, in: container)
        let code = try airlines.attribute(\.code), airlineName = try airlines.attribute(\.name)
        let shortname = try airlines.attribute(\.shortname)
        for (i, row) in rows.airlines.enumerated() {
            airlines.appendRow()
            airlines.set(code, row)
            airlines.set(airlineName, "Airline \(i)")
            airlines.set(shortname, "AL\(i)")
        }
        var flights = try BatchInsert(Flight.self, in: container)
        let ident = try flights.attribute(\.ident)
        let scheduledOff = try flights.attribute(\.scheduledOff), estimatedOff = try flights.attribute(\.estimatedOff)
        let scheduledOn = try flights.attribute(\.scheduledOn), estimatedOn = try flights.attribute(\.estimatedOn)
        let actualOff = try flights.attribute(\.actualOff), aircraftType = try flights.attribute(\.aircraftType)
        let progress = try flights.attribute(\.progressPercent), status = try flights.attribute(\.status)
        let distance = try flights.attribute(\.routeDistance), airspeed = try flights.attribute(\.filedAirspeed)
        let altitude = try flights.attribute(\.filedAltitude)
        let origin = try flights.toOne(\Flight.origin, by: \Airport.icao), destination = try flights.toOne(\Flight.destination, by: \Airport.icao)
        let airline = try flights.toOne(\Flight.airline, by: \Airline.code)
        func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: Double(seconds)) }
        flights.reserveCapacity(rows.flights.count)
        for row in rows.flights {
            flights.appendRow()
            flights.set(ident, row.ident)
            flights.set(scheduledOff, date(row.scheduledOff))
            flights.set(estimatedOff, date(row.estimatedOff))
            flights.set(scheduledOn, date(row.scheduledOn))
            flights.set(estimatedOn, date(row.estimatedOn))
            flights.set(actualOff, row.actualOff.map(date))
            flights.set(aircraftType, row.aircraftType)
            flights.set(progress, row.progressPercent)
            flights.set(status, row.status)
            flights.set(distance, row.routeDistance)
            flights.set(airspeed, row.filedAirspeed)
            flights.set(altitude, row.filedAltitude)
            flights.set(origin, rows.airports[row.origin].icao)
            flights.set(destination, rows.airports[row.destination].icao)
            flights.set(airline, rows.airlines[row.airline])
        }
        return (airports, airlines, flights)
    }

    /// Inserts everything into `context` (unsaved) and returns how many flights.
    @discardableResult
    static func insert(_ rows: Rows, into context: ModelContext) -> Int {
        let airports = rows.airports.map { row -> Airport in
            let airport = Airport(icao: row.icao)
            context.insert(airport)
            setValues(of: airport, from: row)
            return airport
        }
        let airlines = rows.airlines.enumerated().map { i, code -> Airline in
            let airline = Airline(code: code)
            context.insert(airline)
            setValues(of: airline, number: i)
            return airline
        }
        for row in rows.flights {
            let flight = Flight(ident: row.ident)
            context.insert(flight)
            setValues(of: flight, from: row)
            flight.origin = airports[row.origin]
            flight.destination = airports[row.destination]
            flight.airline = airlines[row.airline]
        }
        return rows.flights.count
    }

    /// An airport's attributes from its row, as every engine stores them.
    static func setValues(of airport: Airport, from row: AirportRow) {
        airport.name = row.name
        airport.city = row.city
        airport.state = "ST"
        airport.countryCode = "US"
        airport.latitude = row.latitude
        airport.longitude = row.longitude
        airport.timezone = "America/Chicago"
    }

    /// The `number`th airline's attributes.
    static func setValues(of airline: Airline, number: Int) {
        airline.name = "Airline \(number)"
        airline.shortname = "AL\(number)"
    }

    /// A flight's attributes from its row (not its relationships).
    static func setValues(of flight: Flight, from row: FlightRow) {
        func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: Double(seconds)) }
        flight.scheduledOff = date(row.scheduledOff)
        flight.estimatedOff = date(row.estimatedOff)
        flight.scheduledOn = date(row.scheduledOn)
        flight.estimatedOn = date(row.estimatedOn)
        flight.actualOff = row.actualOff.map(date)
        flight.aircraftType = row.aircraftType
        flight.progressPercent = row.progressPercent
        flight.status = row.status
        flight.routeDistance = row.routeDistance
        flight.filedAirspeed = row.filedAirspeed
        flight.filedAltitude = row.filedAltitude
    }
}
