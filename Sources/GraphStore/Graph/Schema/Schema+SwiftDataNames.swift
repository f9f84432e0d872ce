/// SwiftData's names for what the schema knows, beside GraphStore's own.
extension Schema {
    /// The declaring `VersionedSchema`'s version, or 1.0.0 as SwiftData's default.
    public var version: Version { versionIdentifier ?? Version(1, 0, 0) }

    /// Every entity by its name.
    public var entitiesByName: [String: Schema.Entity] {
        Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0) })
    }
}

extension Schema.Attribute {
    /// Whether the attribute may hold nil (its type is optional).
    public var isOptional: Bool { type.isOptional }
}

extension Schema.Relationship {
    /// SwiftData's name for the delete rule type.
    public typealias DeleteRule = GraphStoreGraph.DeleteRule

    /// The target entity's name.
    public var destination: String { targetName }
    /// Whether the relationship holds one model (not an array).
    public var isToOneRelationship: Bool { !isToMany }
    /// A to-one declared as an optional, or any to-many.
    public var isOptional: Bool { isToMany || (minimumCount ?? 0) == 0 }
    /// SwiftData's name for `minimumCount`.
    public var minimumModelCount: Int? { minimumCount }
    /// SwiftData's name for `maximumCount`.
    public var maximumModelCount: Int? { maximumCount }
}
