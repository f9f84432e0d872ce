@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// A uniqueness rule of an entity as a save keeps it: one `@Attribute(.unique)` attribute, or a
/// `Schema.Unique` over several properties (a to-one member's value is its target's row). Both
/// are kept the same way: an inserted object whose key a committed row (or an earlier insert of
/// the same save) has takes that row's place — SwiftData's upsert — and a change that would
/// make two rows share a key fails the save.
struct UniquenessRule {
    enum Members {
        /// A unique attribute: its position, and the value an object holds until one is set.
        /// Not the attribute's description, whose names a copy of the rule would retain (an
        /// import looks at every insert's rules).
        case attribute(index: Int, defaultValue: Value)
        case compound(Schema.CompoundIndex)
    }

    let members: Members
    /// Its place among its entity's rules: claims are kept by it.
    let position: Int

    /// How an error names it.
    func name(in entity: Schema.Entity) -> String {
        switch members {
        case let .attribute(index, _): return entity.attributes[index].name
        case let .compound(index): return index.description
        }
    }

    /// An entity's rules: single attributes first (a compound key's to-one member names its
    /// target's row, which single-attribute upserts of the same save may still move).
    static func rules(of entity: Schema.Entity) -> (attributes: [UniquenessRule], compounds: [UniquenessRule]) {
        let attributes = entity.uniqueAttributes.enumerated().map { UniquenessRule(members: .attribute(index: $1.index, defaultValue: $1.defaultValue), position: $0) }
        let compounds = entity.compoundUniques.enumerated().map {
            UniquenessRule(members: .compound($1), position: attributes.count + $0)
        }
        return (attributes, compounds)
    }
}

/// A rule's key: one attribute's value, or the members' values in order.
enum RuleKey: Hashable {
    case single(Value)
    case compound([Value])
}

extension ModelContext {
    /// An inserted object whose unique value an existing row already has: it becomes that row.
    struct Upsert {
        let model: any PersistentModel
        let reservedRow: UInt64
    }

    /// Settles which row each insert takes, under the commit lock: single-attribute rules for
    /// every insert first, then compound ones for the inserts still on their own rows. Returns
    /// the upserts, and the keys every insert now claims (by its final row).
    func resolveUpserts(_ inserts: [any PersistentModel]) -> ([Upsert], UniqueClaims) {
        var upserts: [Upsert] = []
        var claimed = UniqueClaims()
        // Room for every insert's claim of each single-attribute rule of its entity, made without
        // regrowing (a table doubling to a million entries holds the old one beside it).
        var insertsByEntity = [Int](repeating: 0, count: uniqueness.count)
        for model in inserts where model.persistentBacking.entityIndex >= 0 { insertsByEntity[model.persistentBacking.entityIndex] += 1 }
        for (entity, count) in insertsByEntity.enumerated() where count > 0 {
            for rule in uniqueness[entity].attributes { claimed.reserveCapacity(count, entity: entity, rule: rule.position) }
        }
        resolveUpserts(inserts, compounds: false, upserts: &upserts, claimed: &claimed)
        if schema.entities.contains(where: { !$0.compoundUniques.isEmpty }) {
            resolveUpserts(inserts, compounds: true, upserts: &upserts, claimed: &claimed)
        }
        return (upserts, claimed)
    }

    /// One group of rules (single attributes, or compounds) for every insert: the row it takes,
    /// then its claims. Each insert's keys are worked out once, for both (an import runs this
    /// for every object it saves).
    private func resolveUpserts(_ inserts: [any PersistentModel], compounds: Bool, upserts: inout [Upsert], claimed: inout UniqueClaims) {
        let upserted = upserts.isEmpty ? [] : Set(upserts.map { ObjectIdentifier($0.model) })
        var keys: [RuleKey?] = [], hashes: [Int] = []
        for model in inserts {
            let backing = model.persistentBacking
            let entityIndex = backing.entityIndex
            guard entityIndex >= 0 else { continue }
            let rules = compounds ? uniqueness[entityIndex].compounds : uniqueness[entityIndex].attributes
            guard !rules.isEmpty else { continue }
            let entity = schema.entities[entityIndex]
            keys.removeAll(keepingCapacity: true)
            hashes.removeAll(keepingCapacity: true)
            for i in rules.indices {
                let key = pendingKey(backing, rules[i], entity: entity)
                keys.append(key)
                hashes.append(key.map(HashedPositions.hash) ?? 0)
            }
            if !upserted.contains(ObjectIdentifier(model)) {
                var target: UInt64?
                for i in rules.indices {
                    guard let key = keys[i] else { continue }
                    target = claimed.row(entity: entityIndex, rule: rules[i].position, key: key, hash: hashes[i]) {
                        self.pendingKey($0, rules[i], entity: entity)
                    } ?? committedOwner(of: key, rules[i], entity: entity, besides: backing.row)
                    if target != nil { break }
                }
                if let target, target != backing.row {
                    upserts.append(Upsert(model: model, reservedRow: backing.row))
                    backing.row = target
                }
            }
            for i in rules.indices {
                guard let key = keys[i] else { continue }
                claimed.claim(entity: entityIndex, rule: rules[i].position, key: key, hash: hashes[i], by: backing) {
                    self.pendingKey($0, rules[i], entity: entity)
                }
            }
        }
    }

    /// Keys may not collide with another unsaved object's or a committed row's. An insert of an
    /// entity with one rule took the row holding its key when upserts were resolved, so it
    /// cannot collide and is not looked up again (an import has one such lookup per row);
    /// `claimedByInserts` holds what inserts claimed, which changes are checked against.
    func validateUniqueness(inserts: [any PersistentModel], changes: [ModelBacking],
                            upserted: some Sequence<any PersistentModel>, claimedByInserts: consuming UniqueClaims) throws {
        var claimed = claimedByInserts
        // The lists in place, not concatenated (an upsert of every row changes them all).
        func check(_ backing: ModelBacking) throws {
            guard let entity = backing.entity else { return }
            let rules = uniqueness[entity.index].all
            guard !rules.isEmpty, backing.state != .inserted || rules.count > 1 else { return }
            for rule in rules {
                guard backing.state == .inserted || saveChanges(backing, rule),
                      let key = pendingKey(backing, rule, entity: entity) else { continue }
                let hash = HashedPositions.hash(key)
                let keyOf = { self.pendingKey($0, rule, entity: entity) }
                let clash = claimed.row(entity: entity.index, rule: rule.position, key: key, hash: hash, keyOf: keyOf).map { $0 != backing.row } ?? false
                if clash || committedOwner(of: key, rule, entity: entity, besides: backing.row) != nil {
                    throw ModelContextError.uniqueConstraintViolation(entity: entity.name, attribute: rule.name(in: entity),
                                                                      value: describe(key, of: rule, entity: entity))
                }
                claimed.claim(entity: entity.index, rule: rule.position, key: key, hash: hash, by: backing, keyOf: keyOf)
            }
        }
        for model in inserts { try check(model.persistentBacking) }
        for backing in changes { try check(backing) }
        for model in upserted { try check(model.persistentBacking) }
    }

    /// The object's key as this context has it; nil when a member is nil (nil claims nothing).
    private func pendingKey(_ backing: ModelBacking, _ rule: UniquenessRule, entity: Schema.Entity) -> RuleKey? {
        switch rule.members {
        case let .attribute(index, defaultValue):
            let value = backing.changedValue(ofAttribute: index) ?? backing.attributeValue(at: index) ?? defaultValue
            return value == .null ? nil : .single(value)
        case let .compound(index):
            var key: [Value] = []
            for member in index.members {
                switch member {
                case let .attribute(a):
                    let value = backing.attributeValue(at: a) ?? entity.attributes[a].defaultValue
                    if value == .null { return nil }
                    key.append(value)
                case let .toOne(r):
                    guard let target = backing.toOne(at: r), target.persistentBacking.state != .deleted,
                          target.persistentBacking.row > 0 else { return nil }
                    key.append(.int(Int64(target.persistentBacking.row)))
                }
            }
            return .compound(key)
        }
    }

    /// A committed row other than `row` holding `key` that keeps it through this save (not
    /// deleted here, its key not changed here).
    private func committedOwner(of key: RuleKey, _ rule: UniquenessRule, entity: Schema.Entity, besides row: UInt64) -> UInt64? {
        switch (rule.members, key) {
        case let (.attribute(attribute, _), .single(value)):
            guard let owner = graph.row(entity: entity.index, uniqueAttribute: attribute, value: value), owner != row else { return nil }
            if let object = registeredObject(entity: entity.index, row: owner),
               object.persistentBacking.isDeletedOrChangedAway(attribute: attribute, from: value) { return nil }
            return owner
        case let (.compound(index), .compound(values)):
            return graph.rows(entity: entity.index, compound: index.index, key: values).first { owner in
                guard owner != row else { return false }
                guard let object = registeredObject(entity: entity.index, row: owner) else { return true }
                return object.persistentBacking.state != .deleted && pendingKey(object.persistentBacking, rule, entity: entity) == key
            }
        default:
            return nil
        }
    }

    /// Whether this save changes a member of the rule for `backing`.
    private func saveChanges(_ backing: ModelBacking, _ rule: UniquenessRule) -> Bool {
        switch rule.members {
        case let .attribute(index, _): return backing.changedValue(ofAttribute: index) != nil
        case let .compound(index):
            return index.members.contains { member in
                switch member {
                case let .attribute(a): return backing.changedValue(ofAttribute: a) != nil
                case let .toOne(r): return backing.pendingRelationship(at: r) != nil
                }
            }
        }
    }

    /// A key as the error names it: attribute values as stored, a to-one target as its entity and row.
    private func describe(_ key: RuleKey, of rule: UniquenessRule, entity: Schema.Entity) -> String {
        switch (key, rule.members) {
        case let (.compound(values), .compound(index)):
            return zip(index.members, values).map { member, value in
                guard case let .toOne(r) = member, case let .int(row) = value else { return value.description }
                return "\(schema.entities[entity.relationships[r].targetIndex].name) row \(row)"
            }.joined(separator: ", ")
        case let (.single(value), _): return value.description
        case let (.compound(values), _): return values.map(\.description).joined(separator: ", ")
        }
    }
}

/// An entity's uniqueness rules, worked out once per context.
struct EntityUniqueness {
    let attributes: [UniquenessRule]
    let compounds: [UniquenessRule]
    let all: [UniquenessRule]

    init(_ entity: Schema.Entity) {
        (attributes, compounds) = UniquenessRule.rules(of: entity)
        all = attributes + compounds
    }
}
