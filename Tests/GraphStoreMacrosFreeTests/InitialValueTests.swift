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
