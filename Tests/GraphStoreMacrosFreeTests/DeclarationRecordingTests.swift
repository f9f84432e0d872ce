import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

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

/// Stored values equal to the prototype's recording tokens (first's, second's and third's are
/// firstToken, -1 and -2), in transient properties (which keep their values in the object, as
/// persistent ones do not): each token is in the prototype twice, `third`'s first beside
/// `first`, and only the wrapper's slot is where objects keep it (SlotLocator). Attributes
/// whose initial values look like tokens too.
final class TokenDecoys: Model {
    @Transient var decoyOfThird: Int32 = Int32(DeclarationRecording.firstToken - 2)
    @Attribute var first: Int = DeclarationRecording.firstToken - 2
    @Transient var decoyOfFirst: Int32 = Int32(DeclarationRecording.firstToken)
    @Attribute var second: Int = DeclarationRecording.firstToken
    @Transient var decoyOfSecond: Int32 = Int32(DeclarationRecording.firstToken - 1)
    @Attribute var third: Int = DeclarationRecording.firstToken - 1
}

/// Made only before any discovery of it (fillSlots).
final class MadeBeforeDiscovery: Model {
    @Attribute var count: Int = 3
    @Relationship var next: MadeBeforeDiscovery?
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
    /// The point of recording: an object's wrappers carry only their slot.
    @Test func wrappersHoldOnlyTheirSlot() {
        #expect(MemoryLayout<Attribute<String>>.size == MemoryLayout<Int32>.size)
        #expect(MemoryLayout<Attribute<Date?>>.size == MemoryLayout<Int32>.size)
        #expect(MemoryLayout<Attribute<Int>>.size == MemoryLayout<Int32>.size)
        #expect(MemoryLayout<Relationship<[RecordedStop]>>.size == MemoryLayout<Int32>.size)
        #expect(MemoryLayout<Relationship<RecordedLeg?>>.size == MemoryLayout<Int32>.size)
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
        // Found by evaluating the recorded initial values again and comparing.
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
    /// recording: their wrappers hold no tokens but their slots (their class was discovered
    /// first), and they read and save like any other.
    @Test func objectsMadeElsewhereDuringDiscoveryAreOrdinary() throws {
        let stop = LockedFlag()
        let made = LockedCounter()
        let worker = Thread {
            while !stop.isSet {
                let object = RecordedDuringObjects()
                let slots = wrapperSlots(object)
                if slots != [0, 1] { made.fail() }
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

    /// Each wrapper's slot is found in the prototype's memory by its token, even where stored
    /// values equal tokens: new objects get slots 0, 1, 2 and keep their initial values.
    @Test func slotsAreFoundWhereStoredValuesLookLikeTokens() throws {
        _ = ModelDiscovery.metadata(for: TokenDecoys.self)
        let object = TokenDecoys()
        #expect(wrapperSlots(object) == [0, 1, 2])
        let token = DeclarationRecording.firstToken
        // Giving the slots wrote over no look-alike.
        #expect(object.decoyOfFirst == Int32(token) && object.decoyOfSecond == Int32(token - 1) && object.decoyOfThird == Int32(token - 2))
        #expect(object.first == token - 2 && object.second == token && object.third == token - 1)
        object.second = 5
        #expect(object.first == token - 2 && object.second == 5 && object.third == token - 1)

        let fetched = try savedAndFetched(object) { $0.map { [$0.first, $0.second, $0.third] } }
        #expect(fetched == [[token - 2, 5, token - 1]])
    }

    /// An object made before its class is known has no slots yet; its first access (a read or a
    /// write, of an attribute or a relationship) discovers the class and fills them all in.
    @Test func objectsMadeBeforeDiscoveryGetTheirSlotsOnFirstAccess() throws {
        let read = MadeBeforeDiscovery(), written = MadeBeforeDiscovery(), linked = MadeBeforeDiscovery()
        #expect(wrapperSlots(read) == [-1, -1] && wrapperSlots(written) == [-1, -1] && wrapperSlots(linked) == [-1, -1])
        #expect(read.count == 3)
        #expect(wrapperSlots(read) == [0, 0])
        written.count = 9
        #expect(wrapperSlots(written) == [0, 0] && written.count == 9)
        linked.next = written
        #expect(wrapperSlots(linked) == [0, 0] && linked.next === written && linked.count == 3)
        // Made now, with the class known: slots from the start.
        #expect(wrapperSlots(MadeBeforeDiscovery()) == [0, 0])

        #expect(try savedAndFetched(linked) { $0.map(\.count).sorted() } == [3, 9])
    }

    /// An object a model's initialiser makes while its class is discovered holds recording
    /// tokens; used afterwards, it gets its slots on its first access and reads and writes as
    /// any other (a prototype asking which property a key path reads is the only reader of tokens).
    @Test func objectsMadeDuringARecordingWorkAfterIt() {
        _ = ModelDiscovery.metadata(for: RecordedMarker.self)
        let (made, _) = DeclarationRecording.record { RecordedMarker() }
        #expect(wrapperSlots(made) == [DeclarationRecording.firstToken])
        #expect(made.value == 1.5)
        made.value = 2.5
        #expect(made.value == 2.5)
        #expect(wrapperSlots(made) == [0])
    }

    /// While this thread records, another thread's new objects get no tokens (but their slots,
    /// their class being known); this thread's do, and keep them.
    @Test func onlyTheRecordingThreadsWrappersRecord() {
        _ = ModelDiscovery.metadata(for: RecordedMarker.self)
        let (slots, records) = DeclarationRecording.record { () -> (elsewhere: [Int], here: [Int]) in
            let done = DispatchSemaphore(value: 0)
            let elsewhere = LockedSlots()
            Thread {
                elsewhere.set(wrapperSlots(RecordedMarker()))
                done.signal()
            }.start()
            done.wait()
            let here = wrapperSlots(RecordedMarker())
            return (elsewhere.value, here)
        }
        #expect(slots.elsewhere == [0])
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

/// Each wrapper's slot of `object`, as reflection shows it.
private func wrapperSlots(_ object: Model) -> [Int] {
    ModelDiscovery.wrapperChildren(of: object).compactMap { ($0.value as? any PropertyWrapperSlot)?.slot }
}

/// `object` (with what it links to) saved to a new store of `T`, and `read` of what a fresh
/// context fetches back (read while the store is open).
private func savedAndFetched<T: Model, R>(_ object: T, read: ([T]) throws -> R) throws -> R {
    let store = TemporaryStore()
    let container = try store.container(T.self)
    defer { container.close() }
    let context = ModelContext(container)
    context.insert(object)
    try context.save()
    return try read(ModelContext(container).fetch(FetchDescriptor<T>()))
}
