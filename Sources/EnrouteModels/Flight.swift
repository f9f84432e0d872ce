import Foundation
import GraphStoreMacrosFree

/// A flight, by FlightAware ident (UAL123). Times are UTC; distances in statute miles, speeds
/// in knots, altitudes in hundreds of feet.
public final class Flight: Model {
    @Attribute(.unique) public var ident: String = ""
    @Attribute public var actualOff: Date? = nil
    @Attribute public var scheduledOff: Date = .distantPast
    @Attribute public var estimatedOff: Date = .distantPast
    @Attribute public var scheduledOn: Date = .distantPast
    @Attribute public var estimatedOn: Date = .distantPast
    @Attribute public var actualOn: Date? = nil
    @Attribute public var aircraftType: String = ""
    @Attribute public var progressPercent: Int = 0
    @Attribute public var status: String = ""
    @Attribute(.indexed) public var routeDistance: Int = 0
    @Attribute public var filedAirspeed: Int = 0
    @Attribute public var filedAltitude: Int = 0
    @Relationship public var origin: Airport?
    @Relationship public var destination: Airport?
    @Relationship public var airline: Airline?

    /// The flights to an airport on an airline, the Enroute filter's question (SwiftData's
    /// `#Index<Flight>([\.destination, \.airline])`).
    override public class var constraints: [any SchemaConstraint] {
        [Schema.Index<Flight>([\.destination, \.airline])]
    }

    public convenience init(ident: String) {
        self.init()
        self.ident = ident
    }

    /// The airline's ICAO code: the ident's leading letters ("UAL" of "UAL123").
    public var airlineCode: String { Flight.airlineCode(ofIdent: ident) }

    public static func airlineCode(ofIdent ident: String) -> String { String(ident.prefix { $0.isLetter }) }

    /// When it leaves (or left) the ground: actual if known, else estimated.
    public var departure: Date { Flight.time(actual: actualOff, estimated: estimatedOff) }
    /// When it lands (or landed): actual if known, else estimated.
    public var arrival: Date { Flight.time(actual: actualOn, estimated: estimatedOn) }

    /// A departure or arrival from its two times (for a caller that has read them already).
    public static func time(actual: Date?, estimated: Date) -> Date { actual ?? estimated }
    /// Gate-to-gate time in the air, as far as known.
    public var duration: TimeInterval { arrival.timeIntervalSince(departure) }
    /// In the air: off the ground and not yet landed.
    public var isEnroute: Bool { actualOff != nil && actualOn == nil }
}

extension Flight {
    /// The first word of FlightAware's status: "En Route", "Scheduled", "Arrived"…
    public var shortStatus: String {
        guard let slash = status.firstIndex(of: "/") else { return status.isEmpty ? (isEnroute ? "En Route" : "Scheduled") : status }
        return status[..<slash].trimmingCharacters(in: .whitespaces)
    }

    /// "UAL123 KSFO → KORD".
    public var friendlyName: String {
        "\(ident) \(origin?.icao ?? "?") → \(destination?.icao ?? "?")"
    }
}
