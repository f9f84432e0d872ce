/// Real airports and airlines the generator starts from, so that generated data (and the
/// bundled sample) reads like the real feed. Beyond these it makes up plausible ones.
enum ReferenceData {
    struct AirportInfo {
        let icao, iata, name, city, state, country, timezone: String
        let latitude, longitude, elevation: Double
    }

    struct AirlineInfo {
        let icao, iata, callsign, name, shortname, country: String
    }

    static let airports: [AirportInfo] = [
        .init(icao: "KSFO", iata: "SFO", name: "San Francisco Intl", city: "San Francisco", state: "CA", country: "US", timezone: "America/Los_Angeles", latitude: 37.6188, longitude: -122.3756, elevation: 13),
        .init(icao: "KORD", iata: "ORD", name: "Chicago O'Hare Intl", city: "Chicago", state: "IL", country: "US", timezone: "America/Chicago", latitude: 41.9786, longitude: -87.9048, elevation: 672),
        .init(icao: "KLAX", iata: "LAX", name: "Los Angeles Intl", city: "Los Angeles", state: "CA", country: "US", timezone: "America/Los_Angeles", latitude: 33.9425, longitude: -118.4081, elevation: 128),
        .init(icao: "KJFK", iata: "JFK", name: "John F Kennedy Intl", city: "New York", state: "NY", country: "US", timezone: "America/New_York", latitude: 40.6399, longitude: -73.7787, elevation: 13),
        .init(icao: "KDEN", iata: "DEN", name: "Denver Intl", city: "Denver", state: "CO", country: "US", timezone: "America/Denver", latitude: 39.8617, longitude: -104.6731, elevation: 5434),
        .init(icao: "KATL", iata: "ATL", name: "Hartsfield-Jackson Intl", city: "Atlanta", state: "GA", country: "US", timezone: "America/New_York", latitude: 33.6367, longitude: -84.4281, elevation: 1026),
        .init(icao: "KSEA", iata: "SEA", name: "Seattle-Tacoma Intl", city: "Seattle", state: "WA", country: "US", timezone: "America/Los_Angeles", latitude: 47.4490, longitude: -122.3093, elevation: 432),
        .init(icao: "KBOS", iata: "BOS", name: "Boston Logan Intl", city: "Boston", state: "MA", country: "US", timezone: "America/New_York", latitude: 42.3629, longitude: -71.0064, elevation: 19),
        .init(icao: "KDFW", iata: "DFW", name: "Dallas-Fort Worth Intl", city: "Dallas-Fort Worth", state: "TX", country: "US", timezone: "America/Chicago", latitude: 32.8968, longitude: -97.0380, elevation: 607),
        .init(icao: "KIAH", iata: "IAH", name: "George Bush Intercontinental", city: "Houston", state: "TX", country: "US", timezone: "America/Chicago", latitude: 29.9844, longitude: -95.3414, elevation: 97),
        .init(icao: "KEWR", iata: "EWR", name: "Newark Liberty Intl", city: "Newark", state: "NJ", country: "US", timezone: "America/New_York", latitude: 40.6925, longitude: -74.1687, elevation: 18),
        .init(icao: "KPHX", iata: "PHX", name: "Phoenix Sky Harbor Intl", city: "Phoenix", state: "AZ", country: "US", timezone: "America/Phoenix", latitude: 33.4343, longitude: -112.0116, elevation: 1135),
        .init(icao: "KLAS", iata: "LAS", name: "Harry Reid Intl", city: "Las Vegas", state: "NV", country: "US", timezone: "America/Los_Angeles", latitude: 36.0801, longitude: -115.1522, elevation: 2181),
        .init(icao: "KMSP", iata: "MSP", name: "Minneapolis-St Paul Intl", city: "Minneapolis", state: "MN", country: "US", timezone: "America/Chicago", latitude: 44.8820, longitude: -93.2218, elevation: 841),
        .init(icao: "KDTW", iata: "DTW", name: "Detroit Metro Wayne County", city: "Detroit", state: "MI", country: "US", timezone: "America/Detroit", latitude: 42.2124, longitude: -83.3534, elevation: 645),
        .init(icao: "KMIA", iata: "MIA", name: "Miami Intl", city: "Miami", state: "FL", country: "US", timezone: "America/New_York", latitude: 25.7932, longitude: -80.2906, elevation: 8),
        .init(icao: "PHNL", iata: "HNL", name: "Daniel K Inouye Intl", city: "Honolulu", state: "HI", country: "US", timezone: "Pacific/Honolulu", latitude: 21.3187, longitude: -157.9224, elevation: 13),
        .init(icao: "CYYZ", iata: "YYZ", name: "Toronto Pearson Intl", city: "Toronto", state: "ON", country: "CA", timezone: "America/Toronto", latitude: 43.6772, longitude: -79.6306, elevation: 569),
        .init(icao: "CYVR", iata: "YVR", name: "Vancouver Intl", city: "Vancouver", state: "BC", country: "CA", timezone: "America/Vancouver", latitude: 49.1939, longitude: -123.1844, elevation: 14),
        .init(icao: "MMMX", iata: "MEX", name: "Benito Juárez Intl", city: "Ciudad de México", state: "CDMX", country: "MX", timezone: "America/Mexico_City", latitude: 19.4363, longitude: -99.0721, elevation: 7316),
        .init(icao: "EGLL", iata: "LHR", name: "London Heathrow", city: "London", state: "England", country: "GB", timezone: "Europe/London", latitude: 51.4706, longitude: -0.4619, elevation: 83),
        .init(icao: "LSZH", iata: "ZRH", name: "Zürich", city: "Zürich", state: "ZH", country: "CH", timezone: "Europe/Zurich", latitude: 47.4647, longitude: 8.5492, elevation: 1416),
        .init(icao: "EDDF", iata: "FRA", name: "Frankfurt am Main", city: "Frankfurt", state: "HE", country: "DE", timezone: "Europe/Berlin", latitude: 50.0333, longitude: 8.5706, elevation: 364),
        .init(icao: "RJTT", iata: "HND", name: "Tokyo Haneda", city: "Tōkyō", state: "Tokyo", country: "JP", timezone: "Asia/Tokyo", latitude: 35.5523, longitude: 139.7800, elevation: 35),
    ]

    static let airlines: [AirlineInfo] = [
        .init(icao: "UAL", iata: "UA", callsign: "UNITED", name: "United Air Lines Inc.", shortname: "United", country: "US"),
        .init(icao: "AAL", iata: "AA", callsign: "AMERICAN", name: "American Airlines Inc.", shortname: "American", country: "US"),
        .init(icao: "DAL", iata: "DL", callsign: "DELTA", name: "Delta Air Lines Inc.", shortname: "Delta", country: "US"),
        .init(icao: "SWA", iata: "WN", callsign: "SOUTHWEST", name: "Southwest Airlines Co.", shortname: "Southwest", country: "US"),
        .init(icao: "ASA", iata: "AS", callsign: "ALASKA", name: "Alaska Airlines, Inc.", shortname: "Alaska", country: "US"),
        .init(icao: "JBU", iata: "B6", callsign: "JETBLUE", name: "JetBlue Airways Corporation", shortname: "JetBlue", country: "US"),
        .init(icao: "SKW", iata: "OO", callsign: "SKYWEST", name: "SkyWest Airlines, Inc.", shortname: "SkyWest", country: "US"),
        .init(icao: "ACA", iata: "AC", callsign: "AIR CANADA", name: "Air Canada", shortname: "Air Canada", country: "CA"),
        .init(icao: "BAW", iata: "BA", callsign: "SPEEDBIRD", name: "British Airways", shortname: "British", country: "GB"),
        .init(icao: "DLH", iata: "LH", callsign: "LUFTHANSA", name: "Deutsche Lufthansa AG", shortname: "Lufthansa", country: "DE"),
        .init(icao: "SWR", iata: "LX", callsign: "SWISS", name: "Swiss International Air Lines", shortname: "Swiss", country: "CH"),
        .init(icao: "ANA", iata: "NH", callsign: "ALL NIPPON", name: "All Nippon Airways", shortname: "ANA", country: "JP"),
    ]
}
