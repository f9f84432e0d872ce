import Synchronization

/// The stable identity of a stored object: its entity and its row number, which is assigned when
/// the object is inserted into a context and never reused. Sendable and Codable, so it can cross
/// actors and be saved by apps; `ModelContext.model(for:)` turns it back into an object.
///
/// Objects that were never inserted have a *temporary* identifier (row 0 and a process-unique token).
public struct PersistentIdentifier: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The entity (model type) the row belongs to.
    public let entityName: String
    /// The row number within the entity (from 1); 0 for a temporary identifier.
    public let row: UInt64
    package let temporaryToken: UInt64

    /// The identifier of `row` of the entity named `entityName`.
    public init(entityName: String, row: UInt64) {
        self.entityName = entityName
        self.row = row
        self.temporaryToken = 0
    }

    private init(temporaryFor entityName: String, token: UInt64) {
        self.entityName = entityName
        self.row = 0
        self.temporaryToken = token
    }

    private static let nextToken = Atomic<UInt64>(1)

    package static func temporary(entityName: String) -> PersistentIdentifier {
        PersistentIdentifier(temporaryFor: entityName, token: nextToken.wrappingAdd(1, ordering: .relaxed).oldValue)
    }

    /// Whether this is the identifier of an object never inserted (row 0): inserting it gives the
    /// object its row, and a permanent identifier.
    public var isTemporary: Bool { row == 0 }

    /// `Entity/row` (`Entity/temporary-N` before insert), as the tools print it.
    public var description: String {
        isTemporary ? "\(entityName)/temporary-\(temporaryToken)" : "\(entityName)/\(row)"
    }

    /// By entity name, then by row.
    public static func < (a: Self, b: Self) -> Bool {
        (a.entityName, a.row, a.temporaryToken) < (b.entityName, b.row, b.temporaryToken)
    }

    package enum CodingKeys: String, CodingKey { case entity, row }

    /// Decodes what `encode(to:)` wrote.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        entityName = try c.decode(String.self, forKey: .entity)
        row = try c.decode(UInt64.self, forKey: .row)
        temporaryToken = 0
        guard row > 0 else {
            throw DecodingError.dataCorruptedError(forKey: .row, in: c, debugDescription: "a temporary identifier cannot be decoded")
        }
    }

    /// Encodes the entity name and the row, so an identifier can be kept and used after a relaunch.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entityName, forKey: .entity)
        try c.encode(row, forKey: .row)
    }
}
