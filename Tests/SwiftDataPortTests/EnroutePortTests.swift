import GraphStoreMacrosFree
import Testing

// The SwiftData Enroute app of "SwiftData: Enroute" (FlightAware data), ported. The models are
// its `@Model` classes with property wrappers; everything else is its code as written, in
// SwiftData's release names where the article used beta ones (`modelContext` for `context`,
// `save()` for `saveContext()`, `DefaultSerialModelExecutor(modelContext:)`,
// `FetchDescriptor(predicate:sortBy:)`).

final class Flight: Model {
    @Attribute(.unique) var ident: String = ""
    @Attribute var actualOff: Date?
    @Attribute var scheduledOff: Date = .distantPast
    @Attribute var estimatedOff: Date = .distantPast
    @Attribute var scheduledOn: Date = .distantPast
    @Attribute var estimatedOn: Date = .distantPast
    @Attribute var actualOn: Date?
    @Attribute var progressPercent: Int = 0
    @Attribute var status: String = ""
    @Attribute var routeDistance: Int = 0
    @Attribute var filedAirspeed: Int = 0
    @Attribute var filedAltitude: Int = 0
    @Relationship var origin: Airport
    @Relationship var destination: Airport
    @Relationship var airline: Airline
    @Attribute var aircraftType: String = ""

    convenience init(ident: String) {
        self.init()
        self.ident = ident
    }
}

final class Airport: Model {
    @Attribute(.unique) var icao: String = ""
    @Attribute var name: String = ""
    @Attribute var city: String = ""
    @Attribute var state: String = ""
    @Attribute var countryCode: String = ""
    @Attribute var latitude: Double = 0
    @Attribute var longitude: Double = 0
    @Attribute var timezone: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Flight.origin) var flightsFrom: [Flight] = []
    @Relationship(deleteRule: .cascade, inverse: \Flight.destination) var flightsTo: [Flight] = []

    convenience init(icao: String) {
        self.init()
        self.icao = icao
    }
}

final class Airline: Model {
    @Attribute(.unique) var code: String = ""
    @Attribute var name: String = ""
    @Attribute var shortName: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Flight.airline) var flights: [Flight] = []

    convenience init(code: String) {
        self.init()
        self.code = code
    }
}

/// FlightAware's arrival record, as far as the article's `update(from:in:)` reads it.
struct Arrival: Codable {
    struct Endpoint: Codable { var code: String }
    var ident: String
    var airlineCode: String
    var origin: Endpoint
    var destination: Endpoint
    var actualOff: Date?
    var scheduledOff: Date?
    var estimatedOff: Date?
    var scheduledOn: Date?
    var estimatedOn: Date?
    var actualOn: Date?
    var aircraftType: String?
    var progressPercent: Int
    var status: String
    var routeDistance: Int
    var filedAirspeed: Int?
    var filedAltitude: Int?
}

extension Flight {
    static func update(from faflight: Arrival, in context: ModelContext) {
        if faflight.ident != "",
           faflight.airlineCode != "" && faflight.airlineCode.count >= 1,
           faflight.origin.code != "",
           faflight.destination.code != "" {

            // find the flight by ident
            let flight = self.withIdent(faflight.ident, in: context)

            flight.origin = Airport.withICAO(faflight.origin.code, context: context)
            flight.destination = Airport.withICAO(faflight.destination.code, context: context)

            flight.actualOff = faflight.actualOff
            flight.scheduledOff = faflight.scheduledOff!
            flight.estimatedOff = faflight.estimatedOff ?? faflight.scheduledOff!

            flight.scheduledOn = faflight.scheduledOn!
            flight.estimatedOn = faflight.estimatedOn ?? faflight.scheduledOn!
            flight.actualOn = faflight.actualOn

            flight.aircraftType = faflight.aircraftType ?? "Unknown"

            flight.progressPercent = faflight.progressPercent
            flight.status = faflight.status
            flight.routeDistance = faflight.routeDistance
            flight.filedAirspeed = faflight.filedAirspeed ?? 0
            flight.filedAltitude = faflight.filedAltitude ?? 0
            flight.airline = Airline.withCode(faflight.airlineCode, context: context)
        }
    }

    static func withIdent(_ ident: String, in context: ModelContext) -> Flight {
        // find the flight by ident
        let flightPredicate = #Predicate<Flight> {
            $0.ident == ident
        }
        let descriptor = FetchDescriptor<Flight>(predicate: flightPredicate)
        let results = (try? context.fetch(descriptor)) ?? []

        // found: return it
        if let flight = results.first {
            return flight
        } else {
            // not found: make a new one
            let flight = Flight(ident: ident)
            context.insert(flight)
            return flight
        }
    }
}

extension Airport {
    static func withICAO(_ icao: String, context: ModelContext) -> Airport {
        let descriptor = FetchDescriptor<Airport>(predicate: #Predicate { $0.icao == icao })
        if let airport = ((try? context.fetch(descriptor)) ?? []).first {
            return airport
        } else {
            let airport = Airport(icao: icao)
            context.insert(airport)
            return airport
        }
    }
}

extension Airline {
    static func withCode(_ code: String, context: ModelContext) -> Airline {
        let descriptor = FetchDescriptor<Airline>(predicate: #Predicate { $0.code == code })
        if let airline = ((try? context.fetch(descriptor)) ?? []).first {
            return airline
        } else {
            let airline = Airline(code: code)
            context.insert(airline)
            return airline
        }
    }
}

/// The article's preview data.
enum PreviewData {
    static func flightsInsert(context: ModelContext) {
        // -----  1 ----
        let flight = Flight(ident: "UAL1780")
        context.insert(flight)
        flight.origin = Airport.withICAO("KPDX", context: context)
        flight.destination = Airport.withICAO("KSFO", context: context)

        flight.actualOff = ISO8601DateFormatter().date(from: "2022-01-26T16:22:56Z")
        flight.scheduledOff = ISO8601DateFormatter().date(from: "2022-01-26T16:10:00Z")!
        flight.estimatedOff = ISO8601DateFormatter().date(from: "2022-01-26T16:22:56Z")!

        flight.scheduledOn = ISO8601DateFormatter().date(from: "2022-01-26T17:13:00Z")!
        flight.estimatedOn = ISO8601DateFormatter().date(from: "2022-01-26T17:41:00Z")!

        flight.aircraftType = "A319"

        flight.progressPercent = 100
        flight.status = "Landed / Taxiing"
        flight.routeDistance = 551
        flight.filedAirspeed = 432
        flight.filedAltitude = 350
        flight.airline = Airline.withCode("UAL", context: context)

        // -----  2 ----
        let flight1 = Flight(ident: "UAL1541")
        context.insert(flight1)
        flight1.origin = Airport.withICAO("KSFO", context: context)
        flight1.destination = Airport.withICAO("KSEA", context: context)

        flight1.scheduledOff = ISO8601DateFormatter().date(from: "2022-01-26T17:41:00Z")!
        flight1.estimatedOff = ISO8601DateFormatter().date(from: "2022-01-26T17:41:00Z")!

        flight1.scheduledOn = ISO8601DateFormatter().date(from: "2022-01-26T18:59:00Z")!
        flight1.estimatedOn = ISO8601DateFormatter().date(from: "2022-01-26T19:18:00Z")!

        flight1.aircraftType = "A319"

        flight1.progressPercent = 0
        flight1.status = "Taxiing / Boarding closed"
        flight1.routeDistance = 680
        flight1.filedAirspeed = 446
        flight1.filedAltitude = 380
        flight1.airline = Airline.withCode("UAL", context: context)

        // -----  3 ----  (the article's dates read "22022-08-25…", a typo for 2022)
        let flight3 = Flight(ident: "SKW5892")
        context.insert(flight3)
        flight3.origin = Airport.withICAO("KSFO", context: context)
        flight3.destination = Airport.withICAO("KACV", context: context)

        flight3.actualOff = ISO8601DateFormatter().date(from: "2022-08-25T06:07:15Z")
        flight3.scheduledOff = ISO8601DateFormatter().date(from: "2022-08-25T05:46:00Z")!
        flight3.estimatedOff = ISO8601DateFormatter().date(from: "2022-08-25T06:07:15Z")!

        flight3.scheduledOn = ISO8601DateFormatter().date(from: "2022-08-25T06:29:00Z")!
        flight3.estimatedOn = ISO8601DateFormatter().date(from: "2022-08-25T06:48:00Z")!

        flight3.aircraftType = "E75L"

        flight3.progressPercent = 61
        flight3.status = "En route / On time"
        flight3.routeDistance = 269
        flight3.filedAirspeed = 413
        flight3.filedAltitude = 260
        flight3.airline = Airline.withCode("SKW", context: context)
    }
}

/// The article's background loader, in SwiftData's release names.
actor LoadModelActor: ModelActor {
    nonisolated let modelContainer: ModelContainer
    nonisolated let modelExecutor: any ModelExecutor
    private var context: ModelContext { modelExecutor.modelContext }

    init(container: ModelContainer) {
        self.modelContainer = container
        let context = ModelContext(container)
        modelExecutor = DefaultSerialModelExecutor(modelContext: context)
    }

    func flightsAsync(_ json: Data) async throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let arrivals = try decoder.decode([Arrival].self, from: json)
        for arrival in arrivals {
            Flight.update(from: arrival, in: context)
            await Task.yield()
        }
        try context.save()
    }
}

private let arrivalsJSON = Data("""
[
 {"ident": "UAL1780", "airlineCode": "UAL", "origin": {"code": "KPDX"}, "destination": {"code": "KSFO"},
  "actualOff": "2022-01-26T16:22:56Z", "scheduledOff": "2022-01-26T16:10:00Z", "scheduledOn": "2022-01-26T17:13:00Z",
  "estimatedOn": "2022-01-26T17:41:00Z", "aircraftType": "A319", "progressPercent": 40, "status": "En route",
  "routeDistance": 551, "filedAirspeed": 432, "filedAltitude": 350},
 {"ident": "DAL22", "airlineCode": "DAL", "origin": {"code": "KSFO"}, "destination": {"code": "KATL"},
  "scheduledOff": "2022-01-26T18:00:00Z", "scheduledOn": "2022-01-26T23:00:00Z",
  "progressPercent": 0, "status": "Scheduled", "routeDistance": 2139},
 {"ident": "", "airlineCode": "XXX", "origin": {"code": "KSFO"}, "destination": {"code": "KLAX"},
  "progressPercent": 0, "status": "", "routeDistance": 0}
]
""".utf8)

@Suite struct EnroutePortTests {
    @Test func thePreviewDataAndTheArticlesPredicates() throws {
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                           configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        PreviewData.flightsInsert(context: context)
        // Before the save: the lookups found each airport and airline they had made.
        #expect(try context.fetchCount(FetchDescriptor<Airport>()) == 4)
        #expect(try context.fetchCount(FetchDescriptor<Airline>()) == 2)
        try context.save()

        let sanFranciscoFlightsPredicate = #Predicate<Flight> { $0.origin.icao == "KSFO" }
        let sanFranciscoUnitedFlightsPredicate = #Predicate<Flight> { $0.origin.icao == "KSFO" && $0.airline.code == "UAL" }
        let flightsInAirPredicate = #Predicate<Flight> { $0.actualOn == nil && $0.actualOff != nil }

        let fromSFO = try context.fetch(FetchDescriptor<Flight>(predicate: sanFranciscoFlightsPredicate, sortBy: [SortDescriptor(\.ident)]))
        #expect(fromSFO.map(\.ident) == ["SKW5892", "UAL1541"])
        #expect(try context.fetch(FetchDescriptor<Flight>(predicate: sanFranciscoUnitedFlightsPredicate)).map(\.ident) == ["UAL1541"])

        let descriptor = FetchDescriptor<Flight>(predicate: flightsInAirPredicate, sortBy: [SortDescriptor(\.routeDistance)])
        let flightsInAir = try context.fetch(descriptor)
        #expect(flightsInAir.map(\.ident) == ["SKW5892", "UAL1780"])

        let originICAO = "SF"
        let matching = try context.fetch(FetchDescriptor<Flight>(
            predicate: #Predicate<Flight> { flight in flight.origin.icao.contains(originICAO) },
            sortBy: [SortDescriptor(\Flight.routeDistance, order: .forward)]))
        #expect(matching.map(\.routeDistance) == [269, 680])

        let airportsFROM = try context.fetch(FetchDescriptor<Airport>(
            predicate: #Predicate<Airport> { $0.flightsFrom.count > 0 }, sortBy: [SortDescriptor(\Airport.icao, order: .forward)]))
        #expect(airportsFROM.map(\.icao) == ["KPDX", "KSFO"])

        // The inverses kept themselves in step.
        let sfo = try #require(airportsFROM.last)
        #expect(Set(sfo.flightsFrom.map(\.ident)) == ["UAL1541", "SKW5892"])
        #expect(sfo.flightsTo.map(\.ident) == ["UAL1780"])
        #expect(Airline.withCode("UAL", context: context).flights.count == 2)
    }

    @Test func theSeedsUpdatePatternUpsertsByIdentInOneSave() throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: ModelConfiguration(url: store.url))
        let context = ModelContext(container)
        context.autosaveEnabled = false
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let arrivals = try decoder.decode([Arrival].self, from: arrivalsJSON)
        // Twice over, as a refresh does: the second pass finds every flight the first made.
        for _ in 0..<2 { for arrival in arrivals { Flight.update(from: arrival, in: context) } }
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 2)
        #expect(try context.fetchCount(FetchDescriptor<Airport>()) == 3)

        container.close()
        let reopened = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: ModelConfiguration(url: store.url))
        let reader = ModelContext(reopened)
        let delta = try #require(try reader.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "DAL22" })).first)
        #expect(delta.origin.icao == "KSFO" && delta.destination.icao == "KATL" && delta.airline.code == "DAL")
        #expect(delta.aircraftType == "Unknown" && delta.estimatedOff == delta.scheduledOff)
    }

    @Test func theBackgroundLoaderStoresEveryFlight() async throws {
        let store = TemporaryStore()
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: ModelConfiguration(url: store.url))
        let actor = LoadModelActor(container: container)
        try await actor.flightsAsync(arrivalsJSON)
        let context = ModelContext(container)
        #expect(try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)])).map(\.ident) == ["DAL22", "UAL1780"])
    }

    @Test func aNonOptionalRelationshipMustBeSetBeforeASave() throws {
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                           configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let flight = Flight(ident: "UAL1")
        context.insert(flight)
        flight.origin = Airport.withICAO("KSFO", context: context)
        // A predicate over the unsaved flight reads its unset destination without stopping.
        let toSeattle = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.destination.icao == "KSEA" }))
        #expect(toSeattle.isEmpty)
        #expect(throws: ModelContextError.self) { try context.save() }
        do {
            try context.save()
        } catch let error as ModelContextError {
            #expect("\(error)".contains("destination"))
        }
        // Nothing was lost: set the rest and the same save goes through.
        flight.destination = Airport.withICAO("KSEA", context: context)
        flight.airline = Airline.withCode("UAL", context: context)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.destination.icao == "KSEA" })).count == 1)
    }

    @Test func deletingAnAirportCascadesToItsFlights() throws {
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                           configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        PreviewData.flightsInsert(context: context)
        try context.save()
        context.delete(Airport.withICAO("KSFO", context: context))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Flight>()).map(\.ident) == [])
        #expect(try context.fetchCount(FetchDescriptor<Airport>()) == 3)
    }
}

/// `inverse:` takes any key path, as SwiftData's does; one that does not start at the target is
/// refused when the container is made.
final class Gate: Model {
    @Attribute var number: String = ""
    @Relationship(inverse: \Airline.code) var departures: [Flight] = []
}

@Suite struct RelationshipDeclarationPortTests {
    @Test func anInverseThatDoesNotStartAtTheTargetIsASchemaError() {
        #expect(throws: SchemaError.self) {
            _ = try ModelContainer(for: Gate.self, Flight.self, Airport.self, Airline.self,
                                   configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
    }
}
