import GraphStoreCore
import GraphStoreGraph

/// Uniqueness over several properties (`Schema.Unique`) at save, as `@Attribute(.unique)` has
/// it over one: an inserted object whose values match a committed row's (or an earlier insert's
/// of the same save) takes that row's place, and a change that would make two rows share them
/// fails the save. Called under the commit lock, after single-attribute upserts have settled
/// which rows the inserts take (a to-one member's value is its target's row).
extension ModelContext {
    /// entity → compound index → key → the row that has it in this save.
    typealias CompoundClaims = [Int: [Int: [[Value]: UInt64]]]

    func resolveCompoundUpserts(_ inserts: [any PersistentModel], upserts: inout [Upsert]) -> CompoundClaims {
        var claimed: CompoundClaims = [:]
        let upserted = Set(upserts.map { ObjectIdentifier($0.model) })
        for model in inserts {
            let backing = model.persistentBacking
            guard let entity = backing.entity, !entity.compoundUniques.isEmpty else { continue }
            if !upserted.contains(ObjectIdentifier(model)) {
                var target: UInt64?
                for c in entity.compoundUniques {
                    guard let key = pendingCompoundKey(model, c, entity: entity) else { continue }
                    if let earlier = claimed[entity.index]?[c.index]?[key] {
                        target = earlier
                    } else if let owner = committedCompoundOwner(entity: entity, c, key: key, besides: backing.row) {
                        target = owner
                    }
                    if target != nil { break }
                }
                if let target, target != backing.row {
                    upserts.append(Upsert(model: model, reservedRow: backing.row))
                    backing.row = target
                }
            }
            for c in entity.compoundUniques {
                if let key = pendingCompoundKey(model, c, entity: entity) { claimed[entity.index, default: [:]][c.index, default: [:]][key] = backing.row }
            }
        }
        return claimed
    }

    /// Changed objects whose compound-unique members changed may not take values another row has.
    func validateCompoundUnique(changes: [any PersistentModel], claimedByInserts: CompoundClaims) throws {
        var claimed = claimedByInserts
        for model in changes {
            let backing = model.persistentBacking
            guard let entity = backing.entity, !entity.compoundUniques.isEmpty else { continue }
            for c in entity.compoundUniques where membersChanged(backing, c) {
                guard let key = pendingCompoundKey(model, c, entity: entity) else { continue }
                let clash = claimed[entity.index]?[c.index]?[key].map { $0 != backing.row } ?? false
                if clash || committedCompoundOwner(entity: entity, c, key: key, besides: backing.row) != nil {
                    throw ModelContextError.uniqueConstraintViolation(entity: entity.name, attribute: c.description,
                                                                      value: describe(key, of: c, entity: entity))
                }
                claimed[entity.index, default: [:]][c.index, default: [:]][key] = backing.row
            }
        }
    }

    /// A key as the error names it: attribute values as stored, a to-one target as its entity and row.
    private func describe(_ key: [Value], of c: Schema.CompoundIndex, entity: Schema.Entity) -> String {
        zip(c.members, key).map { member, value in
            guard case let .toOne(r) = member, case let .int(row) = value else { return value.description }
            return "\(schema.entities[entity.relationships[r].targetIndex].name) row \(row)"
        }.joined(separator: ", ")
    }

    private func membersChanged(_ backing: ModelBacking, _ c: Schema.CompoundIndex) -> Bool {
        c.members.contains { member in
            switch member {
            case let .attribute(a): return backing.attributeChanges[a] != nil
            case let .toOne(r): return backing.relationshipChanges[r] != nil
            }
        }
    }

    /// The object's key in `c` as this context has it; nil when a member is nil.
    func pendingCompoundKey(_ model: any PersistentModel, _ c: Schema.CompoundIndex, entity: Schema.Entity) -> [Value]? {
        let backing = model.persistentBacking
        var key: [Value] = []
        for member in c.members {
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
        return key
    }

    /// A committed row other than `row` holding `key` in `c` that keeps it through this save
    /// (not deleted here, its key not changed here).
    private func committedCompoundOwner(entity: Schema.Entity, _ c: Schema.CompoundIndex, key: [Value], besides row: UInt64) -> UInt64? {
        graph.rows(entity: entity.index, compound: c.index, key: key).first { owner in
            guard owner != row else { return false }
            guard let object = registeredObject(entity: entity.index, row: owner) else { return true }
            return object.persistentBacking.state != .deleted && pendingCompoundKey(object, c, entity: entity) == key
        }
    }
}
