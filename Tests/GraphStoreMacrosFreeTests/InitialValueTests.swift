import Foundation
import GraphStoreMacrosFree
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore

/// A model whose initial values differ per object, as SwiftData apps write them.
final class Note: Model {
    @Attribute(.unique) var key: UUID = UUID()
    @Attribute var created: Date = Date()
    @Attribute var text: String = ""
}

/// An object saves the values it showed. Initial values that differ per object (`= UUID()`,
/// `= Date()`) used to be saved as the schema's default — the type's first instance's value —
/// so two new objects with a unique `= UUID()` key became one row (the second an upsert of the
/// first) and the first object's data was lost.
@Suite struct InitialValueTests {
    @Test func eachObjectSavesItsOwnInitialValues() throws {
        let store = TemporaryStore()
        var expected: [String: (UUID, Date)] = [:]
        do {
            let container = try store.container(Note.self)
            let context = ModelContext(container)
            for i in 0..<5 {
                let note = Note()
                note.text = "note \(i)"
                expected[note.text] = (note.key, note.created)  // what the object shows before insert
                context.insert(note)
                #expect(note.key == expected[note.text]!.0)
            }
            try context.save()
            container.close()
        }
        let reopened = try store.container(Note.self)
        defer { reopened.close() }
        let notes = try ModelContext(reopened).fetch(FetchDescriptor<Note>())
        #expect(notes.count == 5)
        for note in notes {
            let (key, created) = try #require(expected[note.text])
            #expect(note.key == key)
            #expect(note.created == created)
        }
    }

    @Test func anAssignedValueWinsOverTheInitialOne() throws {
        let context = ModelContext(try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let chosen = UUID()
        let before = Note()
        before.key = chosen                    // assigned while unmanaged
        context.insert(before)
        let after = Note()
        context.insert(after)
        let later = UUID()
        after.key = later                      // assigned after insert
        try context.save()
        let keys = Set(try context.fetch(FetchDescriptor<Note>()).map(\.key))
        #expect(keys == [chosen, later])
    }

    @Test func onlyAttributesThatDifferPerObjectAreCaptured() {
        #expect(Set(Note().persistentInitialValues().keys) == ["key", "created"])
        #expect(Flight().persistentInitialValues().isEmpty)  // constant initial values: nothing to record
    }
}

/// Hands out 1, 2, 3…: an initial value that tells how many times it was evaluated.
enum TicketSerials {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var last = 0

    static func next() -> Int { lock.withLock { last += 1; return last } }
    static var evaluated: Int { lock.withLock { last } }
}

final class Ticket: Model {
    @Attribute var serial: Int = TicketSerials.next()
    @Attribute var seat: String = ""
}

/// An initial value is an expression the class keeps, not a value every object carries: an
/// object evaluates its own only when it needs it (read or inserted), once, and an object made
/// for a fetched row never does.
@Suite struct OwnInitialValueTests {
    @Test func anObjectEvaluatesItsOwnOnceAndFetchedObjectsNever() throws {
        let container = try ModelContainer(for: Ticket.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let before = TicketSerials.evaluated
        let read = Ticket(), unread = Ticket(), assigned = Ticket()
        #expect(TicketSerials.evaluated == before)              // made, not yet evaluated
        let serial = read.serial
        #expect(read.serial == serial)                          // kept: the same on every read
        #expect(TicketSerials.evaluated == before + 1)
        assigned.serial = -1
        let context = ModelContext(container)
        for ticket in [read, unread, assigned] { context.insert(ticket) }
        #expect(TicketSerials.evaluated == before + 2)          // `unread`, at its insert
        #expect(unread.serial != serial && unread.serial > before)
        try context.save()
        let afterSave = TicketSerials.evaluated
        let fetcher = ModelContext(container)
        let fetched = try fetcher.fetch(FetchDescriptor<Ticket>(sortBy: [SortDescriptor(\.serial)]))
        #expect(fetched.map(\.serial) == [-1, serial, unread.serial])
        #expect(TicketSerials.evaluated == afterSave)           // objects for rows evaluate nothing
    }

    @Test func anObjectEncodesItsOwnValueAndSavesTheSame() throws {
        let note = Note()
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(note)) as? [String: Any]
        let text = try #require(encoded?["key"] as? String)
        let key = try #require(UUID(uuidString: text))
        #expect(note.key == key)
        #expect(Note().key != key)
        let context = ModelContext(try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        context.insert(note)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Note>()).map(\.key) == [key])
    }
}
