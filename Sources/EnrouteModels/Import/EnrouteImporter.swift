import Foundation
import GraphStoreMacrosFree

/// Loads FlightAware files into a store: an upsert by ident, icao and code, one transaction per
/// file. Airports and airlines a flight names before their own records arrive are created with
/// just their code and completed when the records come. Loading the same file twice changes
/// nothing (values are only written when they differ, so the second load commits nothing).
public struct EnrouteImporter {
    public struct Report: Equatable, Sendable, CustomStringConvertible {
        public var flightsInserted = 0
        public var flightsUpdated = 0
        public var flightsSkipped = 0
        public var airportsInserted = 0
        public var airportsUpdated = 0
        public var airlinesInserted = 0
        public var airlinesUpdated = 0
        public var airlinesSkipped = 0
        /// Why flights were skipped, one line each ("$.arrivals[3]: no ident").
        public var skipReasons: [String] = []

        public init() {}

        public mutating func add(_ other: Report) {
            flightsInserted += other.flightsInserted
            flightsUpdated += other.flightsUpdated
            flightsSkipped += other.flightsSkipped
            airportsInserted += other.airportsInserted
            airportsUpdated += other.airportsUpdated
            airlinesInserted += other.airlinesInserted
            airlinesUpdated += other.airlinesUpdated
            airlinesSkipped += other.airlinesSkipped
            skipReasons += other.skipReasons
        }

        public var description: String {
            "flights: \(flightsInserted) inserted, \(flightsUpdated) updated, \(flightsSkipped) skipped; "
                + "airports: \(airportsInserted) inserted, \(airportsUpdated) updated; "
                + "airlines: \(airlinesInserted) inserted, \(airlinesUpdated) updated, \(airlinesSkipped) skipped"
        }
    }

    public let context: ModelContext

    public init(context: ModelContext) {
        self.context = context
    }

    /// Decodes and stores one file as one transaction. A refused file throws
    /// `FlightAwareFile.Refusal` and stores nothing.
    @discardableResult
    public func load(_ url: URL) throws -> Report {
        try store(try FlightAwareFile.load(url), file: url.lastPathComponent)
    }

    /// Loads `urls` in order, each file one transaction as `load(_:)` stores it, while the next
    /// files are read and decoded on a second thread (`FlightAwareReadAhead`). A refused file is
    /// passed to `refused`, stores nothing, and the load goes on; `loaded` is told how many files
    /// are done. An error storing a file stops the load and is thrown; the files before it stay
    /// stored.
    @discardableResult
    public func load(_ urls: [URL], refused: (FlightAwareFile.Refusal) -> Void = { _ in },
                     loaded: (Int) -> Void = { _ in }) throws -> Report {
        let files = FlightAwareReadAhead(urls)
        defer { files.cancel() }
        var total = Report()
        var done = 0
        while let (url, file) = files.next() {
            switch file {
            case let .success(decoded): total.add(try store(decoded, file: url.lastPathComponent))
            case let .failure(refusal): refused(refusal)
            }
            done += 1
            loaded(done)
        }
        return total
    }

    /// Stores one decoded file as one transaction.
    @discardableResult
    public func store(_ file: FlightAwareFile, file name: String = "") throws -> Report {
        var report = Report()
        var touched = Touched()
        do {
            switch file {
            case let .airports(records):
                for record in records { try apply(record, report: &report, touched: &touched) }
            case let .airlines(records):
                for (i, record) in records.enumerated() {
                    guard let code = record.icao, !code.isEmpty else {
                        report.airlinesSkipped += 1
                        report.skipReasons.append("\(name) $[\(i)]: airline without an icao code")
                        continue
                    }
                    try apply(record, code: code, report: &report, touched: &touched)
                }
            case let .airportFlights(document):
                let groups = [("arrivals", document.arrivals), ("departures", document.departures),
                              ("scheduled_arrivals", document.scheduledArrivals), ("scheduled_departures", document.scheduledDepartures)]
                for (group, flights) in groups {
                    for (i, record) in flights.enumerated() {
                        if let reason = Self.missing(record) {
                            report.flightsSkipped += 1
                            report.skipReasons.append("\(name) $.\(group)[\(i)]: \(reason)")
                            continue
                        }
                        try apply(record, report: &report, touched: &touched)
                    }
                }
            }
            try context.save()
        } catch {
            context.rollback()
            throw error
        }
        return report
    }

    /// What a flight record lacks to be a Flight, if anything.
    static func missing(_ record: FlightAwareFlight) -> String? {
        guard let ident = record.ident, !ident.isEmpty else { return "no ident" }
        guard let origin = record.origin?.code, !origin.isEmpty else { return "\(ident) has no origin code" }
        guard let destination = record.destination?.code, !destination.isEmpty else { return "\(ident) has no destination code" }
        guard record.scheduledOff != nil, record.scheduledOn != nil else { return "\(ident) has no scheduled times" }
        return nil
    }

    /// Objects this file inserted or changed, so each counts once however often it appears.
    private struct Touched {
        var inserted: Set<ObjectIdentifier> = []
        var updated: Set<ObjectIdentifier> = []

        /// Records a change to `model`; true if it is the first time this file touched it.
        mutating func note(_ model: AnyObject, isNew: Bool) -> Bool {
            let id = ObjectIdentifier(model)
            if isNew { return inserted.insert(id).inserted }
            if inserted.contains(id) { return false }
            return updated.insert(id).inserted
        }
    }

    private func airport(_ code: String, report: inout Report, touched: inout Touched) throws -> Airport {
        try findOrInsert(\Airport.icao, code, counting: \.airportsInserted, report: &report, touched: &touched) { Airport(icao: code) }
    }

    private func airline(_ code: String, report: inout Report, touched: inout Touched) throws -> Airline {
        try findOrInsert(\Airline.code, code, counting: \.airlinesInserted, report: &report, touched: &touched) { Airline(code: code) }
    }

    /// The object whose unique `key` is `code`, or a new one from `make`, counted in the report once.
    private func findOrInsert<T: PersistentModel>(_ key: KeyPath<T, String>, _ code: String, counting counter: WritableKeyPath<Report, Int>,
                                                  report: inout Report, touched: inout Touched, make: () -> T) throws -> T {
        var created = false
        let object = try context.findOrInsert(key, equals: code) {
            created = true
            return make()
        }
        if created, touched.note(object, isNew: true) { report[keyPath: counter] += 1 }
        return object
    }

    private func apply(_ record: FlightAwareAirport, report: inout Report, touched: inout Touched) throws {
        let airport = try airport(record.airportCode, report: &report, touched: &touched)
        var changed = false
        changed = update(airport, \.name, record.name ?? airport.name) || changed
        changed = update(airport, \.city, record.city ?? airport.city) || changed
        changed = update(airport, \.state, record.state ?? airport.state) || changed
        changed = update(airport, \.countryCode, record.countryCode ?? airport.countryCode) || changed
        changed = update(airport, \.latitude, record.latitude ?? airport.latitude) || changed
        changed = update(airport, \.longitude, record.longitude ?? airport.longitude) || changed
        changed = update(airport, \.timezone, record.timezone ?? airport.timezone) || changed
        if changed, touched.note(airport, isNew: false) { report.airportsUpdated += 1 }
    }

    private func apply(_ record: FlightAwareAirline, code: String, report: inout Report, touched: inout Touched) throws {
        let airline = try airline(code, report: &report, touched: &touched)
        var changed = false
        changed = update(airline, \.name, record.name ?? airline.name) || changed
        changed = update(airline, \.shortname, record.shortname ?? airline.shortname) || changed
        if changed, touched.note(airline, isNew: false) { report.airlinesUpdated += 1 }
    }

    private func apply(_ record: FlightAwareFlight, report: inout Report, touched: inout Touched) throws {
        let ident = record.ident!
        var created = false
        let flight = try context.findOrInsert(\Flight.ident, equals: ident) {
            created = true
            return Flight(ident: ident)
        }
        var changed = false
        changed = update(flight, \.scheduledOff, record.scheduledOff!) || changed
        changed = update(flight, \.scheduledOn, record.scheduledOn!) || changed
        changed = update(flight, \.estimatedOff, record.estimatedOff ?? record.scheduledOff!) || changed
        changed = update(flight, \.estimatedOn, record.estimatedOn ?? record.scheduledOn!) || changed
        changed = update(flight, \.actualOff, record.actualOff) || changed
        changed = update(flight, \.actualOn, record.actualOn) || changed
        changed = update(flight, \.aircraftType, record.aircraftType ?? flight.aircraftType) || changed
        changed = update(flight, \.progressPercent, record.progressPercent ?? flight.progressPercent) || changed
        changed = update(flight, \.status, record.status ?? flight.status) || changed
        changed = update(flight, \.routeDistance, record.routeDistance ?? flight.routeDistance) || changed
        changed = update(flight, \.filedAirspeed, record.filedAirspeed ?? flight.filedAirspeed) || changed
        changed = update(flight, \.filedAltitude, record.filedAltitude ?? flight.filedAltitude) || changed
        let origin = try airport(record.origin!.code!, report: &report, touched: &touched)
        let destination = try airport(record.destination!.code!, report: &report, touched: &touched)
        let airlineCode = Flight.airlineCode(ofIdent: ident)
        let airline = airlineCode.isEmpty ? nil : try airline(airlineCode, report: &report, touched: &touched)
        if flight.origin !== origin { flight.origin = origin; changed = true }
        if flight.destination !== destination { flight.destination = destination; changed = true }
        if flight.airline !== airline { flight.airline = airline; changed = true }
        if created {
            if touched.note(flight, isNew: true) { report.flightsInserted += 1 }
        } else if changed, touched.note(flight, isNew: false) {
            report.flightsUpdated += 1
        }
    }

    /// Assigns only when the value differs, so re-importing the same data changes nothing.
    private func update<M: AnyObject, V: Equatable>(_ model: M, _ keyPath: ReferenceWritableKeyPath<M, V>, _ value: V) -> Bool {
        guard model[keyPath: keyPath] != value else { return false }
        model[keyPath: keyPath] = value
        return true
    }
}
