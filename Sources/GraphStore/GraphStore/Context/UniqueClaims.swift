/// The unique keys a save's objects claim, and so the rows that hold them once it commits: by
/// entity and rule (`UniquenessRule.position`), each claim the object that made it, found by a
/// hash of its key. Claims keep no keys: the claimant's key is worked out again to confirm a
/// candidate (a dictionary from the keys was 82 MB for the million claims of an import,
/// beside everything the import holds; a claim here is the claimant's reference and an 8-byte
/// entry).
struct UniqueClaims {
    private var claimants: [ModelBacking] = []
    private var tables: [Int: HashedPositions] = [:]

    /// Room for `count` more claims of one rule without regrowing.
    mutating func reserveCapacity(_ count: Int, entity: Int, rule: Int) {
        claimants.reserveCapacity(claimants.capacity + count)
        tables[Self.table(entity, rule), default: HashedPositions()].reserveCapacity(count)
    }

    /// The row of the object that claims `key` (hashed `hash`) under rule `rule` of `entity`, if
    /// any; `keyOf` works out a claimant's key.
    func row(entity: Int, rule: Int, key: RuleKey, hash: Int, keyOf: (ModelBacking) -> RuleKey?) -> UInt64? {
        claimant(entity: entity, rule: rule, key: key, hash: hash, keyOf: keyOf).map { claimants[$0].row }
    }

    /// `backing` claims `key` (hashed `hash`) under rule `rule` of `entity` for its row, in
    /// place of the object that claimed it before, if one did.
    mutating func claim(entity: Int, rule: Int, key: RuleKey, hash: Int, by backing: ModelBacking, keyOf: (ModelBacking) -> RuleKey?) {
        if let earlier = claimant(entity: entity, rule: rule, key: key, hash: hash, keyOf: keyOf) {
            claimants[earlier] = backing
            return
        }
        claimants.append(backing)
        tables[Self.table(entity, rule), default: HashedPositions()].insert(hash: hash, position: claimants.count - 1)
    }

    private func claimant(entity: Int, rule: Int, key: RuleKey, hash: Int, keyOf: (ModelBacking) -> RuleKey?) -> Int? {
        guard let table = tables[Self.table(entity, rule)] else { return nil }
        return table.first(hash: hash) { keyOf(claimants[$0]) == key }
    }

    private static func table(_ entity: Int, _ rule: Int) -> Int { entity << 32 | rule }
}
