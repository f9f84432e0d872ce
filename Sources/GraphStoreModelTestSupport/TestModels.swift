import Foundation
import GraphStoreMacrosFree

final class Airport: Model {
    @Attribute(.unique) var icao: String = ""
    @Attribute var name: String = ""
    @Attribute var latitude: Double = 0
    @Relationship(deleteRule: .cascade, inverse: \Flight.origin) var flightsFrom: [Flight] = []
    @Relationship(inverse: \Flight.destination) var flightsTo: [Flight] = []
    @Transient var lookups = 0

    convenience init(icao: String, name: String = "") {
        self.init()
        self.icao = icao
        self.name = name
    }
}

final class Airline: Model {
    @Attribute(.unique) var code: String = ""
    @Attribute var name: String = ""
    @Relationship var flights: [Flight] = []

    convenience init(code: String) {
        self.init()
        self.code = code
    }
}

enum FlightStatus: String, Codable, CaseIterable {
    case scheduled, enroute, landed
}

final class Flight: Model {
    @Attribute(.unique) var ident: String = ""
    @Attribute(.indexed) var routeDistance: Int = 0
    @Attribute var status: FlightStatus = .scheduled
    @Attribute var actualOff: Date? = nil
    @Relationship var origin: Airport?
    @Relationship var destination: Airport?
    @Relationship var airline: Airline?

    convenience init(ident: String) {
        self.init()
        self.ident = ident
    }
}

struct Gate: Codable, Hashable {
    var terminal: String
    var number: Int
}

enum Priority: Int { case low = 1, high = 2 }

/// Every storable type, each also optional, for round trips.
final class Everything: Model {
    @Attribute var bool: Bool = false
    @Attribute var int: Int = 0
    @Attribute var int8: Int8 = 0
    @Attribute var int16: Int16 = 0
    @Attribute var int32: Int32 = 0
    @Attribute var int64: Int64 = 0
    @Attribute var uint: UInt = 0
    @Attribute var uint8: UInt8 = 0
    @Attribute var uint16: UInt16 = 0
    @Attribute var uint32: UInt32 = 0
    @Attribute var uint64: UInt64 = 0
    @Attribute var double: Double = 0
    @Attribute var float: Float = 0
    @Attribute var string: String = ""
    @Attribute var date: Date = Date(timeIntervalSince1970: 0)
    @Attribute var data: Data = Data()
    @Attribute var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Attribute var url: URL = URL(string: "https://example.com")!
    @Attribute var decimal: Decimal = 0
    @Attribute var status: FlightStatus = .scheduled
    @Attribute var priority: Priority = .low
    @Attribute var gate: Gate = Gate(terminal: "A", number: 1)
    @Attribute var strings: [String] = []
    @Attribute var scores: [String: Double] = [:]
    @Attribute var gates: [Gate] = []
    @Attribute var optionalBool: Bool? = nil
    @Attribute var optionalInt: Int? = nil
    @Attribute var optionalDouble: Double? = nil
    @Attribute var optionalString: String? = nil
    @Attribute var optionalDate: Date? = nil
    @Attribute var optionalData: Data? = nil
    @Attribute var optionalUUID: UUID? = nil
    @Attribute var optionalURL: URL? = nil
    @Attribute var optionalDecimal: Decimal? = nil
    @Attribute var optionalStatus: FlightStatus? = nil
    @Attribute var optionalPriority: Priority? = nil
    @Attribute var optionalGate: Gate? = nil
    @Attribute var optionalStrings: [String]? = nil
}

/// Refuses to be deleted while it has flights.
final class Gatekeeper: Model {
    @Attribute var name: String = ""
    @Relationship(deleteRule: .deny) var flights: [Flight] = []
}

/// A crew needs two to four members.
final class Crew: Model {
    @Attribute var name: String = ""
    @Relationship(minimumModelCount: 2, maximumModelCount: 4) var members: [Member] = []
}

final class Member: Model {
    @Attribute var name: String = ""
    @Relationship var crew: Crew?
}
