import Foundation
import GraphStoreCore
import GraphStoreTestSupport
import Testing

/// A batch column reads back what was set, row by row, against a plain array of optional
/// values: every kind of value, nulls, unset rows, rows set out of order or again, and a value
/// of another kind turning the column into one of `Value`s.
@Suite struct BatchColumnTests {
    static let samples: [[Value]] = [
        [.bool(true), .bool(false)],
        [.int(0), .int(-7), .int(.min), .int(.max)],
        [.uint(0), .uint(.max)],
        [.double(1.5), .double(-0.0), .double(.infinity)],
        [.float(2.25), .float(-.greatestFiniteMagnitude)],
        [.date(Date(timeIntervalSince1970: 1_700_000_000.25)), .date(.distantPast)],
        [.string(""), .string("KORD"), .string("Zürich ✈️ 東京, a string longer than fifteen bytes")],
        [.data(Data([1, 2])), .decimal(Decimal(string: "1.25")!), .array([.int(1)])],
    ]

    @Test(arguments: 0..<samples.count)
    func readsBackWhatWasSet(kind: Int) {
        var random = SplitMix64(seed: UInt64(kind) &+ 5)
        for round in 0..<20 {
            var column = BatchColumn(), model: [Value?] = []
            if round % 2 == 0 { column.reserveCapacity(50) }
            func pick() -> Value {
                switch random.next() % 20 {
                case 0: return .null
                // Now and then a value of another kind.
                case 1: return Self.samples[Int(random.next() % UInt64(Self.samples.count))].first!
                default: return Self.samples[kind][Int(random.next() % UInt64(Self.samples[kind].count))]
                }
            }
            for step in 0..<60 {
                let value = pick()
                switch random.next() % 6 {
                case 0 where !model.isEmpty:
                    // An earlier row set again, or unset (a batch row merged into another).
                    let row = Int(random.next() % UInt64(model.count))
                    let newValue: Value? = random.next() % 3 == 0 ? nil : value
                    column.setSlowly(newValue, row: row)
                    model[row] = newValue
                case 1:
                    // A row skipped.
                    model.append(nil)
                default:
                    column.set(value, row: model.count)
                    model.append(value)
                }
                for row in 0..<(model.count + 2) {
                    let expected = row < model.count ? model[row] : nil
                    #expect(column[row] == expected, "kind \(kind), round \(round), step \(step), row \(row)")
                }
            }
        }
    }

    @Test func aColumnOfOneKindKeepsItsValuesTyped() {
        var column = BatchColumn()
        for row in 0..<10 { column.set(.date(Date(timeIntervalSinceReferenceDate: Double(row))), row: row) }
        column.set(.null, row: 10)
        #expect(column.layout == .date)
        #expect(column.values.isEmpty)
        column.set(.string("other"), row: 11)
        #expect(column.layout == .value)
        #expect(column[3] == .date(Date(timeIntervalSinceReferenceDate: 3)))
        #expect(column[10] == .null)
        #expect(column[11] == .string("other"))
    }
}
