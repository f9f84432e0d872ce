import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// Random but valid transactions over a small schema, for property tests: every storable value
/// shape, inserts, updates and deletes of live rows, links and unlinks.
package struct RandomTransactions {
    package var rng: SplitMix64
    private var liveRows: [RowNumber] = []
    private var nextRow: RowNumber = 1

    package init(seed: UInt64) { rng = SplitMix64(seed: seed) }

    package mutating func next() -> [LogOperation] {
        let count = Int(rng.next() % 6) + 1
        var operations: [LogOperation] = []
        for _ in 0..<count { operations.append(nextOperation()) }
        return operations
    }

    private mutating func nextOperation() -> LogOperation {
        let choice = rng.next() % 10
        if liveRows.isEmpty || choice < 4 {
            let row = nextRow
            nextRow += 1
            liveRows.append(row)
            return .insert(entity: UInt32(rng.next() % 3), row: row, values: randomValues())
        }
        let row = liveRows[Int(rng.next() % UInt64(liveRows.count))]
        switch choice {
        case 4, 5: return .update(entity: 0, row: row, values: randomValues())
        case 6:
            liveRows.removeAll { $0 == row }
            return .delete(entity: 0, row: row)
        case 7, 8:
            let target = liveRows[Int(rng.next() % UInt64(liveRows.count))]
            return choice == 7 ? .link(relationship: 10, source: row, target: target)
                : .unlink(relationship: 10, source: row, target: target)
        default:
            return .schema(payload: (0..<Int(rng.next() % 40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        }
    }

    private mutating func randomValues() -> [PropertyValue] {
        (0..<Int(rng.next() % 5)).map { PropertyValue(UInt32($0), randomValue(depth: 0)) }
    }

    package mutating func randomValue(depth: Int) -> Value {
        switch rng.next() % (depth < 2 ? 15 : 13) {
        case 0: return .null
        case 1: return .bool(rng.next() % 2 == 0)
        case 2: return .int(Int64(bitPattern: rng.next()) >> (rng.next() % 64))
        case 3: return .uint(rng.next() >> (rng.next() % 64))
        case 4: return .double(Double(Int64(bitPattern: rng.next()) >> 11) / 1024)  // finite: NaN != NaN
        case 5: return .float(Float(Int32(truncatingIfNeeded: rng.next()) >> 8) / 64)
        case 6: return .string(String((0..<Int(rng.next() % 12)).map { _ in "aé✈️Z 0\u{0}"[Int(rng.next() % 7)] }))
        case 7: return .data(Data((0..<Int(rng.next() % 20)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
        case 8: return .date(Date(timeIntervalSinceReferenceDate: Double(Int64(bitPattern: rng.next()) % 4_000_000_000) / 7))
        case 9: return .uuid(UUID())
        case 10: return .url(URL(string: "https://example.com/\(rng.next() % 1000)?q=\(rng.next() % 9)")!)
        case 11: return .decimal(Decimal(Int(truncatingIfNeeded: rng.next() % 1_000_000)) / 100)
        case 12: return .string("")
        case 13: return .array((0..<Int(rng.next() % 4)).map { _ in randomValue(depth: depth + 1) })
        default:
            var entries: [String: Value] = [:]
            for i in 0..<Int(rng.next() % 4) { entries["k\(i)"] = randomValue(depth: depth + 1) }
            return .dictionary(entries)
        }
    }
}

private extension String {
    subscript(_ i: Int) -> Character { self[index(startIndex, offsetBy: i)] }
}
