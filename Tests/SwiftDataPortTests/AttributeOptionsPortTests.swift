import Foundation
import Testing
import GraphStoreMacrosFree

/// A type with no Codable conformance, stored through a ValueTransformer as Core Data and
/// SwiftData apps do (a UIColor, say).
final class Shade: Equatable {
    let red: Int, green: Int, blue: Int
    init(red: Int, green: Int, blue: Int) { (self.red, self.green, self.blue) = (red, green, blue) }
    static func == (a: Shade, b: Shade) -> Bool { (a.red, a.green, a.blue) == (b.red, b.green, b.blue) }
}

final class ShadeTransformer: ValueTransformer {
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        guard let shade = value as? Shade else { return nil }
        return Data("\(shade.red),\(shade.green),\(shade.blue)".utf8)
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: ",").compactMap { Int($0) }
        return parts.count == 3 ? Shade(red: parts[0], green: parts[1], blue: parts[2]) : nil
    }
}

final class Swatch: Model {
    @Attribute(.spotlight, .allowsCloudEncryption) var name: String = ""
    @Attribute(.transformable(by: ShadeTransformer.self)) var shade: Shade = Shade(red: 0, green: 0, blue: 0)
    @Attribute(.transformable(by: ShadeTransformer.self)) var accent: Shade? = nil
    @Attribute(.transformable(by: "SwatchBorderTransformer")) var border: Shade? = nil
    @Attribute(.ephemeral) var isHighlighted: Bool = false
    @Attribute(.ephemeral) var dragOffset: Double = 0

    convenience init(name: String) {
        self.init()
        self.name = name
    }
}

@Suite(.serialized) struct AttributeOptionsPortTests {
    init() {
        ValueTransformer.setValueTransformer(ShadeTransformer(), forName: NSValueTransformerName("SwatchBorderTransformer"))
    }

    func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Swatch.self, configurations: ModelConfiguration(url: url))
    }

    @Test func transformableValuesAreStoredThroughTheirTransformer() throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try container(store.url))
            let swatch = Swatch(name: "sky")
            swatch.shade = Shade(red: 10, green: 20, blue: 250)
            context.insert(swatch)
            swatch.border = Shade(red: 1, green: 2, blue: 3)
            try context.save()
        }
        let context = ModelContext(try container(store.url))
        let swatch = try #require(try context.fetch(FetchDescriptor<Swatch>()).first)
        #expect(swatch.shade == Shade(red: 10, green: 20, blue: 250))
        #expect(swatch.accent == nil)
        #expect(swatch.border == Shade(red: 1, green: 2, blue: 3))
        let attribute = try #require(context.container.schema.entity(for: Swatch.self)?.attribute(named: "shade"))
        #expect(attribute.type == AttributeType(kind: .data, isOptional: false))
    }

    @Test func aValueTheTransformerCannotStoreFailsTheSaveByName() throws {
        let context = ModelContext(try container(TemporaryStore().url))
        let swatch = Swatch(name: "unnamed")
        context.insert(swatch)
        ValueTransformer.setValueTransformer(nil, forName: NSValueTransformerName("SwatchBorderTransformer"))
        defer { ValueTransformer.setValueTransformer(ShadeTransformer(), forName: NSValueTransformerName("SwatchBorderTransformer")) }
        swatch.border = Shade(red: 9, green: 9, blue: 9)
        #expect {
            try context.save()
        } throws: { error in
            guard case let ModelContextError.encodingFailed(entity, attribute, _) = error else { return false }
            return entity == "Swatch" && attribute == "border"
        }
        // A value that encodes clears the failure, and the same save goes through.
        ValueTransformer.setValueTransformer(ShadeTransformer(), forName: NSValueTransformerName("SwatchBorderTransformer"))
        swatch.border = Shade(red: 4, green: 5, blue: 6)
        try context.save()
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Swatch>()).first?.border == Shade(red: 4, green: 5, blue: 6))
    }

    @Test func ephemeralValuesAreObservedButNeverSaved() throws {
        let store = TemporaryStore()
        let id: PersistentIdentifier
        do {
            let container = try container(store.url)
            let context = ModelContext(container)
            let swatch = Swatch(name: "sea")
            swatch.isHighlighted = true  // before the insert
            context.insert(swatch)
            try context.save()
            id = swatch.persistentModelID
            #expect(swatch.isHighlighted)
            #expect(!context.hasChanges)
            swatch.dragOffset = 12.5
            #expect(swatch.dragOffset == 12.5)
            #expect(!context.hasChanges && !swatch.hasChanges)

            final class Flag: @unchecked Sendable { var fired = false }
            let changed = Flag()
            withObservationTracking { _ = swatch.dragOffset } onChange: { changed.fired = true }
            swatch.dragOffset = 3
            #expect(changed.fired)

            // Not shared with other contexts: they read the initial value.
            let other = ModelContext(container)
            let seen = try #require(other.existingModel(for: id) as? Swatch)
            #expect(!seen.isHighlighted && seen.dragOffset == 0)

            swatch.name = "deep sea"
            try context.save()
            #expect(swatch.dragOffset == 3 && swatch.isHighlighted)
            // Neither is in history.
            let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            for transaction in history {
                for case let .update(update) in transaction.changes {
                    let names = (update as? DefaultHistoryUpdate<Swatch>)?.updatedAttributeNames ?? []
                    #expect(!names.contains("dragOffset") && !names.contains("isHighlighted"))
                }
            }
        }
        let context = ModelContext(try container(store.url))
        let swatch = try #require(context.existingModel(for: id) as? Swatch)
        #expect(swatch.name == "deep sea" && !swatch.isHighlighted && swatch.dragOffset == 0)
    }

    @Test func spotlightAndCloudEncryptionAreAcceptedAndChangeNothingStored() throws {
        let context = ModelContext(try container(TemporaryStore().url))
        let name = try #require(context.container.schema.entity(for: Swatch.self)?.attribute(named: "name"))
        #expect(name.options.contains(.spotlight) && name.options.contains(.allowsCloudEncryption))
        #expect(name.options.recordedFlags == 0)
    }
}
