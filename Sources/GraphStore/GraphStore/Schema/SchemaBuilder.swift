@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Builds the resolved `Schema` from the models' declarations: collects the types reachable
/// through relationships, pairs inverses (declared, or inferred where unambiguous), and numbers
/// everything in declaration order. Numbers are deterministic, so an unchanged schema numbers
/// the same way every time; the store's schema records map older numberings (`LogTranslator`).
enum SchemaBuilder {
    static func build(types: [any PersistentModel.Type], version: Schema.Version? = nil) throws -> Schema {
        let declarations = try collect(types)
        let inverses = try pairInverses(declarations)
        let indexByName = Dictionary(uniqueKeysWithValues: declarations.enumerated().map { ($1.name, $0) })

        var nextProperty: PropertyNumber = 1
        func number() -> PropertyNumber {
            defer { nextProperty += 1 }
            return nextProperty
        }
        var entities: [Schema.Entity] = []
        for (entityIndex, declaration) in declarations.enumerated() {
            let entityNumber = EntityNumber(entityIndex + 1)
            let (compound, singleOptions) = try constraints(of: declaration)
            var attributes: [Schema.Attribute] = []
            for (i, a) in declaration.attributes.enumerated() {
                attributes.append(Schema.Attribute(name: a.name, index: i, number: number(), type: a.type,
                                                   options: a.options.union(singleOptions[i] ?? []),
                                                   originalName: a.originalName, defaultValue: a.defaultValue))
            }
            var relationships: [Schema.Relationship] = []
            for (i, r) in declaration.relationships.enumerated() {
                let n = number()
                let targetName = try entityName(of: r.target)
                let inverse = inverses[RelationshipReference(entity: entityIndex, relationship: i)]
                relationships.append(Schema.Relationship(
                    name: r.name, index: i, number: n, entityIndex: entityIndex, targetIndex: indexByName[targetName]!,
                    targetName: targetName, isToMany: r.isToMany, deleteRule: r.deleteRule, inverse: inverse,
                    inverseName: inverse.map { declarations[$0.entity].relationships[$0.relationship].name },
                    minimumCount: r.minimumCount, maximumCount: r.maximumCount, originalName: r.originalName))
            }
            entities.append(Schema.Entity(name: declaration.name, index: entityIndex, number: entityNumber, type: declaration.type,
                                   attributes: attributes, relationships: relationships, originalName: declaration.originalName,
                                   compoundIndexes: compound, propertyNamer: declaration.propertyName))
        }
        return Schema(entities: entities, nextEntityNumber: EntityNumber(entities.count + 1), nextPropertyNumber: nextProperty, versionIdentifier: version)
    }

    /// A declaration's `Schema.Unique` and `Schema.Index` lists: those over one attribute become
    /// that attribute's `.unique` or `.indexed` option (by attribute position); the others are
    /// compound indexes.
    static func constraints(of declaration: EntityDeclaration) throws -> ([Schema.CompoundIndex], [Int: AttributeOptions]) {
        var compound: [Schema.CompoundIndex] = []
        var single: [Int: AttributeOptions] = [:]
        var seen: Set<[Schema.CompoundIndex.Member]> = []
        for constraint in declaration.constraints {
            for keyPaths in constraint.keyPaths {
                guard !keyPaths.isEmpty else { throw SchemaError.invalidConstraint(entity: declaration.name, reason: "an empty key-path list") }
                var members: [Schema.CompoundIndex.Member] = []
                var names: [String] = []
                for keyPath in keyPaths {
                    guard let name = declaration.propertyName(keyPath) else {
                        throw SchemaError.invalidConstraint(entity: declaration.name, reason: "\(keyPath) is not a persistent property")
                    }
                    if let a = declaration.attributes.firstIndex(where: { $0.name == name }) {
                        members.append(.attribute(a))
                    } else if let r = declaration.relationships.firstIndex(where: { $0.name == name }), !declaration.relationships[r].isToMany {
                        members.append(.toOne(r))
                    } else {
                        throw SchemaError.invalidConstraint(entity: declaration.name,
                                                            reason: "\(name) is a to-many relationship; only attributes and to-one relationships can be constrained")
                    }
                    guard Set(members).count == members.count else {
                        throw SchemaError.invalidConstraint(entity: declaration.name, reason: "\(name) appears twice in one list")
                    }
                    names.append(name)
                }
                if members.count == 1, case let .attribute(a) = members[0] {
                    single[a, default: []].formUnion(constraint.isUnique ? .unique : .indexed)
                    continue
                }
                if seen.contains(members), !constraint.isUnique { continue }
                if seen.contains(members), let i = compound.firstIndex(where: { $0.members == members }) {
                    // Declared as an index and as unique: unique.
                    compound[i] = Schema.CompoundIndex(index: i, members: members, isUnique: true, memberNames: names)
                    continue
                }
                seen.insert(members)
                compound.append(Schema.CompoundIndex(index: compound.count, members: members, isUnique: constraint.isUnique, memberNames: names))
            }
        }
        return (compound, single)
    }

    static func entityName(of type: any PersistentModel.Type) throws -> String {
        try type.entityDeclaration().name
    }

    /// The declarations of `types` and of every type reachable through their relationships, in a stable order.
    static func collect(_ types: [any PersistentModel.Type]) throws -> [EntityDeclaration] {
        var result: [EntityDeclaration] = []
        var seen: Set<ObjectIdentifier> = []
        var names: Set<String> = []
        var queue = types
        while !queue.isEmpty {
            let type = queue.removeFirst()
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            let declaration = try type.entityDeclaration()
            guard names.insert(declaration.name).inserted else { throw SchemaError.duplicateEntity(name: declaration.name) }
            guard !declaration.attributes.isEmpty || !declaration.relationships.isEmpty else {
                throw SchemaError.noPersistentProperties(entity: declaration.name)
            }
            result.append(declaration)
            queue.append(contentsOf: declaration.relationships.map(\.target))
        }
        return result
    }

    /// Pairs every relationship with its inverse: declared ones first (from either side), then
    /// inferred where each side has exactly one unpaired relationship to the other.
    static func pairInverses(_ declarations: [EntityDeclaration]) throws -> [RelationshipReference: RelationshipReference] {
        let indexByType = Dictionary(uniqueKeysWithValues: declarations.enumerated().map { (ObjectIdentifier($1.type), $0) })
        var pairs: [RelationshipReference: RelationshipReference] = [:]
        func target(_ r: RelationshipDeclaration) -> Int { indexByType[ObjectIdentifier(r.target)]! }

        for (e, declaration) in declarations.enumerated() {
            for (i, r) in declaration.relationships.enumerated() {
                guard let keyPath = r.inverse else { continue }
                let t = target(r)
                let here = RelationshipReference(entity: e, relationship: i)
                guard let name = declarations[t].propertyName(keyPath),
                      let j = declarations[t].relationships.firstIndex(where: { $0.name == name }) else {
                    throw SchemaError.invalidInverse(entity: declaration.name, relationship: r.name,
                                                     reason: "\(keyPath) is not a relationship of \(declarations[t].name)")
                }
                let there = RelationshipReference(entity: t, relationship: j)
                guard target(declarations[t].relationships[j]) == e else {
                    throw SchemaError.invalidInverse(entity: declaration.name, relationship: r.name,
                                                     reason: "\(declarations[t].name).\(name) does not point back to \(declaration.name)")
                }
                if let existing = pairs[here], existing != there {
                    throw SchemaError.invalidInverse(entity: declaration.name, relationship: r.name, reason: "declared with two different inverses")
                }
                if let existing = pairs[there], existing != here {
                    throw SchemaError.invalidInverse(entity: declaration.name, relationship: r.name,
                                                     reason: "\(declarations[t].name).\(name) is already the inverse of another relationship")
                }
                pairs[here] = there
                pairs[there] = here
            }
        }

        for (e, declaration) in declarations.enumerated() {
            for (i, r) in declaration.relationships.enumerated() {
                let here = RelationshipReference(entity: e, relationship: i)
                guard pairs[here] == nil else { continue }
                let t = target(r)
                if t == e { continue }  // self-relationships pair only when declared
                let mine = declaration.relationships.indices.filter {
                    target(declaration.relationships[$0]) == t && pairs[RelationshipReference(entity: e, relationship: $0)] == nil
                }
                let theirs = declarations[t].relationships.indices.filter {
                    target(declarations[t].relationships[$0]) == e && pairs[RelationshipReference(entity: t, relationship: $0)] == nil
                }
                if theirs.isEmpty { continue }  // a one-way relationship
                guard mine.count == 1, theirs.count == 1 else {
                    let candidates = theirs.map { "\(declarations[t].name).\(declarations[t].relationships[$0].name)" }
                    throw SchemaError.ambiguousInverse(entity: declaration.name, relationship: r.name, candidates: candidates)
                }
                let there = RelationshipReference(entity: t, relationship: theirs[0])
                pairs[here] = there
                pairs[there] = here
            }
        }
        return pairs
    }
}
