@_spi(GraphStoreInternals) import GraphStoreGraph
import Foundation
import GraphStoreTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

final class Leg: Model {
    @Attribute(.unique) var code: String = ""
    @Attribute(.indexed) var seats: Int = 0
    @Attribute var day: Int = 0
    @Attribute var terminal: String = ""
    @Relationship var gate: Stand?

    /// Keys of two words (a to-one and an integer, two integers) and keys kept as values (a
    /// string member, three members).
    override class var constraints: [any SchemaConstraint] {
        [Schema.Unique<Leg>([\.gate, \.day]), Schema.Index<Leg>([\.day, \.seats]),
         Schema.Index<Leg>([\.terminal, \.gate]), Schema.Index<Leg>([\.gate, \.seats, \.day])]
    }
}

final class Stand: Model {
    @Attribute(.unique) var name: String = ""
}

/// Every kind of index, kept up change by change through `TableIndex` (small transactions, and
/// large ones that mark them stale), answers exactly as the same kind rebuilt from the table's
/// contents in one pass (the path a checkpoint takes).
@Suite struct TableIndexTests {
    @Test(arguments: [UInt64(21), 22, 23])
    func indexesKeptUpEqualIndexesRebuilt(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let container = try ModelContainer(for: Leg.self, Stand.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let stands = (0..<6).map { i -> Stand in
            let stand = Stand()
            stand.name = "S\(i)"
            context.insert(stand)
            return stand
        }
        var legs: [Leg] = []
        var next = 0
        var seenKeys: [Int: Set<[Value]>] = [:]
        for round in 0..<12 {
            // Rounds 3 and 8 change most rows at once (stale, then rebuilt); the others a few.
            let changes = round == 3 || round == 8 ? 900 : Int(rng.next() % 20) + 1
            for _ in 0..<changes {
                switch rng.next() % 5 {
                case 0 where !legs.isEmpty:
                    let i = Int(rng.next() % UInt64(legs.count))
                    context.delete(legs.remove(at: i))
                case 1 where !legs.isEmpty, 2 where !legs.isEmpty:
                    let leg = legs[Int(rng.next() % UInt64(legs.count))]
                    leg.seats = Int(rng.next() % 30)
                    leg.terminal = "T\(rng.next() % 3)"
                    leg.gate = rng.next() % 4 == 0 ? nil : stands[Int(rng.next() % 6)]
                default:
                    let leg = Leg()
                    leg.code = "L\(next)"
                    next += 1
                    leg.seats = Int(rng.next() % 30)
                    leg.day = next  // unique per gate: one leg a day
                    leg.gate = stands[Int(rng.next() % 6)]
                    context.insert(leg)
                    legs.append(leg)
                }
            }
            try context.save()
            try expectRebuiltIndexesAgree(container, "round \(round)", seenKeys: &seenKeys)
        }
    }

    /// `seenKeys`: every compound key a live row had at some check, so that a key whose rows all
    /// left is checked to have none.
    private func expectRebuiltIndexesAgree(_ container: ModelContainer, _ label: String,
                                           seenKeys: inout [Int: Set<[Value]>]) throws {
        let entity = container.schema.entity(named: "Leg")!
        container.graph.read { view in
            let kept = view.table(entity.index)
            var image = kept.image()
            image.sorted = [:]  // sort anew rather than take the kept order
            let rebuilt = EntityTable(entity: entity, schema: container.schema)
            let (jobs, finish) = rebuilt.restore(image)
            jobs.forEach { $0() }
            finish()
            let rows = kept.liveRows
            for attribute in entity.attributes {
                let a = attribute.index
                if let unique = kept.unique[a] {
                    #expect(unique.count == rebuilt.unique[a]!.count, "\(label)")
                    for row in rows {
                        let value = kept.value(row: row, attribute: a)
                        #expect(unique[value] == rebuilt.unique[a]![value], "\(label): \(attribute.name) \(value)")
                    }
                }
                if let sorted = kept.sorted[a] {
                    #expect(sorted.orderedRows == rebuilt.sorted[a]!.orderedRows, "\(label): \(attribute.name) in order")
                    let values = Set(rows.map { kept.value(row: $0, attribute: a) })
                    for value in values {
                        #expect(Set(kept.secondary[a]!.rows(for: [value])) == Set(rebuilt.secondary[a]!.rows(for: [value])),
                                "\(label): \(attribute.name) = \(value)")
                    }
                }
            }
            for (c, index) in kept.compound.enumerated() {
                var expected: [[Value]: Set<UInt32>] = [:]
                for row in rows {
                    guard let key = index.key(ofSlot: Int(row - 1), in: kept) else { continue }
                    expected[key, default: []].insert(UInt32(row))
                }
                seenKeys[c, default: []].formUnion(expected.keys)
                for key in seenKeys[c]! {
                    let name = "\(label): \(index.description.description) = \(key)"
                    #expect(Set(index.rows(for: key)) == expected[key] ?? [], "\(name)")
                    #expect(index.rows(for: key).count == expected[key]?.count ?? 0, "\(name): no row twice")
                    #expect(Set(rebuilt.compound[c].rows(for: key)) == expected[key] ?? [], "\(name), rebuilt")
                }
            }
        }
    }
}
