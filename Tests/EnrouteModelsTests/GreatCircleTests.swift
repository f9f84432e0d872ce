import Foundation
import Testing
@testable import EnrouteModels

/// Generated and bundled flights have the distances and times their airports' coordinates give.
@Suite struct GreatCircleTests {
    func miles(_ a: String, _ b: String) throws -> Double {
        let x = try #require(ReferenceData.airports.first { $0.icao == a }), y = try #require(ReferenceData.airports.first { $0.icao == b })
        return GreatCircle.statuteMiles(fromLatitude: x.latitude, longitude: x.longitude, toLatitude: y.latitude, longitude: y.longitude)
    }

    @Test func knownRoutes() throws {
        // Published great-circle distances, statute miles: PHX–SFO 651, SFO–JFK 2,586, ORD–LAX 1,744.
        #expect(abs(try miles("KPHX", "KSFO") - 651) < 8)
        #expect(abs(try miles("KSFO", "KJFK") - 2_586) < 15)
        #expect(abs(try miles("KORD", "KLAX") - 1_744) < 12)
        #expect(try miles("KSFO", "KSFO") == 0)
        #expect(abs(try miles("KSFO", "KJFK") - miles("KJFK", "KSFO")) < 1e-9)
    }

    /// Every flight of a generated set, and of the bundled sample: its route 2–8% longer than the
    /// great circle between its airports (to the mile), its time in the air what that distance takes.
    @Test func generatedFlightsFollowTheirAirports() throws {
        let output = EnrouteGenerator(flights: 400, airports: 60, airlines: 20, seed: 3).generate()
        var sample: [FlightAwareAirportFlights] = [], sampleAirports: [FlightAwareAirport] = []
        for file in EnrouteSample.files {
            switch try FlightAwareFile.decode(Data(contentsOf: file), file: file.lastPathComponent) {
            case let .airportFlights(document): sample.append(document)
            case let .airports(list): sampleAirports += list
            case .airlines: break
            }
        }
        #expect(!sample.isEmpty && !sampleAirports.isEmpty)
        let airports = Dictionary(output.airports.map { ($0.airportCode, $0) }, uniquingKeysWith: { a, _ in a })
        let sampleByCode = Dictionary(sampleAirports.map { ($0.airportCode, $0) }, uniquingKeysWith: { a, _ in a })
        var checked = 0
        for (documents, coordinates) in [(output.boards.map(\.document), airports), (sample, sampleByCode)] {
            for document in documents {
                for flight in document.arrivals + document.departures + document.scheduledArrivals + document.scheduledDepartures {
                    guard let from = flight.origin?.code, let to = flight.destination?.code,
                          let a = coordinates[from], let b = coordinates[to], let distance = flight.routeDistance,
                          let off = flight.scheduledOff, let on = flight.scheduledOn else { continue }
                    let miles = GreatCircle.statuteMiles(fromLatitude: a.latitude ?? 0, longitude: a.longitude ?? 0,
                                                         toLatitude: b.latitude ?? 0, longitude: b.longitude ?? 0)
                    #expect(Double(distance) >= miles * 1.02 - 0.5 && Double(distance) <= miles * 1.08 + 0.5, "\(flight.ident) \(from)→\(to) \(distance) \(miles)")
                    let minutes = on.timeIntervalSince(off) / 60
                    #expect(minutes >= 35 && minutes <= 30 + Double(distance) / 7.5 + 15, "\(flight.ident)")
                    checked += 1
                }
            }
        }
        #expect(checked > 400)
    }
}
