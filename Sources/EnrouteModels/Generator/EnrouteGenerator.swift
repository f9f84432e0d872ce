import Foundation

/// Writes FlightAware-format files at any scale, the same bytes for the same seed: an airports
/// file, an airlines file, and airport-flights files (departure and arrival boards) of at most
/// `flightsPerFile` flights each. A flight appears on its origin's board and, when that airport
/// has boards too, its destination's — as in the real feed, where one ident shows up in
/// several files.
public struct EnrouteGenerator {
    public var flights: Int
    public var airports: Int
    public var airlines: Int
    public var seed: UInt64
    /// Which airports get board files (nil: every airport that has flights).
    public var boards: [String]?
    public var flightsPerFile = 200
    /// Flight records left incomplete on purpose (no destination, as position-only flights
    /// have), so importers show what they skip.
    public var incompleteFlights = 0

    public init(flights: Int, airports: Int? = nil, airlines: Int? = nil, seed: UInt64 = 1, boards: [String]? = nil) {
        self.flights = flights
        self.airports = airports ?? max(ReferenceData.airports.count, min(4_000, flights / 250))
        self.airlines = airlines ?? max(ReferenceData.airlines.count, min(400, flights / 2_500))
        self.seed = seed
        self.boards = boards
    }

    /// The bundled sample: the boards of San Francisco and Chicago O'Hare.
    public static var sample: EnrouteGenerator {
        var generator = EnrouteGenerator(flights: 240, airports: ReferenceData.airports.count,
                                         airlines: ReferenceData.airlines.count, seed: 2026, boards: ["KSFO", "KORD"])
        generator.incompleteFlights = 2
        return generator
    }

    public struct Output: Sendable {
        public var airports: [FlightAwareAirport]
        public var airlines: [FlightAwareAirline]
        /// File name → document.
        public var boards: [(name: String, document: FlightAwareAirportFlights)]
    }

    /// The files' contents, in memory.
    public func generate() -> Output {
        var rng = SeededRandom(seed: seed)
        let airportRecords = (0..<max(2, airports)).map { airportRecord($0) }
        let airlineRecords = (0..<max(1, airlines)).map { airlineRecord($0) }
        let boardCodes = boards ?? airportRecords.map(\.airportCode)
        let boardSet = Set(boardCodes)
        let start = Date(timeIntervalSince1970: 1_795_305_600)  // 2026-11-22T00:00:00Z: fixed, so output is reproducible
        let now = start.addingTimeInterval(13 * 3_600)

        var departures: [String: [FlightAwareFlight]] = [:]
        var arrivals: [String: [FlightAwareFlight]] = [:]
        var scheduledDepartures: [String: [FlightAwareFlight]] = [:]
        var scheduledArrivals: [String: [FlightAwareFlight]] = [:]
        var numbers = Set<String>()
        var coordinates: [String: (latitude: Double, longitude: Double)] = [:]
        for airport in airportRecords { coordinates[airport.airportCode] = (airport.latitude ?? 0, airport.longitude ?? 0) }
        for i in 0..<flights {
            let airline = airlineRecords[Int(rng.next() % UInt64(airlineRecords.count))]
            var ident: String
            repeat { ident = airline.icao! + String(1 + rng.next() % 9_999) } while !numbers.insert(ident).inserted && numbers.count < 9_999 * airlineRecords.count
            if numbers.count >= 9_999 * airlineRecords.count { ident = airline.icao! + "X\(i)" }
            // One end is a board airport, so every flight lands in some file.
            let board = boardCodes[Int(rng.next() % UInt64(boardCodes.count))]
            var other = airportRecords[Int(rng.next() % UInt64(airportRecords.count))].airportCode
            if other == board { other = airportRecords[(airportRecords.firstIndex { $0.airportCode == board }! + 1) % airportRecords.count].airportCode }
            let outbound = rng.next() % 2 == 0
            let (from, to) = outbound ? (board, other) : (other, board)
            let a = coordinates[from]!, b = coordinates[to]!
            let miles = GreatCircle.statuteMiles(fromLatitude: a.latitude, longitude: a.longitude, toLatitude: b.latitude, longitude: b.longitude)
            var flight = flightRecord(ident: ident, from: from, to: to, miles: miles, start: start, now: now, rng: &rng)
            if i < incompleteFlights { flight.destination = nil }
            let airborne = flight.actualOff != nil
            if boardSet.contains(from) {
                if airborne { departures[from, default: []].append(flight) } else { scheduledDepartures[from, default: []].append(flight) }
            }
            if boardSet.contains(to) {
                if flight.actualOn != nil || airborne { arrivals[to, default: []].append(flight) } else { scheduledArrivals[to, default: []].append(flight) }
            }
        }

        var files: [(String, FlightAwareAirportFlights)] = []
        for code in boardCodes.sorted() {
            let all = [("a", arrivals[code] ?? []), ("d", departures[code] ?? []),
                       ("sa", scheduledArrivals[code] ?? []), ("sd", scheduledDepartures[code] ?? [])]
            let total = all.reduce(0) { $0 + $1.1.count }
            guard total > 0 else { continue }
            let pages = (total + flightsPerFile - 1) / flightsPerFile
            var cursors = [0, 0, 0, 0]
            for page in 0..<pages {
                var document = FlightAwareAirportFlights(arrivals: [], departures: [], scheduledArrivals: [], scheduledDepartures: [],
                                                         links: nil, numPages: pages)
                var room = flightsPerFile
                for (g, group) in all.enumerated() {
                    let take = min(room, group.1.count - cursors[g])
                    let slice = Array(group.1[cursors[g]..<(cursors[g] + take)])
                    cursors[g] += take
                    room -= take
                    switch g {
                    case 0: document.arrivals = slice
                    case 1: document.departures = slice
                    case 2: document.scheduledArrivals = slice
                    default: document.scheduledDepartures = slice
                    }
                }
                if page + 1 < pages {
                    document.links = .init(next: "/airports/\(code)/flights?cursor=\(page + 1)")
                }
                files.append((pages == 1 ? "flights-\(code).json" : "flights-\(code)-\(page + 1).json", document))
            }
        }
        return Output(airports: airportRecords, airlines: airlineRecords, boards: files)
    }

    /// Writes airports.json, airlines.json and the board files into `directory` (created if
    /// needed), calling `progress` with the fraction done. Returns the file URLs written.
    /// Board files are written by every core at once, a chunk at a time: a million flights make
    /// 600 MB of JSON.
    @discardableResult
    public func write(to directory: URL, progress: (Double) -> Void = { _ in }) throws -> [URL] {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let output = generate()
        @Sendable func write(_ value: JSONValue, _ name: String) throws -> URL {
            let url = directory.appendingPathComponent(name)
            try value.prettyPrinted(newline: true).write(to: url)
            return url
        }
        var urls = [try write(.array(output.airports.map(\.json)), "airports.json"),
                    try write(.array(output.airlines.map(\.json)), "airlines.json")]
        let failures = FirstFailure()
        let chunk = 8 * ProcessInfo.processInfo.activeProcessorCount
        for start in stride(from: 0, to: output.boards.count, by: chunk) {
            let end = min(output.boards.count, start + chunk)
            DispatchQueue.concurrentPerform(iterations: end - start) { i in
                let board = output.boards[start + i]
                do { _ = try write(board.document.json, board.name) } catch { failures.record(error) }
            }
            if let error = failures.first { throw error }
            urls += output.boards[start..<end].map { directory.appendingPathComponent($0.name) }
            progress(Double(end) / Double(output.boards.count))
        }
        return urls
    }

    /// The first error of work done on several threads.
    private final class FirstFailure: @unchecked Sendable {
        private let lock = NSLock()
        private var error: (any Error)?
        var first: (any Error)? { lock.withLock { error } }
        func record(_ error: any Error) { lock.withLock { if self.error == nil { self.error = error } } }
    }

    // MARK: Records

    private func airportRecord(_ i: Int) -> FlightAwareAirport {
        var record: FlightAwareAirport
        if i < ReferenceData.airports.count {
            let info = ReferenceData.airports[i]
            record = FlightAwareAirport(airportCode: info.icao)
            record.alternateIdent = info.iata
            record.name = info.name
            record.city = info.city
            record.state = info.state
            record.countryCode = info.country
            record.latitude = info.latitude
            record.longitude = info.longitude
            record.elevation = info.elevation
            record.timezone = info.timezone
        } else {
            let code = "K" + Self.letters(Self.skipping(Self.realAirportCodes, i), count: 3)
            record = FlightAwareAirport(airportCode: code)
            record.alternateIdent = String(code.dropFirst())
            record.name = "\(Self.townNames[i % Self.townNames.count]) Regional \(i)"
            record.city = Self.townNames[i % Self.townNames.count]
            record.state = Self.states[i % Self.states.count]
            record.countryCode = "US"
            // Scattered over the continental United States (neighbouring numbers far apart), so
            // routes between made-up airports have airline lengths.
            record.latitude = 25 + Double((i &* 7_919) % 2_300) / 100
            record.longitude = -70 - Double((i &* 104_729) % 5_300) / 100
            record.elevation = Double(i % 5_000)
            record.timezone = "America/Chicago"
        }
        record.wikiURL = "https://en.wikipedia.org/wiki/\(record.airportCode)"
        record.airportFlightsURL = "/airports/\(record.airportCode)/flights"
        return record
    }

    private func airlineRecord(_ i: Int) -> FlightAwareAirline {
        if i < ReferenceData.airlines.count {
            let info = ReferenceData.airlines[i]
            var record = FlightAwareAirline(icao: info.icao)
            record.iata = info.iata
            record.callsign = info.callsign
            record.name = info.name
            record.shortname = info.shortname
            record.country = info.country
            record.url = "https://www.\(info.shortname.lowercased().replacingOccurrences(of: " ", with: "")).com"
            return record
        }
        let code = Self.letters(Self.skipping(Self.realAirlineCodes, i + 10_000), count: 3)
        var record = FlightAwareAirline(icao: code)
        record.callsign = "CALL\(i)"
        record.name = "Airline \(code) Inc."
        record.shortname = "Airline \(code)"
        record.country = "US"
        return record
    }

    /// A flight between airports `miles` apart (great circle): its filed route a few percent
    /// longer, its time in the air what an airliner takes for it.
    private func flightRecord(ident: String, from: String, to: String, miles: Double, start: Date, now: Date,
                              rng: inout SeededRandom) -> FlightAwareFlight {
        var flight = FlightAwareFlight(ident: ident)
        flight.faFlightID = "\(ident)-\(1_795_300_000 + Int(rng.next() % 90_000))-airline-\(rng.next() % 1_000)"
        flight.operator = String(ident.prefix { $0.isLetter })
        flight.flightNumber = String(ident.drop { $0.isLetter })
        flight.registration = rng.next() % 5 == 0 ? nil : "N\(100 + rng.next() % 899)\(Self.letters(Int(rng.next() % 676), count: 2))"
        flight.origin = FlightAwareAirportReference(code: from, airportInfoURL: "/airports/\(from)")
        flight.destination = FlightAwareAirportReference(code: to, airportInfoURL: "/airports/\(to)")
        let scheduledOff = start.addingTimeInterval(Double(rng.next() % (26 * 3_600)))
        // Climb, descent and the approach take about half an hour; the cruise about 450 mph.
        let routeMiles = miles * (1.02 + Double(rng.next() % 60) / 1_000)
        let minutes = max(35, 30 + routeMiles / 7.5 + Double(rng.next() % 15))
        let scheduledOn = scheduledOff.addingTimeInterval(minutes * 60)
        let delay = Double(rng.next() % 100) < 25 ? Double(rng.next() % 5_400) : 0
        flight.scheduledOut = scheduledOff.addingTimeInterval(-900)
        flight.scheduledOff = scheduledOff
        flight.scheduledOn = scheduledOn
        flight.scheduledIn = scheduledOn.addingTimeInterval(600)
        flight.estimatedOut = flight.scheduledOut!.addingTimeInterval(delay)
        flight.estimatedOff = scheduledOff.addingTimeInterval(delay)
        flight.estimatedOn = scheduledOn.addingTimeInterval(delay)
        flight.estimatedIn = flight.scheduledIn!.addingTimeInterval(delay)
        let off = flight.estimatedOff!, on = flight.estimatedOn!
        if off <= now {
            flight.actualOut = off.addingTimeInterval(-600)
            flight.actualOff = off
            if on <= now {
                flight.actualOn = on
                flight.actualIn = on.addingTimeInterval(420)
                flight.progressPercent = 100
                flight.status = delay > 900 ? "Arrived / Delayed" : "Arrived / Gate Arrival"
            } else {
                flight.progressPercent = Int(now.timeIntervalSince(off) / on.timeIntervalSince(off) * 100)
                flight.status = delay > 900 ? "En Route / Delayed" : "En Route / On Time"
            }
        } else {
            flight.progressPercent = 0
            flight.status = delay > 900 ? "Scheduled / Delayed" : "Scheduled"
        }
        flight.aircraftType = Self.aircraft[Int(rng.next() % UInt64(Self.aircraft.count))]
        flight.routeDistance = Int(routeMiles.rounded())
        flight.filedAirspeed = rng.next() % 10 == 0 ? nil : 420 + Int(rng.next() % 80)
        flight.filedAltitude = rng.next() % 10 == 0 ? nil : 300 + Int(rng.next() % 11) * 10
        flight.route = rng.next() % 3 == 0 ? nil : "\(from.dropFirst()) J\(rng.next() % 150) \(to.dropFirst())"
        flight.gateOrigin = rng.next() % 4 == 0 ? nil : "\(Self.letters(Int(rng.next() % 6), count: 1))\(1 + rng.next() % 40)"
        flight.gateDestination = rng.next() % 4 == 0 ? nil : "\(Self.letters(Int(rng.next() % 6), count: 1))\(1 + rng.next() % 40)"
        flight.terminalOrigin = rng.next() % 2 == 0 ? nil : "\(1 + rng.next() % 3)"
        flight.terminalDestination = rng.next() % 2 == 0 ? nil : "\(1 + rng.next() % 3)"
        flight.seatsCabinBusiness = rng.next() % 3 == 0 ? nil : Int(rng.next() % 40)
        flight.seatsCabinCoach = rng.next() % 3 == 0 ? nil : 100 + Int(rng.next() % 150)
        flight.codeshares = rng.next() % 3 == 0 ? [] : ["DAL\(rng.next() % 9_000)"]
        flight.blocked = false
        flight.diverted = false
        flight.cancelled = false
        flight.positionOnly = false
        flight.type = "Airline"
        return flight
    }

    /// The three-letter numbers (`letters`' inverse) of the reference data's codes: synthetic
    /// codes skip them, so that no synthetic airport or airline is named like a real one (which
    /// would make two different records of one code, and every reload an update).
    static let realAirportCodes = ReferenceData.airports.map(\.icao).filter { $0.count == 4 && $0.hasPrefix("K") }
        .compactMap { number(ofLetters: String($0.dropFirst())) }.sorted()
    static let realAirlineCodes = ReferenceData.airlines.map(\.icao).compactMap(number(ofLetters:)).sorted()

    /// The `n`th number that is not in `taken` (ascending), counting from the numbers themselves:
    /// increasing in `n`, and never one of `taken`.
    static func skipping(_ taken: [Int], _ n: Int) -> Int {
        var result = n
        for number in taken where number <= result { result += 1 }
        return result
    }

    static func number(ofLetters text: String) -> Int? {
        guard text.count == 3, text.allSatisfy({ $0.isASCII && $0.isUppercase }) else { return nil }
        return text.unicodeScalars.reduce(0) { $0 * 26 + Int($1.value - 65) }
    }

    static func letters(_ n: Int, count: Int) -> String {
        var n = n, result = [UInt8](repeating: 0, count: count)
        for i in (0..<count).reversed() {
            result[i] = UInt8(ascii: "A") + UInt8(n % 26)
            n /= 26
        }
        return String(decoding: result, as: UTF8.self)
    }

    static let townNames = ["Springfield", "Riverside", "Franklin", "Greenville", "Bristol", "Clinton", "Fairview", "Salem",
                            "Madison", "Georgetown", "Arlington", "Ashland", "Dover", "Oxford", "Jackson", "Burlington"]
    static let states = ["AL", "AZ", "CA", "CO", "FL", "GA", "IL", "KS", "MI", "MN", "NC", "NY", "OH", "OR", "TX", "WA"]
    static let aircraft = ["B738", "A320", "B39M", "A321", "E175", "B77W", "B789", "A21N", "CRJ9", "B752"]

}
