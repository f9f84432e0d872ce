import Foundation
import GraphStoreMacrosFree

// The models of "Dive deeper into SwiftData" (WWDC 2023), declared without macros: the only
// change the ported code needs.

final class Trip: Model {
    @Attribute(.preserveValueOnDeletion) var name: String = ""
    @Attribute var destination: String = ""
    @Attribute var startDate: Date = Date(timeIntervalSince1970: 0)
    @Attribute var endDate: Date = Date(timeIntervalSince1970: 0)
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip) var bucketList: [BucketListItem] = []
    @Relationship(deleteRule: .cascade, inverse: \LivingAccommodation.trip) var livingAccommodations: [LivingAccommodation] = []

    convenience init(name: String, destination: String = "") {
        self.init()
        self.name = name
        self.destination = destination
    }
}

final class BucketListItem: Model {
    @Attribute var title: String = ""
    @Attribute var details: String = ""
    @Relationship var trip: Trip?

    convenience init(title: String) {
        self.init()
        self.title = title
    }
}

final class LivingAccommodation: Model {
    @Attribute var address: String = ""
    @Attribute var placeName: String = ""
    @Relationship var trip: Trip?

    convenience init(placeName: String, address: String = "") {
        self.init()
        self.placeName = placeName
        self.address = address
    }
}

final class Person: Model {
    @Attribute var name: String = ""
    @Relationship(deleteRule: .cascade, inverse: \Address.person) var addresses: [Address] = []

    convenience init(name: String) {
        self.init()
        self.name = name
    }
}

final class Address: Model {
    @Attribute var street: String = ""
    @Relationship var person: Person?

    convenience init(street: String) {
        self.init()
        self.street = street
    }
}

/// Xcode's SwiftData app template's model.
final class Item: Model {
    @Attribute var timestamp: Date = Date(timeIntervalSince1970: 0)

    convenience init(timestamp: Date) {
        self.init()
        self.timestamp = timestamp
    }
}
