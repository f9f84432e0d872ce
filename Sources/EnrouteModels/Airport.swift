import Foundation
import GraphStoreMacrosFree

/// An airport, by ICAO code (KSFO), as FlightAware describes it.
public final class Airport: Model {
    @Attribute(.unique) public var icao: String = ""
    @Attribute public var name: String = ""
    @Attribute public var city: String = ""
    @Attribute public var state: String = ""
    @Attribute public var countryCode: String = ""
    @Attribute public var latitude: Double = 0
    @Attribute public var longitude: Double = 0
    @Attribute public var timezone: String = ""
    /// Flights departing here, in the order they were added.
    @Relationship(inverse: \Flight.origin) public var flightsFrom: [Flight] = []
    /// Flights arriving here, in the order they were added.
    @Relationship(inverse: \Flight.destination) public var flightsTo: [Flight] = []

    public convenience init(icao: String) {
        self.init()
        self.icao = icao
    }

    /// "San Francisco Intl (KSFO)", or the code alone when the name is not known yet.
    public var friendlyName: String { name.isEmpty ? icao : "\(name) (\(icao))" }
}
