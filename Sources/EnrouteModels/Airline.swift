import Foundation
import GraphStoreMacrosFree

/// An airline, by ICAO airline code (UAL).
public final class Airline: Model {
    @Attribute(.unique) public var code: String = ""
    @Attribute public var name: String = ""
    @Attribute public var shortname: String = ""
    @Relationship(inverse: \Flight.airline) public var flights: [Flight] = []

    public convenience init(code: String) {
        self.init()
        self.code = code
    }

    /// The short name when there is one ("United"), else the full name, else the code.
    public var friendlyName: String { !shortname.isEmpty ? shortname : (!name.isEmpty ? name : code) }
}
