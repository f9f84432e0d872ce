import Foundation

/// The JSON shapes of FlightAware's AeroAPI that Enroute reads, field for field (snake_case
/// keys, ISO 8601 UTC times, null wherever the feed sends null). Every field is optional here:
/// what a Flight needs is checked after decoding, so one incomplete flight is skipped, not fatal.

/// `/airports/{code}/flights`: an airport's boards.
public struct FlightAwareAirportFlights: Codable, Equatable, Sendable {
    public var arrivals: [FlightAwareFlight]
    public var departures: [FlightAwareFlight]
    public var scheduledArrivals: [FlightAwareFlight]
    public var scheduledDepartures: [FlightAwareFlight]
    public var links: Links?
    public var numPages: Int

    public struct Links: Codable, Equatable, Sendable {
        public var next: String?
    }

    enum CodingKeys: String, CodingKey {
        case arrivals, departures, links
        case scheduledArrivals = "scheduled_arrivals"
        case scheduledDepartures = "scheduled_departures"
        case numPages = "num_pages"
    }

    /// Every flight on the four boards, in file order.
    public var allFlights: [FlightAwareFlight] { arrivals + departures + scheduledArrivals + scheduledDepartures }
}

public struct FlightAwareAirportReference: Codable, Equatable, Sendable {
    public var code: String?
    public var airportInfoURL: String?

    enum CodingKeys: String, CodingKey {
        case code
        case airportInfoURL = "airport_info_url"
    }
}

public struct FlightAwareFlight: Codable, Equatable, Sendable {
    public var ident: String?
    public var faFlightID: String?
    public var `operator`: String?
    public var flightNumber: String?
    public var registration: String?
    public var origin: FlightAwareAirportReference?
    public var destination: FlightAwareAirportReference?
    public var scheduledOut: Date?
    public var estimatedOut: Date?
    public var actualOut: Date?
    public var scheduledOff: Date?
    public var estimatedOff: Date?
    public var actualOff: Date?
    public var scheduledOn: Date?
    public var estimatedOn: Date?
    public var actualOn: Date?
    public var scheduledIn: Date?
    public var estimatedIn: Date?
    public var actualIn: Date?
    public var progressPercent: Int?
    public var status: String?
    public var aircraftType: String?
    public var routeDistance: Int?
    public var filedAirspeed: Int?
    public var filedAltitude: Int?
    public var route: String?
    public var gateOrigin: String?
    public var gateDestination: String?
    public var terminalOrigin: String?
    public var terminalDestination: String?
    public var seatsCabinBusiness: Int?
    public var seatsCabinCoach: Int?
    public var codeshares: [String]?
    public var blocked: Bool?
    public var diverted: Bool?
    public var cancelled: Bool?
    public var positionOnly: Bool?
    public var type: String?

    public init(ident: String? = nil) { self.ident = ident }

    enum CodingKeys: String, CodingKey {
        case ident, registration, origin, destination, status, route, codeshares, blocked, diverted, cancelled, type
        case `operator`
        case faFlightID = "fa_flight_id"
        case flightNumber = "flight_number"
        case scheduledOut = "scheduled_out", estimatedOut = "estimated_out", actualOut = "actual_out"
        case scheduledOff = "scheduled_off", estimatedOff = "estimated_off", actualOff = "actual_off"
        case scheduledOn = "scheduled_on", estimatedOn = "estimated_on", actualOn = "actual_on"
        case scheduledIn = "scheduled_in", estimatedIn = "estimated_in", actualIn = "actual_in"
        case progressPercent = "progress_percent"
        case aircraftType = "aircraft_type"
        case routeDistance = "route_distance"
        case filedAirspeed = "filed_airspeed"
        case filedAltitude = "filed_altitude"
        case gateOrigin = "gate_origin", gateDestination = "gate_destination"
        case terminalOrigin = "terminal_origin", terminalDestination = "terminal_destination"
        case seatsCabinBusiness = "seats_cabin_business", seatsCabinCoach = "seats_cabin_coach"
        case positionOnly = "position_only"
    }
}

/// An entry of the airports file.
public struct FlightAwareAirport: Codable, Equatable, Sendable {
    public var airportCode: String
    public var alternateIdent: String?
    public var name: String?
    public var elevation: Double?
    public var city: String?
    public var state: String?
    public var longitude: Double?
    public var latitude: Double?
    public var timezone: String?
    public var countryCode: String?
    public var wikiURL: String?
    public var airportFlightsURL: String?

    public init(airportCode: String) { self.airportCode = airportCode }

    enum CodingKeys: String, CodingKey {
        case name, elevation, city, state, longitude, latitude, timezone
        case airportCode = "airport_code"
        case alternateIdent = "alternate_ident"
        case countryCode = "country_code"
        case wikiURL = "wiki_url"
        case airportFlightsURL = "airport_flights_url"
    }
}

/// An entry of the airlines file (`icao` may be null: such an airline cannot be stored).
public struct FlightAwareAirline: Codable, Equatable, Sendable {
    public var icao: String?
    public var iata: String?
    public var callsign: String?
    public var name: String?
    public var country: String?
    public var location: String?
    public var phone: String?
    public var shortname: String?
    public var url: String?
    public var wikiURL: String?

    public init(icao: String?) { self.icao = icao }

    enum CodingKeys: String, CodingKey {
        case icao, iata, callsign, name, country, location, phone, shortname, url
        case wikiURL = "wiki_url"
    }
}
