import Foundation
import Testing
@testable import GraphStoreMacrosFree
@testable import GraphStore

/// Models used only here: each is discovered for the first time by these tests, so that the
/// recording session runs while the tests watch.
final class RecordedLeg: Model {
    @Attribute(.unique, originalName: "code") var ident: String = ""
    @Attribute(.indexed) var miles: Int = 0
    @Attribute var tail: UUID = UUID()
    @Relationship(deleteRule: .cascade, minimumModelCount: 0, maximumModelCount: 3, inverse: \RecordedStop.leg)
    var stops: [RecordedStop] = []
}

final class RecordedStop: Model {
    @Attribute var name: String = ""
    @Relationship var leg: RecordedLeg?
}

final class RecordedDuringObjects: Model {
    @Attribute var count: Int = 7
    @Attribute var label: String = "x"
}

final class RecordedMarker: Model {
    @Attribute var value: Double = 1.5
}

/// Every spelling of @Attribute's options: none, one, several, with and without a rename.
final class RecordedOptions: Model {
    @Attribute var none: Int = 0
    @Attribute(.indexed) var one: Int = 0
    @Attribute(.unique, .indexed) var two: String = ""
    @Attribute(.indexed, originalName: "old") var renamed: Int = 0
    @Attribute(originalName: "older") var renamedOnly: String? = nil
    @Attribute(.externalStorage, .indexed, originalName: "blob") var three: Data = Data()
}

@Suite struct DeclarationRecordingTests {
    /// The point of recording: an object's wrappers carry only their slot and initial value.
    @Test func wrappersHoldOnlyTheirSlotAndInitialValue() {
        #expect(MemoryLayout<Attribute<String>>.size == MemoryLayout<Int>.size + MemoryLayout<String>.size)
        #expect(MemoryLayout<Attribute<Int>>.size == 2 * MemoryLayout<Int>.size)
        #expect(MemoryLayout<Relationship<[RecordedStop]>>.size == 2 * MemoryLayout<Int>.size)
        #expect(MemoryLayout<Relationship<RecordedLeg?>>.size == 2 * MemoryLayout<Int>.size)
    }

    /// Everything a wrapper declares reaches the schema from the class's recording, though no
    /// object keeps it: options, original names, delete rules, counts and the inverse.
    @Test func theSchemaHasEveryDeclaredDetail() throws {
        let declaration = try RecordedLeg.entityDeclaration()
        let ident = try #require(declaration.attributes.first { $0.name == "ident" })
        #expect(ident.options == [.unique])
        #expect(ident.originalName == "code")
        #expect(ident.type.kind == .string)
        #expect(declaration.attributes.first { $0.name == "miles" }?.options == [.indexed])
        let stops = try #require(declaration.relationships.first { $0.name == "stops" })
        #expect(stops.deleteRule == .cascade)
        #expect(stops.isToMany)
        #expect(stops.minimumCount == 0 && stops.maximumCount == 3)
        #expect(stops.inverse == \RecordedStop.leg)
        #expect(ObjectIdentifier(stops.target) == ObjectIdentifier(RecordedStop.self))
        // Found by comparing prototypes, which the recording session makes.
        #expect(ModelDiscovery.metadata(for: RecordedLeg.self).perInstanceAttributes == ["tail"])
    }

    @Test func everySpellingOfOptionsIsRecorded() throws {
        let attributes = Dictionary(uniqueKeysWithValues: try RecordedOptions.entityDeclaration().attributes.map { ($0.name, $0) })
        #expect(attributes["none"]?.options == [])
        #expect(attributes["one"]?.options == [.indexed])
        #expect(attributes["two"]?.options == [.unique, .indexed])
        #expect(attributes["renamed"]?.options == [.indexed] && attributes["renamed"]?.originalName == "old")
        #expect(attributes["renamedOnly"]?.options == [] && attributes["renamedOnly"]?.originalName == "older")
        #expect(attributes["three"]?.options == [.externalStorage, .indexed] && attributes["three"]?.originalName == "blob")
    }

    /// Objects made on other threads while a class is being discovered take no part in its
    /// recording: their wrappers start unresolved, and they read and save like any other.
    @Test func objectsMadeElsewhereDuringDiscoveryAreOrdinary() throws {
        let stop = LockedFlag()
        let made = LockedCounter()
        let worker = Thread {
            while !stop.isSet {
                let object = RecordedDuringObjects()
                let slots = ModelDiscovery.wrapperChildren(of: object).compactMap { ($0.value as? any PropertyWrapperSlot)?.slot }
                if slots.contains(where: { $0 != -1 }) { made.fail() }
                object.count += 1
                if object.count != 8 || object.label != "x" { made.fail() }
                made.add()
            }
        }
        _ = ModelDiscovery.metadata(for: RecordedDuringObjects.self)
        worker.start()
        while made.count < 50 { usleep(100) }
        // Discoveries (each a recording session) while the worker makes objects.
        _ = ModelDiscovery.metadata(for: RecordedMarker.self)
        _ = try RecordedLeg.entityDeclaration()
        _ = try RecordedStop.entityDeclaration()
        let seen = made.count
        while made.count < seen + 50 { usleep(100) }
        stop.set()
        #expect(made.failures == 0)

        let store = TemporaryStore()
        let container = try store.container(RecordedDuringObjects.self, RecordedMarker.self)
        defer { container.close() }
        let context = ModelContext(container)
        let object = RecordedDuringObjects()
        object.count = 41
        context.insert(object)
        context.insert(RecordedMarker())
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<RecordedDuringObjects>()).map(\.count) == [41])
        #expect(try fresh.fetch(FetchDescriptor<RecordedMarker>()).map(\.value) == [1.5])
    }

    /// While this thread records, another thread's new objects get no tokens; this thread's do.
    @Test func onlyTheRecordingThreadsWrappersRecord() {
        let (slots, records) = DeclarationRecording.record { () -> (elsewhere: [Int], here: [Int]) in
            let done = DispatchSemaphore(value: 0)
            let elsewhere = LockedSlots()
            Thread {
                elsewhere.set(ModelDiscovery.wrapperChildren(of: RecordedMarker()).compactMap { ($0.value as? any PropertyWrapperSlot)?.slot })
                done.signal()
            }.start()
            done.wait()
            let here = ModelDiscovery.wrapperChildren(of: RecordedMarker()).compactMap { ($0.value as? any PropertyWrapperSlot)?.slot }
            return (elsewhere.value, here)
        }
        #expect(slots.elsewhere == [-1])
        #expect(slots.here == [DeclarationRecording.firstToken])
        #expect(records.count == 1)
        #expect(records.first is AttributeRecord<Double>)
    }

    /// A token names a record of the running session only.
    @Test func tokensOutsideTheRecordsNameNothing() {
        let records: [Any] = ["a", "b"]
        #expect(DeclarationRecording.record(forSlot: -1, in: records) == nil)
        #expect(DeclarationRecording.record(forSlot: 3, in: records) == nil)
        #expect(DeclarationRecording.record(forSlot: DeclarationRecording.firstToken, in: records) as? String == "a")
        #expect(DeclarationRecording.record(forSlot: DeclarationRecording.firstToken - 1, in: records) as? String == "b")
        #expect(DeclarationRecording.record(forSlot: DeclarationRecording.firstToken - 2, in: records) == nil)
        // Outside a session, a wrapper starts unresolved.
        #expect(DeclarationRecording.slot(recording: "ignored") == -1)
    }
}

private final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

private final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var made = 0
    private var failed = 0
    var count: Int { lock.withLock { made } }
    var failures: Int { lock.withLock { failed } }
    func add() { lock.withLock { made += 1 } }
    func fail() { lock.withLock { failed += 1 } }
}

private final class LockedSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Int] = []
    var value: [Int] { lock.withLock { slots } }
    func set(_ new: [Int]) { lock.withLock { slots = new } }
}
