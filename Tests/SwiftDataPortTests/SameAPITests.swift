import GraphStoreMacrosFree
import Testing

// Every row that Docs/guides/porting-from-swiftdata.md marks "same", written as a SwiftData
// user writes it: if a signature drifts from SwiftData's, this file stops compiling. It imports
// GraphStoreMacrosFree alone, as a model file does: Foundation and Observation come with it.

final class Note: Model {
    @Attribute(.unique) var title: String = ""
    @Attribute(.externalStorage) var body: Data? = nil
    @Attribute(.preserveValueOnDeletion, originalName: "heading") var heading: String = ""
    @Attribute(.unique, .spotlight) var slug: String = ""
    @Relationship(deleteRule: .cascade, minimumModelCount: 0, maximumModelCount: 10, originalName: "labels", inverse: \Tag.note)
    var tags: [Tag] = []
    @Transient var scratch: Int = 0

    convenience init(title: String) {
        self.init()
        self.title = title
        self.slug = title.lowercased()
    }
}

final class Tag: Model {
    @Attribute var name: String = ""
    @Relationship var note: Note?
}

enum NotesSchemaV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Note.self, Tag.self] }
}

enum NotesMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesSchemaV1.self] }
    static var stages: [MigrationStage] { [] }
}

@Suite struct SameAPITests {
    @Test func containerAndConfiguration() throws {
        let schema = Schema([Note.self, Tag.self])
        let memory = ModelConfiguration(schema: schema, isStoredInMemoryOnly: true, allowsSave: true)
        _ = try ModelContainer(for: schema, configurations: memory)
        _ = try ModelContainer(for: schema, configurations: [memory])
        _ = try ModelContainer(for: Note.self, Tag.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        _ = try ModelContainer(for: schema, migrationPlan: NotesMigrationPlan.self, configurations: memory)
        _ = try ModelContainer(for: Schema(versionedSchema: NotesSchemaV1.self), configurations: memory)
        _ = ModelConfiguration(for: Note.self, Tag.self, isStoredInMemoryOnly: true)

        let store = TemporaryStore()
        let named = ModelConfiguration("Notes", schema: schema, url: store.url.appendingPathComponent("default.store"), allowsSave: true)
        #expect(named.name == "Notes" && named.schema != nil && !named.isStoredInMemoryOnly && named.allowsSave)
        #expect(named.url?.lastPathComponent == "default.store")
        _ = ModelConfiguration(schema: schema, isStoredInMemoryOnly: true, allowsSave: true, groupContainer: .none, cloudKitDatabase: .none)

        let container = try ModelContainer(for: schema, configurations: named)
        #expect(container.configurations.count == 1)
        #expect(container.schema.entities.map(\.name).sorted() == ["Note", "Tag"])
        let context = ModelContext(container)
        context.insert(Note(title: "One"))
        try context.save()
        try container.deleteAllData()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 0)
    }

    @Test @MainActor func mainContext() throws {
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context: ModelContext = container.mainContext
        #expect(context.container === container)
        context.autosaveEnabled = false
        context.undoManager = UndoManager()
        #expect(context.undoManager != nil)
    }

    @Test func contextMembers() throws {
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.author = "tests"
        let note = Note(title: "Alpha")
        context.insert(note)
        #expect(context.hasChanges)
        #expect(context.insertedModelsArray.count == 1 && context.changedModelsArray.isEmpty && context.deletedModelsArray.isEmpty)
        context.processPendingChanges()
        try context.save()
        #expect(!context.hasChanges)
        try context.transaction {
            context.insert(Note(title: "Beta"))
        }
        note.title = "Alpha 2"
        #expect(note.hasChanges && context.changedModelsArray.count == 1)
        context.rollback()
        #expect(note.title == "Alpha")

        let all = FetchDescriptor<Note>(sortBy: [SortDescriptor(\.title)])
        #expect(try context.fetch(all).map(\.title) == ["Alpha", "Beta"])
        #expect(try context.fetch(all, batchSize: 1).count == 2)
        #expect(try context.fetchCount(all) == 2)
        let ids: [PersistentIdentifier] = try context.fetchIdentifiers(all)
        #expect(Array(try context.fetchIdentifiers(all, batchSize: 1)) == ids)
        #expect(context.model(for: ids[0]) === note)
        #expect(context.registeredModel(for: ids[0]) as Note? === note)
        var titles: [String] = []
        try context.enumerate(all, batchSize: 5_000, allowEscapingMutations: false) { titles.append($0.title) }
        #expect(titles == ["Alpha", "Beta"])

        var limited = FetchDescriptor<Note>(predicate: #Predicate { $0.title != "" }, sortBy: [SortDescriptor(\.title, order: .reverse)])
        limited.fetchLimit = 1
        limited.fetchOffset = 0
        limited.includePendingChanges = true
        limited.propertiesToFetch = [\.title]
        limited.relationshipKeyPathsForPrefetching = [\.tags]
        #expect(try context.fetch(limited).map(\.title) == ["Beta"])

        try context.delete(model: Note.self, where: #Predicate { $0.title == "Beta" }, includeSubclasses: true)
        context.delete(note)
        #expect(note.isDeleted)
        try context.save()
        #expect(try context.fetchCount(all) == 0)
    }

    @Test func modelMembers() throws {
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let note = Note(title: "Gamma")
        context.insert(note)
        try context.save()
        #expect(note.modelContext === context && !note.hasChanges && !note.isDeleted)
        #expect(note.getValue(forKey: \.title) == "Gamma")
        note.setValue(forKey: \.title, to: "Delta")
        #expect(note.title == "Delta")

        let id: PersistentIdentifier = note.persistentModelID
        #expect(id.entityName == "Note")
        let coded = try JSONDecoder().decode(PersistentIdentifier.self, from: try JSONEncoder().encode(id))
        #expect(coded == id)
        #expect(Set([id, coded]).count == 1)
        #expect(!(id < coded))
        let identified: any Identifiable = note
        _ = identified

        // Observation, without importing it.
        nonisolated(unsafe) var changed = false
        withObservationTracking { _ = note.title } onChange: { changed = true }
        note.title = "Epsilon"
        #expect(changed)
        let link: URL = URL(fileURLWithPath: "/tmp")
        #expect(link.path == "/tmp")
    }

    @Test func schemaDescribesEntities() throws {
        let schema = Schema([Note.self], version: Schema.Version(2, 1, 0))
        #expect(schema.version == Schema.Version(2, 1, 0))
        let note = try #require(schema.entitiesByName["Note"])
        #expect(note.name == "Note")
        let title = try #require(note.attributes.first { $0.name == "title" })
        #expect(title.isUnique && !title.isOptional)
        #expect(note.attributes.contains { $0.name == "body" && $0.isOptional })
        let tags = try #require(note.relationships.first { $0.name == "tags" })
        #expect(tags.destination == "Tag" && tags.deleteRule == .cascade && !tags.isToOneRelationship)
        #expect(tags.inverseName == "note")
        #expect(tags.minimumModelCount == 0 && tags.maximumModelCount == 10)
        #expect(schema.entities.contains { $0.name == "Tag" })
    }

    @Test func notifications() {
        let names: [Notification.Name] = [ModelContext.willSave, ModelContext.didSave]
        #expect(names.count == 2)
        let keys: [ModelContext.NotificationKey] = [.insertedIdentifiers, .updatedIdentifiers, .deletedIdentifiers,
                                                    .invalidatedAllIdentifiers, .queryGeneration]
        #expect(keys.map(\.rawValue) == ["inserted", "updated", "deleted", "invalidatedAll", "queryGeneration"])
    }
}
