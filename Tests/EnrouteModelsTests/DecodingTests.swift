import Foundation
import Testing
@testable import EnrouteModels

@Suite struct DecodingTests {
    let fullFlight = """
    {"ident":"UAL123","fa_flight_id":"UAL123-1","operator":"UAL","flight_number":"123","registration":"N12345",
     "origin":{"code":"KSFO","airport_info_url":"/airports/KSFO"},"destination":{"code":"KORD","airport_info_url":"/airports/KORD"},
     "scheduled_out":"2026-11-22T10:00:00Z","estimated_out":"2026-11-22T10:05:00Z","actual_out":"2026-11-22T10:06:00Z",
     "scheduled_off":"2026-11-22T10:15:00Z","estimated_off":"2026-11-22T10:20:00Z","actual_off":"2026-11-22T10:21:00Z",
     "scheduled_on":"2026-11-22T14:15:00Z","estimated_on":"2026-11-22T14:20:00Z","actual_on":"2026-11-22T14:19:00Z",
     "scheduled_in":"2026-11-22T14:25:00Z","estimated_in":"2026-11-22T14:30:00Z","actual_in":"2026-11-22T14:29:00Z",
     "progress_percent":100,"status":"Arrived / Gate Arrival","aircraft_type":"B39M","route_distance":1846,
     "filed_airspeed":458,"filed_altitude":370,"route":"SFO J84 ORD","gate_origin":"F3","gate_destination":"C17",
     "terminal_origin":"3","terminal_destination":"1","seats_cabin_business":16,"seats_cabin_coach":150,
     "codeshares":["DLH7000"],"blocked":false,"diverted":false,"cancelled":false,"position_only":false,"type":"Airline"}
    """

    let nullFlight = """
    {"ident":null,"fa_flight_id":null,"operator":null,"flight_number":null,"registration":null,"origin":null,"destination":null,
     "scheduled_out":null,"estimated_out":null,"actual_out":null,"scheduled_off":null,"estimated_off":null,"actual_off":null,
     "scheduled_on":null,"estimated_on":null,"actual_on":null,"scheduled_in":null,"estimated_in":null,"actual_in":null,
     "progress_percent":null,"status":null,"aircraft_type":null,"route_distance":null,"filed_airspeed":null,"filed_altitude":null,
     "route":null,"gate_origin":null,"gate_destination":null,"terminal_origin":null,"terminal_destination":null,
     "seats_cabin_business":null,"seats_cabin_coach":null,"codeshares":null,"blocked":null,"diverted":null,"cancelled":null,
     "position_only":null,"type":null}
    """

    func document(_ flights: String...) -> Data {
        Data("{\"arrivals\":[\(flights.joined(separator: ","))],\"departures\":[],\"scheduled_arrivals\":[],\"scheduled_departures\":[],\"links\":{\"next\":null},\"num_pages\":1}".utf8)
    }

    @Test func everyFlightFieldDecodes() throws {
        guard case let .airportFlights(doc) = try FlightAwareFile.decode(document(fullFlight), file: "f.json") else {
            Issue.record("not an airport-flights document"); return
        }
        let f = try #require(doc.arrivals.first)
        func t(_ s: String) -> Date { ISO8601DateFormatter().date(from: s)! }
        #expect(f.ident == "UAL123" && f.faFlightID == "UAL123-1" && f.operator == "UAL" && f.flightNumber == "123" && f.registration == "N12345")
        #expect(f.origin == FlightAwareAirportReference(code: "KSFO", airportInfoURL: "/airports/KSFO"))
        #expect(f.destination?.code == "KORD")
        #expect(f.scheduledOut == t("2026-11-22T10:00:00Z") && f.estimatedOut == t("2026-11-22T10:05:00Z") && f.actualOut == t("2026-11-22T10:06:00Z"))
        #expect(f.scheduledOff == t("2026-11-22T10:15:00Z") && f.estimatedOff == t("2026-11-22T10:20:00Z") && f.actualOff == t("2026-11-22T10:21:00Z"))
        #expect(f.scheduledOn == t("2026-11-22T14:15:00Z") && f.estimatedOn == t("2026-11-22T14:20:00Z") && f.actualOn == t("2026-11-22T14:19:00Z"))
        #expect(f.scheduledIn == t("2026-11-22T14:25:00Z") && f.estimatedIn == t("2026-11-22T14:30:00Z") && f.actualIn == t("2026-11-22T14:29:00Z"))
        #expect(f.progressPercent == 100 && f.status == "Arrived / Gate Arrival" && f.aircraftType == "B39M")
        #expect(f.routeDistance == 1846 && f.filedAirspeed == 458 && f.filedAltitude == 370 && f.route == "SFO J84 ORD")
        #expect(f.gateOrigin == "F3" && f.gateDestination == "C17" && f.terminalOrigin == "3" && f.terminalDestination == "1")
        #expect(f.seatsCabinBusiness == 16 && f.seatsCabinCoach == 150 && f.codeshares == ["DLH7000"])
        #expect(f.blocked == false && f.diverted == false && f.cancelled == false && f.positionOnly == false && f.type == "Airline")
        #expect(doc.numPages == 1 && doc.links?.next == nil)
    }

    @Test func everyNullableFieldMayBeNull() throws {
        guard case let .airportFlights(doc) = try FlightAwareFile.decode(document(nullFlight), file: "f.json") else {
            Issue.record("not an airport-flights document"); return
        }
        #expect(doc.arrivals.first == FlightAwareFlight())
        #expect(EnrouteImporter.missing(doc.arrivals[0]) == "no ident")
    }

    @Test func airportsAndAirlinesFilesDecode() throws {
        let airports = Data("""
        [{"airport_code":"LSZH","alternate_ident":"ZRH","name":"Zürich","elevation":1416,"city":"Zürich","state":null,
          "longitude":8.5492,"latitude":47.4647,"timezone":"Europe/Zurich","country_code":"CH","wiki_url":null,"airport_flights_url":null}]
        """.utf8)
        guard case let .airports(list) = try FlightAwareFile.decode(airports, file: "a.json") else { Issue.record("not airports"); return }
        #expect(list.first?.airportCode == "LSZH" && list.first?.state == nil && list.first?.latitude == 47.4647 && list.first?.countryCode == "CH")
        let airlines = Data("""
        [{"icao":null,"iata":"ZZ","callsign":null,"name":"No Code Air","country":null,"location":null,"phone":null,"shortname":null,"url":null,"wiki_url":null},
         {"icao":"UAL","iata":"UA","callsign":"UNITED","name":"United Air Lines Inc.","country":"US","location":"Chicago","phone":"+1","shortname":"United","url":"https://united.com","wiki_url":null}]
        """.utf8)
        guard case let .airlines(carriers) = try FlightAwareFile.decode(airlines, file: "l.json") else { Issue.record("not airlines"); return }
        #expect(carriers.count == 2 && carriers[0].icao == nil && carriers[1].shortname == "United" && carriers[1].callsign == "UNITED")
    }

    @Test func filesOfAnotherShapeAreRefusedWithFilePathAndField() {
        let cases: [(Data, String, String)] = [
            (Data("{not json".utf8), "$", "not valid JSON"),
            (Data("{\"hello\":1}".utf8), "$", "not an airport-flights document"),
            (Data("42".utf8), "$", "expected an object or an array"),
            (Data("[1,2]".utf8), "$[0]", "expected an object"),
            (Data("[{\"name\":\"x\"}]".utf8), "$[0]", "neither an airport"),
            (document(fullFlight.replacingOccurrences(of: "\"route_distance\":1846", with: "\"route_distance\":\"far\"")),
             "$.arrivals[0].route_distance", "expected a number"),
            (document(fullFlight.replacingOccurrences(of: "\"actual_on\":\"2026-11-22T14:19:00Z\"", with: "\"actual_on\":\"yesterday\"")),
             "$.arrivals[0].actual_on", "ISO"),
            (Data("{\"arrivals\":[],\"departures\":[],\"scheduled_arrivals\":[],\"scheduled_departures\":[]}".utf8), "$.num_pages", "missing field num_pages"),
            (Data("[{\"airport_code\":null}]".utf8), "$[0].airport_code", "null"),
        ]
        for (data, path, reason) in cases {
            do {
                _ = try FlightAwareFile.decode(data, file: "bad.json")
                Issue.record("accepted \(String(decoding: data, as: UTF8.self).prefix(40))")
            } catch let refusal as FlightAwareFile.Refusal {
                #expect(refusal.file == "bad.json")
                #expect(refusal.path == path, "\(refusal)")
                #expect(refusal.reason.contains(reason), "\(refusal)")
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
    }
}

/// A number no field can hold is refused naming the field and the number, not as "not valid JSON".
@Suite struct OutOfRangeNumberTests {
    @Test(arguments: ["99999999999999999999", "9223372036854775808", "-9223372036854775809", "1e400", "1.5e20"])
    func anOutOfRangeIntegerNamesItsFieldAndValue(literal: String) {
        let json = #"{"arrivals": [{"ident": "UAL1", "route_distance": \#(literal)}], "departures": []}"#
        #expect {
            _ = try FlightAwareFile.decode(Data(json.utf8), file: "board.json")
        } throws: { error in
            guard let refusal = error as? FlightAwareFile.Refusal else { return false }
            return refusal.path == "$.arrivals[0].route_distance" && refusal.reason == "the number \(literal) is out of range"
        }
    }

    @Test func escapedKeysAndNestingDoNotConfuseThePath() {
        let json = #"{"links": {"next": "a\"b"}, "arrivals": [{}, {"origin": {"code": "KSFO"}, "filed_altitude": 1e999}]}"#
        #expect {
            _ = try FlightAwareFile.decode(Data(json.utf8), file: "f")
        } throws: { error in
            (error as? FlightAwareFile.Refusal)?.path == "$.arrivals[1].filed_altitude"
        }
    }
}
