import Foundation
import Testing
@testable import EnrouteModels

/// Independent facts about the bundled sample, computed straight from its JSON.
struct SampleFacts {
    struct FlightFact {
        var ident: String
        var origin: String
        var destination: String
        var actualOff: Bool
        var actualOn: Bool
        var distance: Int
    }

    var flights: [String: FlightFact] = [:]
    var incomplete = 0
    var airports: [[String: Any]] = []

    init() throws {
        for url in EnrouteSample.files {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
            if let list = json as? [[String: Any]], url.lastPathComponent == "airports.json" { airports = list }
            guard let board = json as? [String: Any] else { continue }
            for group in ["arrivals", "departures", "scheduled_arrivals", "scheduled_departures"] {
                for flight in board[group] as? [[String: Any]] ?? [] {
                    let origin = (flight["origin"] as? [String: Any])?["code"] as? String
                    let destination = (flight["destination"] as? [String: Any])?["code"] as? String
                    guard let ident = flight["ident"] as? String, let origin, let destination else {
                        incomplete += 1
                        continue
                    }
                    flights[ident] = FlightFact(ident: ident, origin: origin, destination: destination,
                                                actualOff: !(flight["actual_off"] is NSNull), actualOn: !(flight["actual_on"] is NSNull),
                                                distance: flight["route_distance"] as? Int ?? 0)
                }
            }
        }
    }
}

@Suite struct ImportAndQueryTests {
    func loadedSample() throws -> (ModelContainer, ModelContext, EnrouteImporter.Report) {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        var report = EnrouteImporter.Report()
        for file in EnrouteSample.files { report.add(try EnrouteImporter(context: context).load(file)) }
        return (container, context, report)
    }

    @Test func theSampleLoadsAndMatchesItsJSON() throws {
        let facts = try SampleFacts()
        #expect(EnrouteSample.files.map(\.lastPathComponent) == ["airports.json", "airlines.json", "flights-KORD.json", "flights-KSFO.json"])
        let (_, context, report) = try loadedSample()
        #expect(report.flightsInserted == facts.flights.count)
        #expect(report.flightsSkipped == facts.incomplete && facts.incomplete == 2)
        #expect(report.airportsInserted == facts.airports.count && report.airlinesInserted == 12)
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == facts.flights.count)
        for flight in try context.fetch(FetchDescriptor<Flight>()) {
            let fact = try #require(facts.flights[flight.ident])
            #expect(flight.origin?.icao == fact.origin && flight.destination?.icao == fact.destination && flight.routeDistance == fact.distance)
            #expect(flight.airline?.code == flight.airlineCode)
        }
    }

    @Test func loadingTwiceChangesNothing() throws {
        let (container, context, _) = try loadedSample()
        let before = container.lastTransaction
        var again = EnrouteImporter.Report()
        for file in EnrouteSample.files { again.add(try EnrouteImporter(context: context).load(file)) }
        #expect(again.flightsInserted == 0 && again.flightsUpdated == 0 && again.airportsInserted == 0 && again.airportsUpdated == 0)
        #expect(again.airlinesInserted == 0 && again.airlinesUpdated == 0)
        #expect(container.lastTransaction == before)  // nothing was committed
    }

    @Test func placeholdersAreCompletedWhenTheirRecordsArrive() throws {
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let importer = EnrouteImporter(context: context)
        let boards = EnrouteSample.files.filter { $0.lastPathComponent.hasPrefix("flights-") }
        for file in boards { try importer.load(file) }
        let sfo = try #require(try context.fetchUnique(\Airport.icao, equals: "KSFO"))
        #expect(sfo.name == "")
        let report = try importer.load(EnrouteSample.files[0])
        #expect(report.airportsInserted == 0 && report.airportsUpdated > 0)
        #expect(sfo.name == "San Francisco Intl" && sfo.city == "San Francisco")
    }

    @Test func aRefusedFileLeavesTheStoreUntouched() throws {
        let (container, context, _) = try loadedSample()
        let before = container.lastTransaction
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("enroute-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var text = try String(contentsOf: EnrouteSample.files[3], encoding: .utf8)
        // A new flight first, then a type error much later in the same file.
        text = text.replacingOccurrences(of: "\"ident\" : \"", with: "\"ident\" : \"NEW", options: [], range: text.range(of: "\"ident\" : \""))
        if let last = text.range(of: "\"route_distance\" : ", options: .backwards) {
            text.replaceSubrange(last, with: "\"route_distance\" : \"oops\", \"x\" : ")
        }
        let bad = dir.appendingPathComponent("bad.json")
        try text.write(to: bad, atomically: true, encoding: .utf8)
        #expect(throws: FlightAwareFile.Refusal.self) { try EnrouteImporter(context: context).load(bad) }
        #expect(container.lastTransaction == before)
        #expect(!context.hasChanges)
        #expect(try context.fetchCount(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident.starts(with: "NEW") })) == 0)
    }

    @Test func theFlightFilterMatchesTheJSON() throws {
        let facts = try SampleFacts()
        let (_, context, _) = try loadedSample()
        let toSFOInTheAir = facts.flights.values.filter { $0.destination == "KSFO" && $0.actualOff && !$0.actualOn }
        let found = try context.fetch(FlightFilter(destination: "KSFO", enrouteOnly: true, sort: .distance, ascending: false).fetchDescriptor)
        #expect(Set(found.map(\.ident)) == Set(toSFOInTheAir.map(\.ident)))
        #expect(found.map(\.routeDistance) == found.map(\.routeDistance).sorted(by: >))
        let ual = facts.flights.values.filter { $0.ident.hasPrefix("UAL") && $0.origin == "KORD" }
        let ualFromORD = try context.fetch(FlightFilter(origin: "KORD", airline: "UAL").fetchDescriptor)
        #expect(Set(ualFromORD.map(\.ident)) == Set(ual.map(\.ident)))
        #expect(zip(ualFromORD, ualFromORD.dropFirst()).allSatisfy { $0.departure <= $1.departure })
        let limited = try context.fetch(FlightFilter(sort: .progress, ascending: false, limit: 7).fetchDescriptor)
        #expect(limited.count == 7 && limited.first?.progressPercent == 100)
        let byArrival = try context.fetch(FlightFilter(destination: "KORD", sort: .arrival).fetchDescriptor)
        #expect(byArrival.count == facts.flights.values.filter { $0.destination == "KORD" }.count)
    }

    /// The filter by destination and airline reads Flight's compound index, one key, and
    /// finds what the JSON has, changes included once saved.
    @Test func theFilterByDestinationAndAirlineReadsTheCompoundIndex() throws {
        let facts = try SampleFacts()
        let (_, context, _) = try loadedSample()
        let filter = FlightFilter(destination: "KSFO", airline: "UAL", sort: .distance)
        let expected = facts.flights.values.filter { $0.destination == "KSFO" && $0.ident.hasPrefix("UAL") }
        #expect(!expected.isEmpty)
        #expect(try context.explain(filter.fetchDescriptor).hasPrefix("compound index Flight(destination, airline)"))
        #expect(Set(try context.fetch(filter.fetchDescriptor).map(\.ident)) == Set(expected.map(\.ident)))
        let moved = try #require(try context.fetch(filter.fetchDescriptor).first)
        moved.destination = try context.fetchUnique(\Airport.icao, equals: "KORD")
        try context.save()
        #expect(Set(try context.fetch(filter.fetchDescriptor).map(\.ident)) == Set(expected.map(\.ident)).subtracting([moved.ident]))
        #expect(try context.fetch(FlightFilter(destination: "KORD", airline: "UAL").fetchDescriptor).contains { $0.ident == moved.ident })
    }

    /// The `explain` example of Docs/guides/fetching.md, as the code prints it.
    @Test func explainSaysWhichPathAFetchTakes() throws {
        let (_, context, _) = try loadedSample()
        var descriptor = FetchDescriptor<Flight>(
            predicate: #Predicate { $0.destination?.icao == "KSFO" && $0.actualOff != nil },
            sortBy: [SortDescriptor(\.routeDistance, order: .reverse), SortDescriptor(\.ident)])
        descriptor.fetchLimit = 20
        let arrivals = try SampleFacts().flights.values.filter { $0.destination == "KSFO" }.count
        #expect(try context.explain(descriptor) == """
            inverse set of Airport.icao = "KSFO" through Flight.destination: \(arrivals) row(s)
            filter by the predicate, compiled, on rows
            sort by 2 key(s)
            offset 0, limit 20
            """)
    }

    @Test func searchBoardsAndAirlines() throws {
        let facts = try SampleFacts()
        let (_, context, _) = try loadedSample()
        func fold(_ s: String) -> String { s.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
        for prefix in ["san", "ZUR", "tok", "chi", "x"] {
            let expected = facts.airports.filter {
                fold($0["city"] as? String ?? "").hasPrefix(fold(prefix)) || fold($0["name"] as? String ?? "").hasPrefix(fold(prefix))
            }.map { $0["airport_code"] as! String }
            #expect(Set(try EnrouteQueries.airports(matching: prefix, in: context).map(\.icao)) == Set(expected), "\(prefix)")
        }
        let arrivals = try EnrouteQueries.arrivals(at: "KORD", in: context)
        #expect(arrivals.count == facts.flights.values.filter { $0.destination == "KORD" }.count)
        #expect(zip(arrivals, arrivals.dropFirst()).allSatisfy { $0.arrival <= $1.arrival })
        let departures = try EnrouteQueries.departures(from: "KSFO", in: context)
        #expect(departures.count == facts.flights.values.filter { $0.origin == "KSFO" }.count)
        let origins = Set(facts.flights.values.map(\.origin))
        let departing = try EnrouteQueries.airportsWithDepartures(in: context)
        #expect(Set(departing.map(\.icao)) == origins)
        #expect(departing.map(\.name) == departing.map(\.name).sorted())
        let united = try EnrouteQueries.flights(of: "UAL", in: context)
        #expect(united.count == facts.flights.keys.filter { $0.hasPrefix("UAL") }.count)
    }

    /// Synthetic codes never name a real airport or airline (index 505 used to be "KATL"), so a
    /// generated data set has one record per code, and loading it again commits nothing.
    @Test func syntheticCodesAreUniqueAndAReloadCommitsNothing() throws {
        let output = EnrouteGenerator(flights: 100, airports: 1_200, airlines: 300, seed: 5).generate()
        let airportCodes = output.airports.map(\.airportCode), airlineCodes = output.airlines.compactMap(\.icao)
        #expect(Set(airportCodes).count == airportCodes.count)
        #expect(Set(airlineCodes).count == airlineCodes.count)
        #expect(airportCodes.contains("KATL"))
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("enroute-reload-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let files = try EnrouteGenerator(flights: 600, airports: 520, airlines: 60, seed: 5).write(to: base)
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for file in files { _ = try EnrouteImporter(context: context).load(file) }
        let loaded = container.lastTransaction
        for file in files { _ = try EnrouteImporter(context: context).load(file) }
        #expect(container.lastTransaction == loaded)
        #expect(try context.fetchCount(FetchDescriptor<Airport>()) == 520)
    }

    @Test func theGeneratorIsDeterministicForASeed() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("enroute-gen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        func bytes(_ seed: UInt64, _ name: String) throws -> [String: Data] {
            let dir = base.appendingPathComponent(name)
            var generator = EnrouteGenerator(flights: 600, airports: 30, airlines: 15, seed: seed)
            generator.flightsPerFile = 100
            let urls = try generator.write(to: dir)
            return Dictionary(uniqueKeysWithValues: try urls.map { ($0.lastPathComponent, try Data(contentsOf: $0)) })
        }
        let first = try bytes(7, "a"), second = try bytes(7, "b"), other = try bytes(8, "c")
        #expect(first == second)
        #expect(first != other)
        // Every flight is in some file; files respect the page size.
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for name in first.keys.sorted() {
            let file = try FlightAwareFile.decode(first[name]!, file: name)
            if case let .airportFlights(doc) = file { #expect(doc.allFlights.count <= 100) }
            try EnrouteImporter(context: context).store(file, file: name)
        }
        #expect(try context.fetchCount(FetchDescriptor<Flight>()) == 600)
        #expect(try context.fetchCount(FetchDescriptor<Airport>()) == 30)
    }
}
