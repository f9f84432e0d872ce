import Foundation
import EnrouteModels

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

    /// Inserts everything into `context` (unsaved) and returns how many flights.
    @discardableResult
    static func insert(_ rows: Rows, into context: ModelContext) -> Int {
        let airports = rows.airports.map { row -> Airport in
            let airport = Airport(icao: row.icao)
            airport.name = row.name
            airport.city = row.city
            airport.state = "ST"
            airport.countryCode = "US"
            airport.latitude = row.latitude
            airport.longitude = row.longitude
            airport.timezone = "America/Chicago"
            context.insert(airport)
            return airport
        }
        let airlines = rows.airlines.enumerated().map { i, code -> Airline in
            let airline = Airline(code: code)
            airline.name = "Airline \(i)"
            airline.shortname = "AL\(i)"
            context.insert(airline)
            return airline
        }
        func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: Double(seconds)) }
        for row in rows.flights {
            let flight = Flight(ident: row.ident)
            context.insert(flight)
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
            flight.origin = airports[row.origin]
            flight.destination = airports[row.destination]
            flight.airline = airlines[row.airline]
        }
        return rows.flights.count
    }
}
