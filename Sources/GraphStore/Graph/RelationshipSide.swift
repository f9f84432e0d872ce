/// A relationship as linking and query plans read it: positions and flags, no schema
/// description (copying one retains its names and types).
package struct RelationshipSide: Sendable {
    package let entity: Int
    package let index: Int
    package let target: Int
    package let isToMany: Bool
    /// The other side's entity and relationship positions, and whether it is a to-many.
    package let inverse: (entity: Int, index: Int, isToMany: Bool)?

    package init(_ relationship: Schema.Relationship, in schema: Schema) {
        entity = relationship.entityIndex
        index = relationship.index
        target = relationship.targetIndex
        isToMany = relationship.isToMany
        inverse = relationship.inverse.map { ($0.entity, $0.relationship, schema.entities[$0.entity].relationships[$0.relationship].isToMany) }
    }
}
