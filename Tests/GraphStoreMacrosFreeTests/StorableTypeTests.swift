import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStoreMacrosFree

/// Every storable type round-trips through save and reopen, including nil and empty values.
@Suite struct StorableTypeTests {
    func fill(_ e: Everything) {
        e.bool = true
        e.int = -42
        e.int8 = .min
        e.int16 = .max
        e.int32 = -7
        e.int64 = .min
        e.uint = .max
        e.uint8 = 255
        e.uint16 = 65_535
        e.uint32 = .max
        e.uint64 = .max
        e.double = 3.141592653589793
        e.float = 2.5
        e.string = "Zürich ✈️ 東京"
        e.date = Date(timeIntervalSince1970: 1_732_000_000.123456)
        e.data = Data([0, 1, 2, 255])
        e.uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        e.url = URL(string: "https://flightaware.com/live/flight/UAL1?x=1")!
        e.decimal = Decimal(string: "12345.678901234567890")!
        e.status = .enroute
        e.priority = .high
        e.gate = Gate(terminal: "B", number: 42)
        e.strings = ["a", "", "c"]
        e.scores = ["on-time": 0.97, "late": 0.03]
        e.gates = [Gate(terminal: "C", number: 1), Gate(terminal: "D", number: 2)]
        e.optionalBool = false
        e.optionalInt = 0
        e.optionalDouble = -0.5
        e.optionalString = ""
        e.optionalDate = Date(timeIntervalSince1970: 0)
        e.optionalData = Data()
        e.optionalUUID = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!
        e.optionalURL = URL(string: "file:///tmp/x")!
        e.optionalDecimal = Decimal(-1)
        e.optionalStatus = .landed
        e.optionalPriority = .low
        e.optionalGate = Gate(terminal: "", number: 0)
        e.optionalStrings = []
    }

    func expectFilled(_ e: Everything) {
        #expect(e.bool == true)
        #expect(e.int == -42 && e.int8 == .min && e.int16 == .max && e.int32 == -7 && e.int64 == .min)
        #expect(e.uint == .max && e.uint8 == 255 && e.uint16 == 65_535 && e.uint32 == .max && e.uint64 == .max)
        #expect(e.double == 3.141592653589793 && e.float == 2.5)
        #expect(e.string == "Zürich ✈️ 東京")
        #expect(e.date == Date(timeIntervalSince1970: 1_732_000_000.123456))
        #expect(e.data == Data([0, 1, 2, 255]))
        #expect(e.uuid == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        #expect(e.url == URL(string: "https://flightaware.com/live/flight/UAL1?x=1")!)
        #expect(e.decimal == Decimal(string: "12345.678901234567890")!)
        #expect(e.status == .enroute && e.priority == .high)
        #expect(e.gate == Gate(terminal: "B", number: 42))
        #expect(e.strings == ["a", "", "c"])
        #expect(e.scores == ["on-time": 0.97, "late": 0.03])
        #expect(e.gates == [Gate(terminal: "C", number: 1), Gate(terminal: "D", number: 2)])
        #expect(e.optionalBool == false && e.optionalInt == 0 && e.optionalDouble == -0.5 && e.optionalString == "")
        #expect(e.optionalDate == Date(timeIntervalSince1970: 0) && e.optionalData == Data())
        #expect(e.optionalUUID == UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)
        #expect(e.optionalURL == URL(string: "file:///tmp/x")! && e.optionalDecimal == Decimal(-1))
        #expect(e.optionalStatus == .landed && e.optionalPriority == .low)
        #expect(e.optionalGate == Gate(terminal: "", number: 0) && e.optionalStrings == [])
    }

    func expectInitial(_ e: Everything) {
        #expect(e.bool == false && e.int == 0 && e.uint64 == 0 && e.double == 0 && e.string == "")
        #expect(e.data == Data() && e.decimal == 0 && e.status == .scheduled && e.priority == .low)
        #expect(e.gate == Gate(terminal: "A", number: 1) && e.strings == [] && e.scores == [:] && e.gates == [])
        #expect(e.optionalBool == nil && e.optionalInt == nil && e.optionalDouble == nil && e.optionalString == nil)
        #expect(e.optionalDate == nil && e.optionalData == nil && e.optionalUUID == nil && e.optionalURL == nil)
        #expect(e.optionalDecimal == nil && e.optionalStatus == nil && e.optionalPriority == nil)
        #expect(e.optionalGate == nil && e.optionalStrings == nil)
    }

    @Test func everyTypeRoundTripsThroughSaveAndReopen() throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(Everything.self))
            let filled = Everything()
            fill(filled)
            expectFilled(filled)  // unmanaged
            context.insert(filled)
            context.insert(Everything())
            expectFilled(filled)  // inserted, unsaved
            try context.save()
            expectFilled(filled)  // saved
        }
        let context = ModelContext(try store.container(Everything.self))
        let all = try context.fetch(FetchDescriptor<Everything>())
        #expect(all.count == 2)
        let filled = try #require(all.first { $0.bool })
        let initial = try #require(all.first { !$0.bool })
        expectFilled(filled)
        expectInitial(initial)
    }

    @Test func settingBackToNilAndEmptyPersists() throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(Everything.self))
            let e = Everything()
            fill(e)
            context.insert(e)
            try context.save()
            e.optionalString = nil
            e.optionalGate = nil
            e.strings = []
            e.data = Data()
            try context.save()
        }
        let context = ModelContext(try store.container(Everything.self))
        let e = try #require(try context.fetch(FetchDescriptor<Everything>()).first)
        #expect(e.optionalString == nil && e.optionalGate == nil && e.strings == [] && e.data == Data())
        #expect(e.optionalInt == 0)
    }
}
