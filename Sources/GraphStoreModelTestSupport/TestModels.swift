import Foundation
import GraphStoreMacrosFree

package final class Airport: Model {
    @Attribute(.unique) package var icao: String = ""
    @Attribute package var name: String = ""
    @Attribute package var latitude: Double = 0
    @Relationship(deleteRule: .cascade, inverse: \Flight.origin) package var flightsFrom: [Flight] = []
    @Relationship(inverse: \Flight.destination) package var flightsTo: [Flight] = []
    @Transient package var lookups = 0

    package convenience init(icao: String, name: String = "") {
        self.init()
        self.icao = icao
        self.name = name
    }
}

package final class Airline: Model {
    @Attribute(.unique) package var code: String = ""
    @Attribute package var name: String = ""
    @Relationship package var flights: [Flight] = []

    package convenience init(code: String) {
        self.init()
        self.code = code
    }
}

package enum FlightStatus: String, Codable, CaseIterable {
    case scheduled, enroute, landed
}

/// In the order of a flight's life, not of the raw values stored: a sort must use this.
extension FlightStatus: Comparable {
    package static func < (a: FlightStatus, b: FlightStatus) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

package final class Flight: Model {
    @Attribute(.unique) package var ident: String = ""
    @Attribute(.indexed) package var routeDistance: Int = 0
    @Attribute package var status: FlightStatus = .scheduled
    @Attribute package var actualOff: Date? = nil
    @Relationship package var origin: Airport?
    @Relationship package var destination: Airport?
    @Relationship package var airline: Airline?

    package convenience init(ident: String) {
        self.init()
        self.ident = ident
    }
}

package struct Gate: Codable, Hashable {
    package var terminal: String
    package var number: Int

    package init(terminal: String, number: Int) {
        self.terminal = terminal
        self.number = number
    }
}

package enum Priority: Int { case low = 1, high = 2 }

/// High first, against the raw values stored: a sort must use this.
extension Priority: Comparable {
    package static func < (a: Priority, b: Priority) -> Bool { a.rawValue > b.rawValue }
}

/// Every storable type, each also optional, for round trips.
package final class Everything: Model {
    @Attribute package var bool: Bool = false
    @Attribute package var int: Int = 0
    @Attribute package var int8: Int8 = 0
    @Attribute package var int16: Int16 = 0
    @Attribute package var int32: Int32 = 0
    @Attribute package var int64: Int64 = 0
    @Attribute package var uint: UInt = 0
    @Attribute package var uint8: UInt8 = 0
    @Attribute package var uint16: UInt16 = 0
    @Attribute package var uint32: UInt32 = 0
    @Attribute package var uint64: UInt64 = 0
    @Attribute package var double: Double = 0
    @Attribute package var float: Float = 0
    @Attribute package var string: String = ""
    @Attribute package var date: Date = Date(timeIntervalSince1970: 0)
    @Attribute package var data: Data = Data()
    @Attribute package var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Attribute package var url: URL = URL(string: "https://example.com")!
    @Attribute package var decimal: Decimal = 0
    @Attribute package var status: FlightStatus = .scheduled
    @Attribute package var priority: Priority = .low
    @Attribute package var gate: Gate = Gate(terminal: "A", number: 1)
    @Attribute package var strings: [String] = []
    @Attribute package var scores: [String: Double] = [:]
    @Attribute package var gates: [Gate] = []
    @Attribute package var optionalBool: Bool? = nil
    @Attribute package var optionalInt: Int? = nil
    @Attribute package var optionalDouble: Double? = nil
    @Attribute package var optionalString: String? = nil
    @Attribute package var optionalDate: Date? = nil
    @Attribute package var optionalData: Data? = nil
    @Attribute package var optionalUUID: UUID? = nil
    @Attribute package var optionalURL: URL? = nil
    @Attribute package var optionalDecimal: Decimal? = nil
    @Attribute package var optionalStatus: FlightStatus? = nil
    @Attribute package var optionalPriority: Priority? = nil
    @Attribute package var optionalGate: Gate? = nil
    @Attribute package var optionalStrings: [String]? = nil
}

/// Refuses to be deleted while it has flights.
package final class Gatekeeper: Model {
    @Attribute package var name: String = ""
    @Relationship(deleteRule: .deny) package var flights: [Flight] = []
}

/// A crew needs two to four members.
package final class Crew: Model {
    @Attribute package var name: String = ""
    @Relationship(minimumModelCount: 2, maximumModelCount: 4) package var members: [Member] = []
}

package final class Member: Model {
    @Attribute package var name: String = ""
    @Relationship package var crew: Crew?
}
