import Foundation

/// The records as the feed writes them: a flight with every key, null where it has no value
/// (Codable's synthesized encoding would leave those keys out); an airport or airline with only
/// the keys it has, as the feed's airports and airlines files have them.
extension FlightAwareAirportFlights {
    public var json: JSONValue {
        .object([
            ("arrivals", .array(arrivals.map(\.json))),
            ("departures", .array(departures.map(\.json))),
            ("links", links.map { .object([("next", .text($0.next))]) } ?? .null),
            ("num_pages", .int(numPages)),
            ("scheduled_arrivals", .array(scheduledArrivals.map(\.json))),
            ("scheduled_departures", .array(scheduledDepartures.map(\.json))),
        ])
    }
}

extension FlightAwareAirportReference {
    public var json: JSONValue {
        .object([("airport_info_url", .text(airportInfoURL)), ("code", .text(code))])
    }
}

extension FlightAwareFlight {
    /// Keys listed in byte order, so writing needs no sort.
    public var json: JSONValue {
        .object([
            ("actual_in", .date(actualIn)),
            ("actual_off", .date(actualOff)),
            ("actual_on", .date(actualOn)),
            ("actual_out", .date(actualOut)),
            ("aircraft_type", .text(aircraftType)),
            ("blocked", .flag(blocked)),
            ("cancelled", .flag(cancelled)),
            ("codeshares", codeshares.map { .array($0.map(JSONValue.string)) } ?? .null),
            ("destination", destination?.json ?? .null),
            ("diverted", .flag(diverted)),
            ("estimated_in", .date(estimatedIn)),
            ("estimated_off", .date(estimatedOff)),
            ("estimated_on", .date(estimatedOn)),
            ("estimated_out", .date(estimatedOut)),
            ("fa_flight_id", .text(faFlightID)),
            ("filed_airspeed", .number(filedAirspeed)),
            ("filed_altitude", .number(filedAltitude)),
            ("flight_number", .text(flightNumber)),
            ("gate_destination", .text(gateDestination)),
            ("gate_origin", .text(gateOrigin)),
            ("ident", .text(ident)),
            ("operator", .text(`operator`)),
            ("origin", origin?.json ?? .null),
            ("position_only", .flag(positionOnly)),
            ("progress_percent", .number(progressPercent)),
            ("registration", .text(registration)),
            ("route", .text(route)),
            ("route_distance", .number(routeDistance)),
            ("scheduled_in", .date(scheduledIn)),
            ("scheduled_off", .date(scheduledOff)),
            ("scheduled_on", .date(scheduledOn)),
            ("scheduled_out", .date(scheduledOut)),
            ("seats_cabin_business", .number(seatsCabinBusiness)),
            ("seats_cabin_coach", .number(seatsCabinCoach)),
            ("status", .text(status)),
            ("terminal_destination", .text(terminalDestination)),
            ("terminal_origin", .text(terminalOrigin)),
            ("type", .text(type)),
        ])
    }
}

extension FlightAwareAirport {
    public var json: JSONValue {
        var entries: [(key: String, value: JSONValue)] = [("airport_code", .string(airportCode))]
        func add(_ key: String, _ value: JSONValue?) { if let value { entries.append((key, value)) } }
        add("airport_flights_url", airportFlightsURL.map(JSONValue.string))
        add("alternate_ident", alternateIdent.map(JSONValue.string))
        add("city", city.map(JSONValue.string))
        add("country_code", countryCode.map(JSONValue.string))
        add("elevation", elevation.map(JSONValue.double))
        add("latitude", latitude.map(JSONValue.double))
        add("longitude", longitude.map(JSONValue.double))
        add("name", name.map(JSONValue.string))
        add("state", state.map(JSONValue.string))
        add("timezone", timezone.map(JSONValue.string))
        add("wiki_url", wikiURL.map(JSONValue.string))
        return .object(entries)
    }
}

extension FlightAwareAirline {
    public var json: JSONValue {
        var entries: [(key: String, value: JSONValue)] = []
        func add(_ key: String, _ value: String?) { if let value { entries.append((key, .string(value))) } }
        add("callsign", callsign)
        add("country", country)
        add("iata", iata)
        add("icao", icao)
        add("location", location)
        add("name", name)
        add("phone", phone)
        add("shortname", shortname)
        add("url", url)
        add("wiki_url", wikiURL)
        return .object(entries)
    }
}
