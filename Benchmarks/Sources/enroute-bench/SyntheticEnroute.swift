import Foundation
import EnrouteModels

/// Deterministic Enroute data for the workloads: `flights` flights over a few thousand airports
/// and a couple of hundred airlines, with realistic attribute values.
struct SyntheticEnroute {
    let flights: Int
    var airportCount: Int { max(50, min(4_000, flights / 250)) }
    let airlineCount = 200

    func airportCode(_ i: Int) -> String { "K" + String(format: "%03d", i % 1000) + (i >= 1000 ? String(UnicodeScalar(UInt8(65 + i / 1000))) : "") }
    func airlineCode(_ i: Int) -> String {
        let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
        return String([letters[i % 26], letters[(i / 26) % 26], letters[(i / 676 + 7) % 26]])
    }

    /// Inserts everything into `context` (unsaved) and returns how many flights.
    @discardableResult
    func insert(into context: ModelContext) -> Int {
        var airports: [Airport] = []
        airports.reserveCapacity(airportCount)
        for i in 0..<airportCount {
            let airport = Airport(icao: airportCode(i))
            airport.name = "Airport \(i) Intl"
            airport.city = "City \(i % 700)"
            airport.state = "ST"
            airport.countryCode = "US"
            airport.latitude = Double(i % 90)
            airport.longitude = -Double(i % 180)
            airport.timezone = "America/Chicago"
            context.insert(airport)
            airports.append(airport)
        }
        var airlines: [Airline] = []
        for i in 0..<airlineCount {
            let airline = Airline(code: airlineCode(i))
            airline.name = "Airline \(i)"
            airline.shortname = "AL\(i)"
            context.insert(airline)
            airlines.append(airline)
        }
        var rng = SeededRandom(seed: 42)
        let base = Date(timeIntervalSince1970: 1_763_000_000)
        for i in 0..<flights {
            let airlineIndex = Int(rng.next() % UInt64(airlineCount))
            let flight = Flight(ident: airlineCode(airlineIndex) + String(i))
            context.insert(flight)
            let off = base.addingTimeInterval(Double(rng.next() % 86_400))
            flight.scheduledOff = off
            flight.estimatedOff = off.addingTimeInterval(Double(rng.next() % 1_200))
            flight.scheduledOn = off.addingTimeInterval(3_600 + Double(rng.next() % 20_000))
            flight.estimatedOn = flight.scheduledOn.addingTimeInterval(Double(rng.next() % 1_200))
            if rng.next() % 2 == 0 { flight.actualOff = flight.estimatedOff }
            flight.aircraftType = ["B738", "A320", "B77W", "E175", "A21N"][Int(rng.next() % 5)]
            flight.progressPercent = flight.actualOff == nil ? 0 : Int(rng.next() % 100)
            flight.status = flight.actualOff == nil ? "Scheduled" : "En Route / On Time"
            flight.routeDistance = 100 + Int(rng.next() % 5_000)
            flight.filedAirspeed = 300 + Int(rng.next() % 250)
            flight.filedAltitude = 250 + Int(rng.next() % 200)
            let origin = Int(rng.next() % UInt64(airportCount))
            flight.origin = airports[origin]
            flight.destination = airports[(origin + 1 + Int(rng.next() % UInt64(airportCount - 1))) % airportCount]
            flight.airline = airlines[airlineIndex]
        }
        return flights
    }
}

