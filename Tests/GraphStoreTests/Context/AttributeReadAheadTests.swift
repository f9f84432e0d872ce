import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore

/// What a point lookup loads early: the attributes recently read, at most `limit` of them, lowest
/// first; what stops being read drops out at the next turn.
@Suite struct AttributeReadAheadTests {
    @Test func loadsWhatWasReadAndForgetsWhatStopsBeingRead() {
        let readAhead = AttributeReadAhead(entityCount: 2)
        defer { readAhead.deallocate() }
        #expect(readAhead.attributesToLoad(entity: 0) == 0)
        readAhead.noteRead(entity: 0, attribute: 3)
        readAhead.noteRead(entity: 0, attribute: 3)
        readAhead.noteRead(entity: 1, attribute: 5)
        // Before the first turn: what has been read so far, per entity.
        #expect(readAhead.attributesToLoad(entity: 0) == 1 << 3)
        #expect(readAhead.attributesToLoad(entity: 1) == 1 << 5)
        // At most `limit`, the lowest positions; positions past 64 and unknown entities are ignored.
        for attribute in [9, 1, 7, 30, 64, 200] { readAhead.noteRead(entity: 0, attribute: attribute) }
        readAhead.noteRead(entity: 7, attribute: 1)
        #expect(AttributeReadAhead.limit == 4)
        #expect(readAhead.attributesToLoad(entity: 0) == (1 << 1) | (1 << 3) | (1 << 7) | (1 << 9))
        #expect(readAhead.attributesToLoad(entity: 7) == 0)
        // A turn: what was read since the last one is what is loaded, and learning starts over.
        for _ in 0..<AttributeReadAhead.turn { _ = readAhead.attributesToLoad(entity: 0) }
        readAhead.noteRead(entity: 0, attribute: 2)
        #expect(readAhead.attributesToLoad(entity: 0) == (1 << 1) | (1 << 3) | (1 << 7) | (1 << 9))
        for _ in 0..<AttributeReadAhead.turn { _ = readAhead.attributesToLoad(entity: 0) }
        #expect(readAhead.attributesToLoad(entity: 0) == 1 << 2)
    }

    /// Loading early is only a hint to the cache: any layout, with or without nulls, any slot
    /// (out of range included) leaves the values as they were.
    @Test func prefetchingLeavesEveryLayoutAsItWas() {
        let kinds: [(StorageKind, Value)] = [
            (.bool, .bool(true)), (.int(bits: 64), .int(-4)), (.uint(bits: 64), .uint(4)), (.double, .double(2.5)),
            (.float, .float(1.5)), (.date, .date(Date(timeIntervalSinceReferenceDate: 9))), (.string, .string("KORD")),
            (.decimal, .decimal(Decimal(string: "1.25")!)),
        ]
        for (kind, value) in kinds {
            for optional in [false, true] {
                let column = Column(type: AttributeType(kind: kind, isOptional: optional), defaultValue: value)
                column.grow(to: 3)
                column.set(value, at: 0)
                column.set(value, at: 1)
                if !optional { column.set(value, at: 2) }
                for slot in [-1, 0, 2, 3, 1_000] { column.prefetch(slot) }
                #expect(column.value(at: 1) == value)
                #expect(column.value(at: 2) == (optional ? .null : value))
            }
        }
    }
}
