@_spi(GraphStoreInternals) import GraphStoreGraph

/// How a saved object's to-many reads and saves with what other contexts saved to it since
/// this context changed it (to-many relationships always merge; Docs/guides/concurrency.md),
/// and how the members' own unsaved to-ones, which say where this context put each member,
/// decide over what the lists show (a flight's airline over an airline's flights).
extension ModelContext {
    /// `pending`'s whole new list with what other contexts saved to the list since it was set
    /// (an unsaved object's list is its own: the graph is not read). `followingToOnes`: see
    /// `ModelBacking.toMany(at:includingDeleted:followingToOnes:)`.
    func mergedWholeList(_ pending: PendingToMany, of backing: ModelBacking, relationship index: Int,
                         followingToOnes: Bool = true) -> [any PersistentModel] {
        guard pending.replaced != nil, let entity = backing.entity else { return pending.base ?? [] }
        let relationship = entity.relationships[index], names = ownToOneNames(backing, relationship)
        return pending.merged(committed: committedToManyRows(of: backing, relationship: index),
                              namesThisList: followingToOnes ? names : { names($0) == true ? true : nil },
                              object: addedByOthers(to: backing, relationship: relationship, names: names))
    }

    /// Where this context's own unsaved to-one of a member (a flight's airline, for an
    /// airline's flights) puts it: true in `backing`'s list, false in another, nil when the
    /// member has none (or the list has no such inverse). The list follows it, whatever other
    /// contexts saved, as the to-one reads.
    func ownToOneNames(_ backing: ModelBacking, _ relationship: Schema.Relationship) -> (any PersistentModel) -> Bool? {
        let inverse = inverseToOne(of: relationship)
        return { member in
            guard let inverse, case let .toOne(owner)? = member.persistentBacking.pendingRelationship(at: inverse) else { return nil }
            return owner?.persistentBacking === backing
        }
    }

    /// The object of a committed member that another context saved to `backing`'s list since
    /// a whole new list was set, nil when this context's own unsaved to-one of the member puts
    /// it elsewhere (`names`: `ownToOneNames` of the list): what the list takes in, read or
    /// saved. (Saving it would write over that to-one, which this context reads.)
    func addedByOthers(to backing: ModelBacking, relationship: Schema.Relationship,
                       names: @escaping (any PersistentModel) -> Bool?) -> (UInt64) -> (any PersistentModel)? {
        let target = relationship.targetIndex
        return { [self] row in
            let member = object(entity: target, row: row)
            return names(member) == false ? nil : member
        }
    }

    /// What a saved object's list shows after its committed members: `pending`'s additions,
    /// without those another context has since saved into the committed list (they are there
    /// already and would show twice) unless this context took them out of their committed
    /// place; then the members this context put back in their place that another context has
    /// taken out since (`takenAwayPutBacks`).
    func additions(_ pending: PendingToMany, of backing: ModelBacking, relationship index: Int) -> [any PersistentModel] {
        guard backing.row > 0, backing.state == .persistent, let entity = backing.entity else { return pending.added }
        let relationship = entity.relationships[index], owner = backing.row, target = relationship.targetIndex
        var added = pending.added
        if let inverse = inverseToOne(of: relationship), added.contains(where: { $0.persistentBacking.state == .persistent }) {
            added = graph.read { view in
                added.filter { member in
                    let row = member.persistentBacking.row
                    return member.persistentBacking.state != .persistent || pending.removed.contains(row)
                        || view.toOne(entity: target, row: row, relationship: inverse) != owner
                }
            }
        }
        return added + takenAwayPutBacks(pending, of: backing, relationship: relationship).map { object(entity: target, row: $0) }
    }

    /// The rows of `pending`'s put-back members that are no longer committed members of
    /// `backing`'s list (another context's save took them out), ascending: the list shows
    /// them at its end and the save links them there.
    func takenAwayPutBacks(_ pending: PendingToMany, of backing: ModelBacking, relationship: Schema.Relationship) -> [UInt64] {
        guard !pending.putBack.isEmpty, graph.read({ $0.isLive(entity: backing.entityIndex, row: backing.row) }) else { return [] }
        let stillMembers = Set(committedMembers(pending.putBack, of: backing, relationship)), target = relationship.targetIndex
        return graph.read { view in pending.putBack.filter { !stillMembers.contains($0) && view.isLive(entity: target, row: $0) }.sorted() }
    }

    /// The rows of `candidates` that are committed members of the backing's to-many, ascending:
    /// each asked of its own to-one when the inverse is one, so that taking one flight out of
    /// an airport's ten thousand neither reads the list nor makes an object for its members.
    func committedMembers(_ candidates: Set<UInt64>, of backing: ModelBacking, _ relationship: Schema.Relationship) -> [UInt64] {
        guard !candidates.isEmpty else { return [] }
        let rows = candidates.sorted()
        guard let inverse = schema.inverse(of: relationship), !inverse.isToMany else {
            let members = Set(committedToManyRows(of: backing, relationship: relationship.index))
            return rows.filter(members.contains)
        }
        return graph.read { view in
            guard view.isLive(entity: relationship.entityIndex, row: backing.row) else { return [] }
            return rows.filter { view.isLive(entity: inverse.entityIndex, row: $0)
                && view.toOne(entity: inverse.entityIndex, row: $0, relationship: inverse.index) == backing.row }
        }
    }

    /// The position of the to-one that pairs with a to-many (a flight's airline, for an
    /// airline's flights), if it has one.
    func inverseToOne(of relationship: Schema.Relationship) -> Int? {
        inverseRelationship(of: relationship).flatMap { $0.isToMany ? nil : $0.index }
    }
}
