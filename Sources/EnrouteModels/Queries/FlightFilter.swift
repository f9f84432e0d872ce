import Foundation
import GraphStoreMacrosFree

/// The Enroute app's flight list: filter by destination, origin, airline and "in the air",
/// sorted by distance, departure, arrival or progress.
public struct FlightFilter: Equatable, Sendable {
    public enum Sort: String, CaseIterable, Sendable {
        case distance, departure, arrival, progress
    }

    /// ICAO airport codes and the ICAO airline code; nil matches any.
    public var destination: String?
    public var origin: String?
    public var airline: String?
    /// Only flights in the air (off the ground, not landed).
    public var enrouteOnly: Bool
    public var sort: Sort
    public var ascending: Bool
    public var limit: Int?

    public init(destination: String? = nil, origin: String? = nil, airline: String? = nil, enrouteOnly: Bool = false,
                sort: Sort = .departure, ascending: Bool = true, limit: Int? = nil) {
        self.destination = destination
        self.origin = origin
        self.airline = airline
        self.enrouteOnly = enrouteOnly
        self.sort = sort
        self.ascending = ascending
        self.limit = limit
    }

    public var predicate: Predicate<Flight> {
        let destination = self.destination, origin = self.origin, airline = self.airline
        let anyDestination = destination == nil, anyOrigin = origin == nil, anyAirline = airline == nil
        let enrouteOnly = self.enrouteOnly
        return #Predicate<Flight> { flight in
            (anyDestination || flight.destination?.icao == destination)
                && (anyOrigin || flight.origin?.icao == origin)
                && (anyAirline || flight.airline?.code == airline)
                && (!enrouteOnly || (flight.actualOff != nil && flight.actualOn == nil))
        }
    }

    public var sortDescriptors: [SortDescriptor<Flight>] {
        let order: SortOrder = ascending ? .forward : .reverse
        let primary: SortDescriptor<Flight>
        switch sort {
        case .distance: primary = SortDescriptor(\Flight.routeDistance, order: order)
        case .departure: primary = SortDescriptor(\Flight.departure, order: order)
        case .arrival: primary = SortDescriptor(\Flight.arrival, order: order)
        case .progress: primary = SortDescriptor(\Flight.progressPercent, order: order)
        }
        // Ties in a stable, readable order.
        return [primary, SortDescriptor(\Flight.ident)]
    }

    public var fetchDescriptor: FetchDescriptor<Flight> {
        var descriptor = FetchDescriptor<Flight>(predicate: predicate, sortBy: sortDescriptors)
        descriptor.fetchLimit = limit
        return descriptor
    }
}

/// The app's other queries.
public enum EnrouteQueries {
    /// Airports whose city or name starts with `prefix`, ignoring case and diacritics
    /// ("zur" finds Zürich), sorted by name.
    public static func airports(matching prefix: String, in context: ModelContext) throws -> [Airport] {
        let folded = fold(prefix)
        let all = try context.fetch(FetchDescriptor<Airport>(sortBy: [SortDescriptor(\Airport.name), SortDescriptor(\Airport.icao)]))
        guard !folded.isEmpty else { return all }
        return all.filter { fold($0.city).hasPrefix(folded) || fold($0.name).hasPrefix(folded) }
    }

    /// Airports that have departing flights, sorted by name.
    public static func airportsWithDepartures(in context: ModelContext) throws -> [Airport] {
        try context.fetch(FetchDescriptor<Airport>(
            predicate: #Predicate { $0.flightsFrom.count > 0 },
            sortBy: [SortDescriptor(\Airport.name), SortDescriptor(\Airport.icao)]))
    }

    /// An airport's arrivals board: flights to it, by arrival time.
    public static func arrivals(at icao: String, in context: ModelContext) throws -> [Flight] {
        try context.fetch(FlightFilter(destination: icao, sort: .arrival).fetchDescriptor)
    }

    /// An airport's departures board: flights from it, by departure time.
    public static func departures(from icao: String, in context: ModelContext) throws -> [Flight] {
        try context.fetch(FlightFilter(origin: icao, sort: .departure).fetchDescriptor)
    }

    /// An airline's flights, by departure.
    public static func flights(of airline: String, in context: ModelContext) throws -> [Flight] {
        try context.fetch(FlightFilter(airline: airline, sort: .departure).fetchDescriptor)
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
    }
}
