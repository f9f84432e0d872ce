import Foundation
import GraphStoreModelTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

enum PilotV1 {
    final class Pilot: Model {
        @Attribute(.unique) var license: String = ""
        @Attribute var callsign: String = ""
        @Attribute(.externalStorage) var photo: Data? = nil
    }
}

enum PilotV2 {
    final class Pilot: Model {
        @Attribute(.unique) var license: String = ""
        @Attribute(originalName: "callsign") var handle: String = ""
        @Attribute(.externalStorage) var photo: Data? = nil
        @Attribute var hours: Int = 0  // new, with a default
    }
}

@Suite struct RenameAndOptionsTests {
    @Test func originalNameMapsStoredDataToTheRenamedProperty() throws {
        let store = TemporaryStore()
        do {
            let context = ModelContext(try store.container(PilotV1.Pilot.self))
            let pilot = PilotV1.Pilot()
            pilot.license = "ATP-1"
            pilot.callsign = "Maverick"
            pilot.photo = Data([1, 2, 3])
            context.insert(pilot)
            try context.save()
        }
        let container = try store.container(PilotV2.Pilot.self)
        let entity = try #require(container.schema.entity(named: "Pilot"))
        #expect(entity.attribute(named: "handle")?.originalName == "callsign")
        #expect(entity.attribute(named: "photo")?.options.contains(.externalStorage) == true)
        let pilot = try #require(try ModelContext(container).fetch(FetchDescriptor<PilotV2.Pilot>()).first)
        #expect(pilot.handle == "Maverick")
        #expect(pilot.license == "ATP-1")
        #expect(pilot.photo == Data([1, 2, 3]))
        #expect(pilot.hours == 0)
    }
}
