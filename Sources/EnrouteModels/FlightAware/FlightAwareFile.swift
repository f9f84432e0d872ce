import Foundation

/// A FlightAware JSON file, decoded whole, or refused whole with the file, the JSON path and
/// the field that is wrong.
public enum FlightAwareFile: Equatable, Sendable {
    case airportFlights(FlightAwareAirportFlights)
    case airports([FlightAwareAirport])
    case airlines([FlightAwareAirline])

    /// Why a file was refused. Nothing of a refused file is stored.
    public struct Refusal: Error, Equatable, CustomStringConvertible, Sendable {
        public var file: String
        /// Where in the document, as a JSON path ("$.arrivals[3].route_distance"); "$" for the whole.
        public var path: String
        public var reason: String

        public var description: String { "\(file): \(path): \(reason)" }
    }

    /// Decodes `data` (read from `file`, named in errors).
    public static func decode(_ data: Data, file: String) throws -> FlightAwareFile {
        // A board file (an object), the bulk of any load, is decoded in one pass; one that does
        // not decode takes the checked path below, which says what is wrong and where.
        if firstByte(of: data) == UInt8(ascii: "{"), let document = try? makeDecoder().decode(FlightAwareAirportFlights.self, from: data) {
            return .airportFlights(document)
        }
        return try decodeChecked(data, file: file)
    }

    /// The first byte that is not JSON whitespace.
    private static func firstByte(of data: Data) -> UInt8? {
        data.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
    }

    /// A decoder of ISO 8601 UTC times, with the failing field named in the error (the built-in
    /// strategy names only its object).
    private static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = FeedTime.date(text) ?? (try? Date(text, strategy: .iso8601)) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected an ISO 8601 time, found \(String(reflecting: text))")
        }
        return decoder
    }

    /// Parses the whole document first, to tell the three kinds of file apart and to refuse one
    /// with the path and reason of what is wrong.
    private static func decodeChecked(_ data: Data, file: String) throws -> FlightAwareFile {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            if let number = JSONNumberCheck.firstUnrepresentableNumber(in: [UInt8](data)) { throw outOfRange(number, file: file) }
            throw Refusal(file: file, path: "$", reason: "not valid JSON (\(describe(error)))")
        }
        let decoder = makeDecoder()
        do {
            if let object = json as? [String: Any] {
                guard object["arrivals"] != nil || object["departures"] != nil
                    || object["scheduled_arrivals"] != nil || object["scheduled_departures"] != nil else {
                    throw Refusal(file: file, path: "$", reason: "an object without arrivals, departures, scheduled_arrivals or scheduled_departures: not an airport-flights document")
                }
                return .airportFlights(try decoder.decode(FlightAwareAirportFlights.self, from: data))
            }
            if let array = json as? [Any] {
                guard let first = array.first else { return .airports([]) }
                guard let entry = first as? [String: Any] else {
                    throw Refusal(file: file, path: "$[0]", reason: "expected an object")
                }
                if entry["airport_code"] != nil { return .airports(try decoder.decode([FlightAwareAirport].self, from: data)) }
                if entry.keys.contains("icao") || entry.keys.contains("callsign") {
                    return .airlines(try decoder.decode([FlightAwareAirline].self, from: data))
                }
                throw Refusal(file: file, path: "$[0]", reason: "neither an airport (airport_code) nor an airline (icao)")
            }
            throw Refusal(file: file, path: "$", reason: "expected an object or an array")
        } catch let refusal as Refusal {
            throw refusal
        } catch let error as DecodingError {
            // A number the decoder cannot hold is refused as "not valid JSON", at no path: say where and what.
            if case .dataCorrupted = error, let number = JSONNumberCheck.firstUnrepresentableNumber(in: [UInt8](data)) {
                throw outOfRange(number, file: file)
            }
            throw refusal(error, file: file)
        }
    }

    private static func outOfRange(_ number: JSONNumberCheck.Finding, file: String) -> Refusal {
        Refusal(file: file, path: number.path, reason: "the number \(number.literal) is out of range")
    }

    /// Reads and decodes the file at `url`.
    public static func load(_ url: URL) throws -> FlightAwareFile {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw Refusal(file: url.path, path: "$", reason: "cannot be read (\(describe(error)))")
        }
        return try decode(data, file: url.path)
    }

    private static func refusal(_ error: DecodingError, file: String) -> Refusal {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            (codingPath + (last.map { [$0] } ?? [])).reduce("$") { path, key in
                if let index = key.intValue { return path + "[\(index)]" }
                return path + "." + key.stringValue
            }
        }
        switch error {
        case let .typeMismatch(type, context):
            return Refusal(file: file, path: path(context.codingPath), reason: "expected \(describeType(type))")
        case let .valueNotFound(type, context):
            return Refusal(file: file, path: path(context.codingPath), reason: "null where \(describeType(type)) is required")
        case let .keyNotFound(key, context):
            return Refusal(file: file, path: path(context.codingPath, key), reason: "missing field \(key.stringValue)")
        case let .dataCorrupted(context):
            return Refusal(file: file, path: path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return Refusal(file: file, path: "$", reason: "\(error)")
        }
    }

    private static func describeType(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        case is Date.Type: return "an ISO 8601 time"
        default:
            let name = String(describing: type)
            return name.hasPrefix("Array") ? "an array" : (name.hasPrefix("Dictionary") ? "an object" : "an object (\(name))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}
