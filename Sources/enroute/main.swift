import Foundation
import EnrouteModels
import ToolSupport

// enroute: the GraphStore demo — the Enroute app's airline data, loaded from FlightAware JSON
// into an embedded store and queried the way the app does.

let usage = """
    usage: enroute [--store DIR] <command> [options]

    commands:
      demo                      load the bundled sample if the store is empty, then a short tour (the default)
      load [FILE...]            load FlightAware JSON files (no files: the bundled sample)
      flights [--to ICAO] [--from ICAO] [--airline CODE] [--enroute]
              [--sort distance|departure|arrival|progress] [--desc] [--limit N] [--json]
      airports [--search PREFIX] [--departing] [--json]
      airlines [--json]
      board ICAO --arrivals|--departures [--json]
      generate --flights N [--airports M] [--airlines K] [--seed S] --out DIR
      generate --sample --out DIR   write the bundled sample's files
      status                    the store's location and counts

    --store DIR  the store directory (default ~/.graphstore/enroute), before or after the command.
    Every command takes --help. Exit codes: 0 success, 1 failure (a refused file, a damaged store), 2 bad arguments.
    """

let commandHelp: [String: String] = [
    "demo": "usage: enroute demo [--store DIR]\n\nLoads the bundled sample into the store if it holds no flights, then shows counts, flights in the air to KSFO by distance, KORD's arrivals board and an airport search. Running it again reuses the loaded data.",
    "load": "usage: enroute load [FILE...] [--store DIR]\n\nLoads FlightAware airport-flights, airports and airlines files, one transaction per file; with no files, the bundled sample. Prints flights, airports and airlines inserted, updated and skipped, and ends with a checkpoint when anything changed. A file that is not valid JSON or not one of these shapes is refused whole (exit 1), naming the file, JSON path and field.",
    "flights": "usage: enroute flights [--to ICAO] [--from ICAO] [--airline CODE] [--enroute] [--sort distance|departure|arrival|progress] [--desc] [--limit N] [--json] [--store DIR]\n\nThe Enroute flight list: filtered, sorted, as a table with its count or as a JSON array.",
    "airports": "usage: enroute airports [--search PREFIX] [--departing] [--json] [--store DIR]\n\nAirports by name; --search keeps those whose city or name starts with PREFIX (case and accents ignored); --departing keeps those with departing flights.",
    "airlines": "usage: enroute airlines [--json] [--store DIR]\n\nAirlines with their flight counts.",
    "board": "usage: enroute board ICAO --arrivals|--departures [--json] [--store DIR]\n\nAn airport's arrivals board (flights to it, by arrival) or departures board (flights from it, by departure).",
    "generate": "usage: enroute generate --flights N [--airports M] [--airlines K] [--seed S] --out DIR\n\nWrites FlightAware-format files at any scale: airports.json, airlines.json and airport boards of at most 200 flights each. The same seed writes the same bytes. With --sample instead of the sizes, writes the bundled sample (the KSFO and KORD boards).",
    "status": "usage: enroute status [--store DIR]\n\nThe store's location, transactions and counts.",
]

let flags: Set<String> = ["--help", "-h", "--json", "--enroute", "--desc", "--departing", "--arrivals", "--departures", "--sample"]
let options: Set<String> = ["--store", "--to", "--from", "--airline", "--sort", "--limit", "--search", "--flights", "--airports", "--airlines", "--seed", "--out"]

/// Which options each command accepts (anything else is a usage error).
let accepted: [String: Set<String>] = [
    "demo": [], "status": [], "airlines": ["--json"],
    "load": [],
    "flights": ["--to", "--from", "--airline", "--enroute", "--sort", "--desc", "--limit", "--json"],
    "airports": ["--search", "--departing", "--json"],
    "board": ["--arrivals", "--departures", "--json"],
    "generate": ["--flights", "--airports", "--airlines", "--seed", "--out", "--sample"],
]

@MainActor func defaultStore() -> String {
    let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        ?? FileManager.default.homeDirectoryForCurrentUser.path
    return home + "/.graphstore/enroute"
}

/// A context on the store. Commands that only read open it read-only: beside a running load,
/// and never creating a store where a mistyped --store points (`StorageError.noStore`).
@MainActor func openContext(_ arguments: Arguments, writable: Bool) throws -> ModelContext {
    let url = URL(fileURLWithPath: arguments.value("--store") ?? defaultStore())
    let configuration = ModelConfiguration(url: url, allowsSave: writable, durability: .full, autosaveEnabled: false)
    let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: configuration)
    return ModelContext(container)
}

let clock: DateFormatter = {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "UTC")
    f.dateFormat = "MMM d HH:mm"
    return f
}()

/// Prints a JSON array of `elements`, streamed: a million flights never sit in memory as text.
/// Written on a thread of its own (`BackgroundOutput`) while the next chunks are made.
@MainActor func printJSON<S: Sequence>(_ elements: S, _ value: (S.Element) -> JSONValue) throws {
    try BackgroundOutput.streaming { output in try JSONValue.writeArray(elements, value: value, to: output.write) }
}

/// Prints flights as a JSON array, streamed, each flight's entries written straight into the text.
@MainActor func printJSON(_ flights: [Flight]) throws {
    try BackgroundOutput.streaming { output in try JSONValue.writeArray(flights, entries: write, to: output.write) }
}

/// A flight's entries, in their keys' byte order (the order the object is written in).
@MainActor func write(_ flight: Flight, _ object: inout JSONObjectWriter) {
    // Each stored time read once: `arrival` and `departure` are made of them.
    let actualOff = flight.actualOff, actualOn = flight.actualOn
    let estimatedOff = flight.estimatedOff, estimatedOn = flight.estimatedOn
    object.date("actualOff", actualOff)
    object.date("actualOn", actualOn)
    object.string("aircraftType", flight.aircraftType)
    object.string("airline", flight.airline?.code)
    object.date("arrival", Flight.time(actual: actualOn, estimated: estimatedOn))
    object.date("departure", Flight.time(actual: actualOff, estimated: estimatedOff))
    object.string("destination", flight.destination?.icao)
    object.date("estimatedOff", estimatedOff)
    object.date("estimatedOn", estimatedOn)
    object.int("filedAirspeed", flight.filedAirspeed)
    object.int("filedAltitude", flight.filedAltitude)
    object.string("ident", flight.ident)
    object.string("origin", flight.origin?.icao)
    object.int("progressPercent", flight.progressPercent)
    object.int("routeDistance", flight.routeDistance)
    object.date("scheduledOff", flight.scheduledOff)
    object.date("scheduledOn", flight.scheduledOn)
    object.string("status", flight.status)
}

@MainActor func flightTable(_ flights: [Flight]) -> String {
    Table(headers: ["IDENT", "FROM", "TO", "DEPARTS", "ARRIVES", "MILES", "PROGRESS", "STATUS"],
          rows: flights.map {
              [$0.ident, $0.origin?.icao ?? "-", $0.destination?.icao ?? "-", clock.string(from: $0.departure),
               clock.string(from: $0.arrival), String($0.routeDistance), "\($0.progressPercent)%", $0.shortStatus]
          }, rightAligned: [5, 6]).rendered
}

@MainActor func load(_ files: [URL], into context: ModelContext) throws -> ExitCode {
    let bar = ProgressBar("loading")
    var refused = false
    let total = try EnrouteImporter(context: context).load(files, refused: { refusal in
        bar.finish()
        printError("refused \(refusal)")
        refused = true
    }, loaded: { done in bar.update(Double(done) / Double(files.count)) })
    bar.finish()
    // A checkpoint of what was loaded, so that the next command opens it without replaying
    // the log written since the last background one (up to 64 MiB of it).
    if total.flightsInserted + total.flightsUpdated + total.airportsInserted + total.airportsUpdated
        + total.airlinesInserted + total.airlinesUpdated > 0 {
        try context.container.checkpoint()
    }
    print("flights:  \(total.flightsInserted) inserted, \(total.flightsUpdated) updated, \(total.flightsSkipped) skipped")
    print("airports: \(total.airportsInserted) inserted, \(total.airportsUpdated) updated")
    print("airlines: \(total.airlinesInserted) inserted, \(total.airlinesUpdated) updated, \(total.airlinesSkipped) skipped")
    for reason in total.skipReasons.prefix(10) { print("  skipped \(reason)") }
    if total.skipReasons.count > 10 { print("  … and \(total.skipReasons.count - 10) more") }
    return refused ? .failure : .success
}

@MainActor func run(_ argv: [String]) throws -> ExitCode {
    let arguments: Arguments
    do {
        arguments = try Arguments(argv, flags: flags, options: options)
    } catch {
        printError("enroute: \(error)\n\n\(usage)")
        return .usage
    }
    let command = arguments.positionals.first ?? "demo"
    guard let help = commandHelp[command] else {
        printError("enroute: unknown command \(String(reflecting: command))\n\n\(usage)")
        return .usage
    }
    if arguments.flag("--help") || arguments.flag("-h") {
        print(arguments.positionals.isEmpty ? usage : help)
        return .success
    }
    let given = Set(argv.filter { $0.hasPrefix("--") }.map { String($0.split(separator: "=")[0]) }).subtracting(["--store"])
    if let stray = given.subtracting(accepted[command] ?? []).sorted().first {
        printError("enroute \(command): \(stray) does not apply here\n\n\(help)")
        return .usage
    }
    let rest = Array(arguments.positionals.dropFirst())

    switch command {
    case "generate":
        guard rest.isEmpty, let out = arguments.value("--out") else {
            printError("enroute generate: --flights N and --out DIR are required\n\n\(help)")
            return .usage
        }
        if arguments.flag("--sample") {
            let files = try EnrouteGenerator.sample.write(to: URL(fileURLWithPath: out))
            print("wrote the sample's \(files.count) files to \(out)")
            return .success
        }
        do {
            guard let flights = try arguments.integer("--flights"), flights >= 0 else {
                printError("enroute generate: --flights N is required\n\n\(help)")
                return .usage
            }
            let seed = try arguments.integer("--seed").map { UInt64(max(0, $0)) } ?? 1
            let generator = EnrouteGenerator(flights: flights, airports: try arguments.integer("--airports"),
                                             airlines: try arguments.integer("--airlines"), seed: seed)
            let bar = ProgressBar("generating")
            let files = try generator.write(to: URL(fileURLWithPath: out)) { bar.update($0) }
            bar.finish()
            print("wrote \(files.count) files (\(flights) flights) to \(out)")
            return .success
        } catch let error as Arguments.UsageError {
            printError("enroute generate: \(error)\n\n\(help)")
            return .usage
        }

    case "load":
        let files = rest.isEmpty ? EnrouteSample.files : rest.map { URL(fileURLWithPath: $0) }
        return try load(files, into: try openContext(arguments, writable: true))

    case "flights":
        guard rest.isEmpty else {
            printError("enroute flights: unexpected \(rest.joined(separator: " "))\n\n\(help)")
            return .usage
        }
        var filter = FlightFilter(destination: arguments.value("--to")?.uppercased(), origin: arguments.value("--from")?.uppercased(),
                                  airline: arguments.value("--airline")?.uppercased(), enrouteOnly: arguments.flag("--enroute"),
                                  ascending: !arguments.flag("--desc"))
        if let sort = arguments.value("--sort") {
            guard let value = FlightFilter.Sort(rawValue: sort) else {
                printError("enroute flights: --sort takes distance, departure, arrival or progress\n\n\(help)")
                return .usage
            }
            filter.sort = value
        }
        do {
            if let limit = try arguments.integer("--limit") {
                guard limit >= 0 else { throw Arguments.UsageError("--limit needs a number of at least 0") }
                filter.limit = limit
            }
        } catch {
            printError("enroute flights: \(error)\n\n\(help)")
            return .usage
        }
        let context = try openContext(arguments, writable: false)
        let flights = try context.fetch(filter.fetchDescriptor)
        if arguments.flag("--json") { try printJSON(flights) } else {
            print(flightTable(flights))
            print("\(flights.count) flight(s)")
        }
        // The store is open read-only and everything is written: the process ends here, with
        // its memory, instead of freeing the objects one by one (a third of a second a million).
        withExtendedLifetime((context, flights)) { exit(.success) }

    case "airports":
        guard rest.isEmpty else {
            printError("enroute airports: unexpected \(rest.joined(separator: " "))\n\n\(help)")
            return .usage
        }
        let context = try openContext(arguments, writable: false)
        var airports = try EnrouteQueries.airports(matching: arguments.value("--search") ?? "", in: context)
        if arguments.flag("--departing") {
            let departing = Set(try EnrouteQueries.airportsWithDepartures(in: context).map(\.icao))
            airports = airports.filter { departing.contains($0.icao) }
        }
        if arguments.flag("--json") {
            try printJSON(airports) {
                .object([("icao", .string($0.icao)), ("name", .string($0.name)), ("city", .string($0.city)), ("state", .string($0.state)),
                         ("countryCode", .string($0.countryCode)), ("latitude", .double($0.latitude)), ("longitude", .double($0.longitude)),
                         ("timezone", .string($0.timezone)), ("departures", .int($0.flightsFrom.count)), ("arrivals", .int($0.flightsTo.count))])
            }
        } else {
            print(Table(headers: ["ICAO", "NAME", "CITY", "COUNTRY", "DEPARTURES", "ARRIVALS"],
                        rows: airports.map { [$0.icao, $0.name, $0.city, $0.countryCode, String($0.flightsFrom.count), String($0.flightsTo.count)] },
                        rightAligned: [4, 5]).rendered)
            print("\(airports.count) airport(s)")
        }
        return .success

    case "airlines":
        guard rest.isEmpty else {
            printError("enroute airlines: unexpected \(rest.joined(separator: " "))\n\n\(help)")
            return .usage
        }
        let context = try openContext(arguments, writable: false)
        let airlines = try context.fetch(FetchDescriptor<Airline>(sortBy: [SortDescriptor(\Airline.code)]))
        if arguments.flag("--json") {
            try printJSON(airlines) {
                .object([("code", .string($0.code)), ("name", .string($0.name)), ("shortname", .string($0.shortname)), ("flights", .int($0.flights.count))])
            }
        } else {
            print(Table(headers: ["CODE", "NAME", "SHORT NAME", "FLIGHTS"],
                        rows: airlines.map { [$0.code, $0.name, $0.shortname, String($0.flights.count)] }, rightAligned: [3]).rendered)
            print("\(airlines.count) airline(s)")
        }
        return .success

    case "board":
        guard rest.count == 1, arguments.flag("--arrivals") != arguments.flag("--departures") else {
            printError("enroute board: one ICAO code and one of --arrivals or --departures\n\n\(help)")
            return .usage
        }
        let code = rest[0].uppercased()
        let context = try openContext(arguments, writable: false)
        guard try context.fetchUnique(\Airport.icao, equals: code) != nil else {
            printError("enroute board: no airport \(code) in the store")
            return .failure
        }
        let flights = arguments.flag("--arrivals") ? try EnrouteQueries.arrivals(at: code, in: context)
            : try EnrouteQueries.departures(from: code, in: context)
        if arguments.flag("--json") { try printJSON(flights) } else {
            print("\(code) \(arguments.flag("--arrivals") ? "arrivals" : "departures")")
            print(flightTable(flights))
            print("\(flights.count) flight(s)")
        }
        return .success

    case "status":
        guard rest.isEmpty else {
            printError("enroute status: unexpected \(rest.joined(separator: " "))\n\n\(help)")
            return .usage
        }
        let context = try openContext(arguments, writable: false)
        print("Enroute store at \(arguments.value("--store") ?? defaultStore())")
        print("transactions: \(context.container.lastTransaction)")
        print("flights: \(try context.fetchCount(FetchDescriptor<Flight>())), airports: \(try context.fetchCount(FetchDescriptor<Airport>())), airlines: \(try context.fetchCount(FetchDescriptor<Airline>()))")
        if let tail = context.container.openReport?.tornTail { print("recovered from a torn tail: \(tail)") }
        return .success

    case "demo":
        guard rest.isEmpty else {
            printError("enroute demo: unexpected \(rest.joined(separator: " "))\n\n\(help)")
            return .usage
        }
        return try demo(arguments)

    default:
        printError(usage)
        return .usage
    }
}

@MainActor func demo(_ arguments: Arguments) throws -> ExitCode {
    let store = arguments.value("--store") ?? defaultStore()
    let context = try openContext(arguments, writable: true)
    print("GraphStore Enroute demo — store at \(store)\n")
    if try context.fetchCount(FetchDescriptor<Flight>()) == 0 {
        print("Loading the bundled FlightAware sample (KSFO and KORD boards)…")
        let status = try load(EnrouteSample.files, into: context)
        guard status == .success else { return status }
        print()
    } else {
        print("The store already holds data; using it.\n")
    }
    let flights = try context.fetchCount(FetchDescriptor<Flight>())
    let airports = try context.fetchCount(FetchDescriptor<Airport>())
    let airlines = try context.fetchCount(FetchDescriptor<Airline>())
    let inAir = try context.fetchCount(FetchDescriptor<Flight>(predicate: FlightFilter(enrouteOnly: true).predicate))
    print("\(flights) flights (\(inAir) in the air), \(airports) airports, \(airlines) airlines\n")

    let toSFO = try context.fetch(FlightFilter(destination: "KSFO", enrouteOnly: true, sort: .distance, ascending: false, limit: 5).fetchDescriptor)
    print("In the air to San Francisco, longest first  (enroute flights --to KSFO --enroute --sort distance --desc):")
    print(flightTable(toSFO) + "\n")

    let board = try EnrouteQueries.arrivals(at: "KORD", in: context)
    print("Chicago O'Hare arrivals board, first five  (enroute board KORD --arrivals):")
    print(flightTable(Array(board.prefix(5))) + "\n")

    let search = try EnrouteQueries.airports(matching: "zur", in: context)
    print("Airports matching \"zur\" (case and accents ignored):  (enroute airports --search zur)")
    print(Table(headers: ["ICAO", "NAME", "CITY"], rows: search.map { [$0.icao, $0.name, $0.city] }).rendered)
    print("\nTry: enroute flights --help, enroute airports --departing, enroute board KSFO --departures --json")
    return .success
}

reserveStandardDescriptors()
do {
    exit(try run(Array(CommandLine.arguments.dropFirst())))
} catch {
    printError("enroute: \(error)")
    exit(.failure)
}
