import Foundation
import Testing
import GraphStoreMacrosFree

// SwiftData's most common model pattern: the model's own `id`.
final class Memo: Model {
    @Attribute(.unique) var id: UUID = UUID()
    @Attribute var text: String = ""
    @Transient var isSelected = false
    lazy var wordCount: Int = text.split(separator: " ").count

    convenience init(text: String) {
        self.init()
        self.text = text
    }
}

// Declarations GraphStore must refuse by name rather than silently not store.
final class MemoWithPlainProperty: Model {
    @Attribute var text: String = ""
    var draft: String = ""
}

final class MemoWithConstant: Model {
    @Attribute var text: String = ""
    let createdBy = "me"
}

final class MemoWithModelAttribute: Model {
    @Attribute var text: String = ""
    @Attribute var trip: Trip? = nil
}

final class MemoWithModelArrayAttribute: Model {
    @Attribute var text: String = ""
    @Attribute var trips: [Trip] = []
}

@Suite struct ModelDeclarationPortTests {
    @Test func aModelsOwnIdIsAnAttributeBesideItsIdentity() throws {
        let store = TemporaryStore()
        let first = Memo(text: "one"), second = Memo(text: "two")
        #expect(first.id != second.id)
        let wanted = second.id
        do {
            let container = try ModelContainer(for: Memo.self, configurations: ModelConfiguration(url: store.url))
            let context = ModelContext(container)
            context.insert(first)
            context.insert(second)
            try context.save()
            #expect(first.persistentModelID != second.persistentModelID)
            container.close()
        }
        let container = try ModelContainer(for: Memo.self, configurations: ModelConfiguration(url: store.url))
        let context = ModelContext(container)
        let found = try context.fetch(FetchDescriptor<Memo>(predicate: #Predicate { $0.id == wanted }))
        #expect(found.map(\.text) == ["two"])
        #expect(found.first?.id == wanted)
        // Identifiable (ForEach, List) goes by the persistent identifier.
        func identity<T: Identifiable>(_ value: T) -> T.ID { value.id }
        #expect(identity(found[0]) == found[0].persistentModelID)
        // @Transient and lazy properties are the object's own.
        found[0].isSelected = true
        #expect(found[0].wordCount == 1 && found[0].isSelected)
    }

    @Test func aStoredPropertyWithoutAWrapperIsASchemaError() {
        #expect(throws: SchemaError.unstoredProperty(entity: "MemoWithPlainProperty", property: "draft")) {
            try ModelContainer(for: MemoWithPlainProperty.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect(throws: SchemaError.unstoredProperty(entity: "MemoWithConstant", property: "createdBy")) {
            try ModelContainer(for: MemoWithConstant.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect("\(SchemaError.unstoredProperty(entity: "MemoWithConstant", property: "createdBy"))".contains("@Transient"))
    }

    @Test func anAttributeHoldingModelsIsASchemaError() {
        #expect(throws: SchemaError.modelAsAttribute(entity: "MemoWithModelAttribute", property: "trip", model: "Trip")) {
            try ModelContainer(for: MemoWithModelAttribute.self, Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect(throws: SchemaError.modelAsAttribute(entity: "MemoWithModelArrayAttribute", property: "trips", model: "Trip")) {
            try ModelContainer(for: MemoWithModelArrayAttribute.self, Trip.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
    }
}
