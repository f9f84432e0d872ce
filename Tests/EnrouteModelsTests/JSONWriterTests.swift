import Foundation
import Testing
@testable import EnrouteModels

/// The generator's JSON writer writes the bytes Foundation's writers write for the same files,
/// and the bundled sample is the generator's output byte for byte.
@Suite struct JSONWriterTests {
    /// The files as Foundation writes them: `JSONEncoder`, then through `JSONSerialization` to
    /// add the nulls the feed sends and sort the keys. Slow (it sorts keys by locale collation),
    /// and independent of `JSONValue`: the reference the writer is checked against.
    static func foundationBytes<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let object = try JSONSerialization.jsonObject(with: try encoder.encode(value))
        var text = try JSONSerialization.data(withJSONObject: fillNulls(object),
                                              options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        text.append(0x0A)
        return text
    }

    static let flightKeys = ["ident", "fa_flight_id", "operator", "flight_number", "registration", "origin", "destination",
        "scheduled_out", "estimated_out", "actual_out", "scheduled_off", "estimated_off", "actual_off", "scheduled_on", "estimated_on",
        "actual_on", "scheduled_in", "estimated_in", "actual_in", "progress_percent", "status", "aircraft_type", "route_distance",
        "filed_airspeed", "filed_altitude", "route", "gate_origin", "gate_destination", "terminal_origin", "terminal_destination",
        "seats_cabin_business", "seats_cabin_coach", "codeshares", "blocked", "diverted", "cancelled", "position_only", "type"]

    static func fillNulls(_ object: Any) -> Any {
        if let array = object as? [Any] { return array.map(fillNulls) }
        guard var dictionary = object as? [String: Any] else { return object }
        for (key, value) in dictionary { dictionary[key] = fillNulls(value) }
        if dictionary["fa_flight_id"] != nil || dictionary["ident"] != nil {
            for key in flightKeys where dictionary[key] == nil { dictionary[key] = NSNull() }
        }
        if dictionary["arrivals"] != nil, dictionary["links"] == nil { dictionary["links"] = NSNull() }
        return dictionary
    }

    @Test func generatedFilesMatchFoundationsBytes() throws {
        // Real and made-up airports (fractional coordinates), paged boards, incomplete flights.
        var generator = EnrouteGenerator(flights: 1_500, airports: 700, airlines: 250, seed: 11)
        generator.incompleteFlights = 5
        generator.flightsPerFile = 3
        let output = generator.generate()
        #expect(JSONValue.array(output.airports.map(\.json)).prettyPrinted(newline: true) == (try Self.foundationBytes(output.airports)))
        #expect(JSONValue.array(output.airlines.map(\.json)).prettyPrinted(newline: true) == (try Self.foundationBytes(output.airlines)))
        #expect(output.boards.contains { $0.document.links != nil })
        for board in output.boards {
            #expect(board.document.json.prettyPrinted(newline: true) == (try Self.foundationBytes(board.document)), "\(board.name)")
        }
    }

    @Test func theBundledSampleIsTheGeneratorsOutput() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("enroute-sample-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let written = try EnrouteGenerator.sample.write(to: directory)
        #expect(written.map(\.lastPathComponent).sorted() == EnrouteSample.files.map(\.lastPathComponent).sorted())
        for file in EnrouteSample.files {
            #expect(try Data(contentsOf: directory.appendingPathComponent(file.lastPathComponent)) == Data(contentsOf: file),
                    "\(file.lastPathComponent)")
        }
    }

    @Test func valuesAndEscapesMatchJSONSerialization() throws {
        let value = JSONValue.object([
            ("text", .string("a/b \"q\" \\ \n\r\t\u{8}\u{C}\u{1}\u{1F} é 雪")),
            ("empty_array", .array([])),
            ("empty_object", .object([])),
            ("numbers", .array([.int(0), .int(-7), .int(Int.max), .int(Int.min + 1), .int(Int.min), .int(9), .int(10), .double(13), .double(-0.5), .double(37.6188),
                                .double(-122.3756), .double(1e20), .double(0.1)])),
            ("flags", .array([.bool(true), .bool(false), .null])),
            ("a_b", .int(2)), ("ab", .int(3)),
        ])
        let reference: [String: Any] = [
            "text": "a/b \"q\" \\ \n\r\t\u{8}\u{C}\u{1}\u{1F} é 雪", "empty_array": [Any](), "empty_object": [String: Any](),
            "numbers": [0, -7, Int.max, Int.min + 1, Int.min, 9, 10, 13.0, -0.5, 37.6188, -122.3756, 1e20, 0.1],
            "flags": [true, false, NSNull()], "a_b": 2, "ab": 3,
        ]
        let expected = try JSONSerialization.data(withJSONObject: reference, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        #expect(String(decoding: value.prettyPrinted(), as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(try JSONSerialization.jsonObject(with: value.prettyPrinted()) is [String: Any])
    }

    /// Indentation has no depth limit (the text grows as it is written).
    @Test func deepNestingIsIndentedAsJSONSerializationIndentsIt() throws {
        var value = JSONValue.array([.int(1), .string("deep")])
        var reference: Any = [1, "deep"] as [Any]
        for depth in 0..<40 {
            value = depth % 2 == 0 ? .object([("k", value), ("n", .int(depth))]) : .array([value, .null])
            reference = depth % 2 == 0 ? ["k": reference, "n": depth] as [String: Any] : [reference, NSNull()] as [Any]
        }
        let expected = try JSONSerialization.data(withJSONObject: reference, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        #expect(String(decoding: value.prettyPrinted(), as: UTF8.self) == String(decoding: expected, as: UTF8.self))
    }

    @Test(arguments: [0, 1, 3, 12_000])
    func aStreamedArrayIsTheArraysText(count: Int) throws {
        let values = (0..<count).map { JSONValue.object([("n", .int($0)), ("name", .string(String(repeating: "x", count: $0 % 300)))]) }
        var streamed = Data(), chunks = 0
        try JSONValue.writeArray(values, value: { $0 }) { streamed.append($0); chunks += 1 }
        #expect(streamed == JSONValue.array(values).prettyPrinted(newline: true))
        #expect(count < 12_000 || chunks > 1)
    }

    /// Entries written straight into the text make the bytes the same entries make as values.
    @Test(arguments: [0, 1, 2, 12_000])
    func objectsWrittenEntryByEntryAreTheirValuesText(count: Int) throws {
        func values(_ i: Int) -> [(key: String, value: JSONValue)] {
            [("a", .date(i % 3 == 0 ? nil : Date(timeIntervalSince1970: Double(i) * 7_919.5 - 1e9))),
             ("b", .int(i % 5 == 0 ? Int.min + 1 : i - 2_500)), ("b_", .null),
             ("c", i % 4 == 0 ? .null : .string(String(repeating: "q\"\n/é", count: i % 4))),
             ("d", .array([.int(i), .bool(i % 2 == 0)])), ("e", .int(i % 7))]
        }
        func write(_ i: Int, _ object: inout JSONObjectWriter) {
            object.date("a", i % 3 == 0 ? nil : Date(timeIntervalSince1970: Double(i) * 7_919.5 - 1e9))
            object.int("b", i % 5 == 0 ? Int.min + 1 : i - 2_500)
            object.int("b_", nil)
            object.string("c", i % 4 == 0 ? nil : String(repeating: "q\"\n/é", count: i % 4))
            object.value("d", .array([.int(i), .bool(i % 2 == 0)]))
            object.int("e", i % 7)
        }
        var streamed = Data(), chunks = 0
        try JSONValue.writeArray(0..<count, entries: write) { streamed.append($0); chunks += 1 }
        #expect(streamed == JSONValue.array((0..<count).map { .object(values($0)) }).prettyPrinted(newline: true))
        #expect(count < 12_000 || chunks > 1)

        var empty = Data()
        try JSONValue.writeArray(0..<2, entries: { _, _ in }) { empty.append($0) }
        #expect(empty == JSONValue.array([.object([]), .object([])]).prettyPrinted(newline: true))
    }

    @Test func datesMatchISO8601DateFormatter() {
        let formatter = ISO8601DateFormatter()
        var random = SeededRandom(seed: 3)
        var times: [Double] = [0, -1, -86_400, -86_401, 951_782_400, 951_868_800, 4_102_444_800, 1_795_305_600.999]
        for _ in 0..<2_000 { times.append(Double(random.next() % 8_000_000_000) - 2_000_000_000 + 0.25) }
        for time in times {
            let date = Date(timeIntervalSince1970: time)
            #expect(JSONValue.date(date) == .string(formatter.string(from: date)), "\(time)")
        }
        #expect(JSONValue.date(nil) == .null)
    }
}

/// The feed's times read without a formatter agree with Foundation's ISO 8601 parser.
@Suite struct FeedTimeTests {
    @Test func matchesFoundationsParser() throws {
        var random = SeededRandom(seed: 9)
        var texts = ["1970-01-01T00:00:00Z", "2000-02-29T23:59:59Z", "1969-12-31T23:59:59Z", "2026-11-22T11:59:04Z", "2100-03-01T00:00:00Z"]
        for _ in 0..<2_000 {
            texts.append(FeedTime.text(secondsSince1970: Int(random.next() % 8_000_000_000) - 2_000_000_000))
        }
        for text in texts {
            #expect(FeedTime.date(text) == (try Date(text, strategy: .iso8601)), "\(text)")
        }
    }

    @Test(arguments: ["2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-22T24:00:00Z",
                      "2026-11-22T11:60:00Z", "2026-11-22 11:59:04Z", "2026-11-22T11:59:04", "2026-11-22T11:59:04.5Z",
                      "2026-11-22T11:59:04+01:00", "2026-1a-22T11:59:04Z", ""])
    func refusesWhatIsNotThatForm(text: String) {
        #expect(FeedTime.date(text) == nil)
    }
}
