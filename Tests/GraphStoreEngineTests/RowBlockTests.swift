import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog

/// A block of rows kept by column is the operations it expands to: the same record bytes, the
/// same graph (values and indexes) once applied, the same change summary. Random blocks, with
/// unset slots, columns shorter than the rows and rows that set nothing.
@Suite struct RowBlockTests {
    /// Inserts of rows 1...count, then updates of some of them, as blocks; and the same as operations.
    /// Also each row's values once both blocks are applied, worked out from the columns here.
    static func randomChanges(count: Int, seed: UInt64, in container: ModelContainer) -> (TransactionChanges, expected: [[Value]]) {
        var random = SplitMix64(seed: seed)
        let entity = container.schema.entity(named: "Pair")!
        let width = entity.attributes.count
        let key = entity.attribute(named: "key")!.index
        func columns(rows: Int, fill: (Int, Int) -> Value?) -> [[Value?]] {
            (0..<width).map { column in
                // Some columns unset throughout, some stopping short of the last rows.
                if random.next() % 5 == 0 { return [] }
                let length = random.next() % 3 == 0 ? Int(random.next() % UInt64(rows + 1)) : rows
                return (0..<length).map { fill(column, $0) }
            }
        }
        let insertColumns = columns(rows: count) { column, row in
            if column == key { return .string("key-\(row)") }  // unique: every row sets it
            return random.next() % 4 == 0 ? nil : .int(Int64(random.next() % 50))
        }
        var fixed = insertColumns
        if fixed[key].count < count { fixed[key] = (0..<count).map { .string("key-\($0)") } }
        let inserts = RowBlock(kind: .insert, entity: entity.number, properties: entity.attributeNumbers, values: fixed,
                               defaults: entity.attributes.map(\.defaultValue), rows: (1...UInt64(count)).map { $0 },
                               sources: Array(0..<count))
        // Updates name a subset of the rows, in shuffled order (a row's source is its own slot).
        let updateSources = (0..<count).filter { _ in random.next() % 2 == 0 }.shuffled(using: &random)
        // Some rows take a new unique key (a value no other row holds), some their own again.
        let updateColumns = columns(rows: count) { column, row in
            if column == key {
                switch random.next() % 4 {
                case 0: return .string("renamed-\(row)")
                case 1: return .string("key-\(row)")
                default: return nil
                }
            }
            return random.next() % 3 == 0 ? nil : .int(Int64(random.next() % 50))
        }
        let updates = RowBlock(kind: .update, entity: entity.number, properties: entity.attributeNumbers, values: updateColumns,
                               defaults: [], rows: updateSources.map { UInt64($0 + 1) },
                               sources: updateSources)
        let defaults = entity.attributes.map(\.defaultValue)
        func slot(_ columns: [[Value?]], _ column: Int, _ source: Int) -> Value? {
            source < columns[column].count ? columns[column][source] : nil
        }
        var expected = (0..<count).map { row in (0..<width).map { slot(fixed, $0, row) ?? defaults[$0] } }
        for source in updateSources {
            for column in 0..<width { if let value = slot(updateColumns, column, source) { expected[source][column] = value } }
        }
        return (TransactionChanges(blocks: [inserts, updates]), expected)
    }

    static func container() throws -> ModelContainer {
        try ModelContainer(for: Pair.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func blocksEncodeAsTheirOperations(seed: UInt64) throws {
        let container = try Self.container()
        let (changes, _) = Self.randomChanges(count: 300, seed: seed, in: container)
        var fromBlocks = ByteWriter(), fromOperations = ByteWriter()
        TransactionCodec.encode(changes, author: "a", timestampMicros: 7, into: &fromBlocks)
        TransactionCodec.encode(TransactionChanges(operations: changes.expandedOperations), author: "a", timestampMicros: 7, into: &fromOperations)
        #expect(fromBlocks.bytes == fromOperations.bytes)
        let decoded = try fromBlocks.bytes.withUnsafeBytes { try TransactionCodec.decode($0) }
        #expect(decoded.operations == changes.expandedOperations)
        #expect(changes.operationCount == changes.expandedOperations.count)
    }

    /// Which columns a row writes — as a list, as bits and as a count — is what the row's
    /// operation holds: every column for an insert, the set ones for an update.
    @Test(arguments: [UInt64(1), 2, 3])
    func theColumnsARowWritesAreItsOperationsValues(seed: UInt64) throws {
        let container = try Self.container()
        let (changes, _) = Self.randomChanges(count: 200, seed: seed, in: container)
        var checkedUpdateWithUnset = false
        for block in changes.blocks {
            let operations = block.operations
            for index in block.rows.indices {
                let values: [PropertyValue]
                switch operations[index] {
                case let .insert(_, _, written), let .update(_, _, written): values = written
                default: Issue.record("a block expands to inserts and updates only"); return
                }
                let columns = values.map { value in block.properties.firstIndex(of: value.property)! }
                #expect(block.writtenColumns(ofRow: index) == columns)
                #expect(block.writtenColumnBits(ofRow: index) == columns.reduce(0) { $0 | UInt64(1) << UInt64($1) })
                #expect(block.valueCount(ofRow: index) == columns.count)
                if block.kind == .update && columns.count < block.columns.count { checkedUpdateWithUnset = true }
            }
        }
        #expect(checkedUpdateWithUnset)
    }

    /// An update block keeps only the columns its rows set (it writes no others), and is still
    /// the operations it expands to, in bytes and once applied.
    @Test func anUpdateBlockKeepsTheColumnsItsRowsSet() throws {
        let container = try Self.container()
        let entity = container.schema.entity(named: "Pair")!
        let key = entity.attribute(named: "key")!.index
        let set = entity.attributes.indices.filter { $0 != key }.prefix(2)
        let values: [[Value?]] = entity.attributes.indices.map { column in
            set.contains(column) ? [.int(Int64(column)), nil, .int(7)] : []
        }
        let update = RowBlock(kind: .update, entity: entity.number, properties: entity.attributeNumbers, values: values,
                              defaults: [], rows: [3, 1, 2], sources: [0, 1, 2])
        #expect(entity.attributes.count > set.count)
        #expect(update.properties == set.map { entity.attributeNumbers[$0] })
        #expect(update.columns.count == set.count && update.columns.allSatisfy { !$0.isEmpty })
        #expect(update.writtenColumns(ofRow: 0) == Array(update.columns.indices) && update.writtenColumns(ofRow: 1).isEmpty)
        let expected: [LogOperation] = [
            .update(entity: entity.number, row: 3, values: set.map { PropertyValue(entity.attributeNumbers[$0], .int(Int64($0))) }),
            .update(entity: entity.number, row: 1, values: []),
            .update(entity: entity.number, row: 2, values: set.map { PropertyValue(entity.attributeNumbers[$0], .int(7)) }),
        ]
        #expect(update.operations == expected)
        var fromBlock = ByteWriter(), fromOperations = ByteWriter()
        TransactionCodec.encode(TransactionChanges(blocks: [update]), author: "a", timestampMicros: 7, into: &fromBlock)
        TransactionCodec.encode(TransactionChanges(operations: expected), author: "a", timestampMicros: 7, into: &fromOperations)
        #expect(fromBlock.bytes == fromOperations.bytes)
    }

    /// Values of every kind (each column of one kind, one of mixed kinds), with nulls and unset
    /// rows, encode from the columns' typed storage exactly as their operations do.
    @Test func everyKindOfValueEncodesAsItsOperations() throws {
        var random = SplitMix64(seed: 99)
        let kinds: [[Value]] = [
            [.bool(true), .bool(false)], [.int(0), .int(-7), .int(.min), .int(.max)], [.uint(0), .uint(.max)],
            [.double(1.5), .double(-0.0), .double(.infinity)], [.float(2.25), .float(-.greatestFiniteMagnitude)],
            [.date(Date(timeIntervalSince1970: 1_700_000_000.25)), .date(.distantPast)],
            [.string(""), .string("KORD"), .string("Zürich ✈️ 東京, longer than fifteen bytes")],
            [.data(Data([1, 2])), .decimal(Decimal(string: "1.25")!), .array([.int(1)]), .uuid(UUID())],
            [.int(3), .string("mixed"), .date(.distantFuture)],
        ]
        let rows = 40
        let values: [[Value?]] = kinds.map { kind in
            (0..<rows).map { _ in
                switch random.next() % 6 {
                case 0: return nil
                case 1: return .null
                default: return kind[Int(random.next() % UInt64(kind.count))]
                }
            }
        }
        for kind in [RowBlock.Kind.insert, .update] {
            let block = RowBlock(kind: kind, entity: 2, properties: kinds.indices.map { PropertyNumber($0 + 1) }, values: values,
                                 defaults: kind == .insert ? kinds.map(\.[0]) : [], rows: (1...UInt64(rows)).map { $0 },
                                 sources: Array(0..<rows).shuffled(using: &random))
            var fromBlock = ByteWriter(), fromOperations = ByteWriter()
            TransactionCodec.encode(TransactionChanges(blocks: [block]), author: "", timestampMicros: 0, into: &fromBlock)
            TransactionCodec.encode(TransactionChanges(operations: block.operations), author: "", timestampMicros: 0, into: &fromOperations)
            #expect(fromBlock.bytes == fromOperations.bytes, "\(kind)")
        }
    }

    /// An insert block of every attribute kind is applied from the columns' typed storage as its
    /// operations are: each column of its attribute's kind, of another kind (stored as the
    /// graph stores such a value, or null), or of mixed kinds, with nulls and unset rows; a
    /// block that lets go of its columns as they are written gives the same graph.
    @Test(arguments: [UInt64(11), 12, 13])
    func everyKindOfValueAppliesAsItsOperations(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let configuration = ModelConfiguration(isStoredInMemoryOnly: true)
        let viaBlock = try ModelContainer(for: Everything.self, configurations: configuration)
        let viaOperations = try ModelContainer(for: Everything.self, configurations: configuration)
        let entity = viaBlock.schema.entity(named: "Everything")!
        let samples: [[Value]] = [
            [.bool(true), .bool(false)], [.int(0), .int(-7), .int(.min), .int(.max)], [.uint(0), .uint(9), .uint(.max)],
            [.double(1.5), .double(-0.0), .double(.infinity)], [.float(2.25), .float(-.greatestFiniteMagnitude)],
            [.date(Date(timeIntervalSince1970: 1_700_000_000.25)), .date(.distantPast)],
            [.string(""), .string("KORD"), .string("Zürich ✈️ 東京, longer than fifteen bytes")],
            [.data(Data([1, 2])), .decimal(Decimal(string: "1.25")!), .array([.int(1)]), .uuid(UUID())],
        ]
        func kindOf(_ value: Value) -> Int? { samples.firstIndex { $0.contains { Self.sameKind($0, value) } } }
        let rows = 300
        func randomColumns() -> [[Value?]] {
            entity.attributes.map { attribute in
                // Mostly the attribute's own kind; sometimes another kind, or a mix of kinds.
                let own = kindOf(attribute.defaultValue) ?? 7
                let choice = random.next() % 6
                let kinds = choice == 0 ? [Int(random.next() % UInt64(samples.count))] : choice == 1 ? Array(samples.indices) : [own]
                return (0..<Int(random.next() % UInt64(rows + 1))).map { _ in
                    switch random.next() % 8 {
                    case 0: return nil
                    case 1: return .null
                    default:
                        let kind = samples[kinds[Int(random.next() % UInt64(kinds.count))]]
                        return kind[Int(random.next() % UInt64(kind.count))]
                    }
                }
            }
        }
        let block = RowBlock(kind: .insert, entity: entity.number, properties: entity.attributeNumbers, values: randomColumns(),
                             defaults: entity.attributes.map(\.defaultValue), rows: (1...UInt64(rows)).map { $0 },
                             sources: Array(0..<rows).shuffled(using: &random))
        // Then some rows deleted, and an update block naming rows at random: deleted ones, rows
        // named twice, and rows past the last (none of which may change anything).
        let deletes = (1...UInt64(rows)).filter { _ in random.next() % 7 == 0 }.map { LogOperation.delete(entity: entity.number, row: $0) }
        let updatedRows = (0..<rows).map { _ in 1 + random.next() % UInt64(rows + 10) }
        let update = RowBlock(kind: .update, entity: entity.number, properties: entity.attributeNumbers, values: randomColumns(),
                              defaults: [], rows: updatedRows, sources: Array(0..<rows).shuffled(using: &random))
        // The same inserts as a context's save makes them: each column let go once written.
        let viaReleasingBlock = try ModelContainer(for: Everything.self, configurations: configuration)
        let releasing = RowBlock(kind: .insert, entity: entity.number, properties: entity.attributeNumbers, columns: block.columns,
                                 defaults: block.defaults, rows: block.rows, sources: block.sources, releasesColumnsWhenApplied: true)
        viaBlock.graph.apply(TransactionChanges(blocks: [block]), number: 1)
        viaReleasingBlock.graph.apply(TransactionChanges(blocks: [releasing]), number: 1)
        #expect(releasing.columns.allSatisfy(\.isEmpty) && block.columns.contains { !$0.isEmpty })
        viaOperations.graph.apply(block.operations, number: 1)
        for container in [viaBlock, viaReleasingBlock, viaOperations] { container.graph.apply(deletes, number: 2) }
        viaBlock.graph.apply(TransactionChanges(blocks: [update]), number: 3)
        viaReleasingBlock.graph.apply(TransactionChanges(blocks: [update]), number: 3)
        viaOperations.graph.apply(update.operations, number: 3)
        for via in [viaBlock, viaReleasingBlock] { via.graph.read { blocks in
            viaOperations.graph.read { operations in
                #expect(blocks.table(entity.index).liveRows == operations.table(entity.index).liveRows)
                #expect(blocks.table(entity.index).slotCount == rows)
                for row in operations.table(entity.index).liveRows {
                    for attribute in entity.attributes.indices {
                        let value = blocks.value(entity: entity.index, row: row, attribute: attribute)
                        #expect(value == operations.value(entity: entity.index, row: row, attribute: attribute),
                                "row \(row), \(entity.attributes[attribute].name)")
                    }
                }
            }
        } }
    }

    static func sameKind(_ a: Value, _ b: Value) -> Bool {
        switch (a, b) {
        case (.bool, .bool), (.int, .int), (.uint, .uint), (.double, .double), (.float, .float), (.date, .date), (.string, .string): true
        default: false
        }
    }

    /// A row of 128 values or more has a count of two varint bytes (counted before its values).
    @Test(arguments: [127, 128, 300])
    func wideBlocksEncodeAsTheirOperations(width: Int) throws {
        var random = SplitMix64(seed: UInt64(width))
        let rows = 20
        let columns: [[Value?]] = (0..<width).map { _ in (0..<rows).map { _ in random.next() % 3 == 0 ? nil : .int(Int64(random.next() % 1_000)) } }
        for kind in [RowBlock.Kind.insert, .update] {
            let block = RowBlock(kind: kind, entity: 3, properties: (0..<width).map { PropertyNumber($0 + 10) }, values: columns,
                                 defaults: kind == .insert ? Array(repeating: .int(-1), count: width) : [],
                                 rows: (1...UInt64(rows)).map { $0 }, sources: Array(0..<rows))
            var fromBlock = ByteWriter(), fromOperations = ByteWriter()
            TransactionCodec.encode(TransactionChanges(blocks: [block]), author: "", timestampMicros: 0, into: &fromBlock)
            TransactionCodec.encode(TransactionChanges(operations: block.operations), author: "", timestampMicros: 0, into: &fromOperations)
            #expect(fromBlock.bytes == fromOperations.bytes, "\(kind), \(width) columns")
            let decoded = try fromBlock.bytes.withUnsafeBytes { try TransactionCodec.decode($0) }
            #expect(decoded.operations == block.operations)
        }
    }

    /// 700 rows: the updates (about 350) patch the indexes row by row; 3,000: they are a bulk
    /// change, and the hash and sorted indexes are rebuilt at its end.
    @Test(arguments: [(UInt64(6), 700), (7, 700), (8, 3_000)])
    func blocksApplyAsTheirOperations(seed: UInt64, count: Int) throws {
        let viaBlocks = try Self.container(), viaOperations = try Self.container()
        let (changes, expected) = Self.randomChanges(count: count, seed: seed, in: viaBlocks)
        let entity = viaBlocks.schema.entity(named: "Pair")!
        // Some rows are deleted before the updates, which then leave them alone.
        let deleted = Set((1...UInt64(count)).filter { $0 % 9 == 4 })
        let deletes = deleted.sorted().map { LogOperation.delete(entity: entity.number, row: $0) }
        viaBlocks.graph.apply(TransactionChanges(blocks: [changes.blocks[0]]), number: 1)
        viaBlocks.graph.apply(deletes, number: 2)
        viaBlocks.graph.apply(TransactionChanges(blocks: [changes.blocks[1]]), number: 3)
        viaOperations.graph.apply(changes.blocks[0].operations, number: 1)
        viaOperations.graph.apply(deletes, number: 2)
        viaOperations.graph.apply(changes.blocks[1].operations, number: 3)
        viaBlocks.graph.read { blocks in
            viaOperations.graph.read { operations in
                #expect(blocks.table(entity.index).liveRows == operations.table(entity.index).liveRows)
                #expect(blocks.table(entity.index).liveRows == (1...UInt64(expected.count)).filter { !deleted.contains($0) })
                for row in operations.table(entity.index).liveRows {
                    for attribute in entity.attributes.indices {
                        let value = blocks.value(entity: entity.index, row: row, attribute: attribute)
                        #expect(value == operations.value(entity: entity.index, row: row, attribute: attribute))
                        #expect(value == expected[Int(row) - 1][attribute], "row \(row), attribute \(attribute)")
                    }
                }
            }
        }
        GraphTests.checkIndexes(of: viaBlocks, "applied as blocks")
        GraphTests.checkIndexes(of: viaOperations, "applied as operations")
    }

    @Test(arguments: [UInt64(9), 10])
    func blocksSummariseAsTheirOperations(seed: UInt64) throws {
        let container = try Self.container()
        let (changes, _) = Self.randomChanges(count: 200, seed: seed, in: container)
        // Updates alone (an insert in the same transaction hides its rows' updates).
        for transaction in [changes, TransactionChanges(blocks: [changes.blocks[1]])] {
            let fromBlocks = ChangeSummary(changes: transaction, schema: container.schema)
            let fromOperations = ChangeSummary(operations: transaction.expandedOperations, schema: container.schema)
            #expect(fromBlocks.inserted == fromOperations.inserted)
            #expect(fromBlocks.updated == fromOperations.updated)
            #expect(fromBlocks.deleted == fromOperations.deleted)
            #expect(fromBlocks.changes == fromOperations.changes)
            // The identifiers alone (worked out first above, without the names) are the whole
            // summary's.
            let settled = ChangeSummary(changes: transaction, schema: container.schema).settled
            #expect(settled.inserted == fromBlocks.inserted && settled.updated == fromBlocks.updated && settled.deleted == fromBlocks.deleted)
            let settledOperations = ChangeSummary(operations: transaction.expandedOperations, schema: container.schema).settled
            #expect(settledOperations.updated == fromOperations.updated && settledOperations.inserted == fromOperations.inserted)
        }
        // An update of a property the schema does not know (a removed attribute) changes nothing
        // anyone can see, with or without the names.
        let entity = try #require(container.schema.entities.first)
        let unknown = PropertyValue(PropertyNumber(60_000), .int(1))
        let known = PropertyValue(entity.attributes[0].number, .int(1))
        let updates = TransactionChanges(operations: [.update(entity: entity.number, row: 3, values: [unknown]),
                                                      .update(entity: entity.number, row: 4, values: [unknown, known])])
        for summary in [ChangeSummary(operations: updates.operations, schema: container.schema),
                        ChangeSummary(operations: updates.operations, schema: container.schema).settled] {
            #expect(summary.updated == [PersistentIdentifier(entityName: entity.name, row: 4)])
        }
        #expect(!ChangeSummary(changes: TransactionChanges(blocks: [changes.blocks[1]]), schema: container.schema).updated.isEmpty)
    }
}
