import Foundation
import Testing
import GraphStoreMacrosFree

// `#Unique<Route>([\.carrier, \.number, \.day])` and `#Index<Route>([\.day, \.seats])` in
// SwiftData; here a class-level declaration.
final class Carrier: Model {
    @Attribute(.unique) var code: String = ""
    @Relationship(inverse: \Route.carrier) var routes: [Route] = []

    convenience init(code: String) {
        self.init()
        self.code = code
    }
}

final class Route: Model {
    @Attribute var number: Int = 0
    @Attribute var day: String = ""
    @Attribute var seats: Int = 0
    @Attribute var tail: String? = nil
    @Relationship var carrier: Carrier?

    override class var constraints: [any SchemaConstraint] {
        [Schema.Unique<Route>([\.carrier, \.number, \.day], [\.tail]),
         Schema.Index<Route>([\.day, \.seats])]
    }

    convenience init(_ carrier: Carrier?, _ number: Int, _ day: String, seats: Int = 0) {
        self.init()
        self.carrier = carrier
        self.number = number
        self.day = day
        self.seats = seats
    }
}

final class BadConstraint: Model {
    @Attribute var name: String = ""
    @Relationship var routes: [Route] = []
    override class var constraints: [any SchemaConstraint] { [Schema.Unique<BadConstraint>([\.name, \.routes])] }
}

@Suite struct CompoundConstraintTests {
    func container(_ url: URL) throws -> ModelContainer {
        try ModelContainer(for: Route.self, Carrier.self, configurations: ModelConfiguration(url: url))
    }

    /// A new store's context with the seeded routes and fifty more without a carrier, on
    /// Mondays and Fridays, with 0 to 49 seats.
    func seededWithFiftyMoreRoutes() throws -> ModelContext {
        let context = ModelContext(try container(TemporaryStore().url))
        _ = try seed(context)
        for n in 0..<50 { context.insert(Route(nil, 100 + n, n % 2 == 0 ? "Mon" : "Fri", seats: n)) }
        try context.save()
        return context
    }

    func seed(_ context: ModelContext) throws -> Carrier {
        let united = Carrier(code: "UAL")
        context.insert(united)
        context.insert(Route(united, 12, "Mon", seats: 100))
        context.insert(Route(united, 12, "Tue", seats: 100))
        try context.save()
        return united
    }

    @Test func theDeclarationBecomesTheSchema() throws {
        let schema = try container(TemporaryStore().url).schema
        let route = try #require(schema.entity(for: Route.self))
        #expect(route.compoundIndexes.map(\.description) == ["carrier, number, day", "day, seats"])
        #expect(route.compoundIndexes.map(\.isUnique) == [true, false])
        // A list of one attribute is that attribute's option.
        #expect(route.attribute(named: "tail")?.isUnique == true)
        #expect(throws: SchemaError.invalidConstraint(entity: "BadConstraint", reason:
            "routes is a to-many relationship; only attributes and to-one relationships can be constrained")) {
            try ModelContainer(for: BadConstraint.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
    }

    @Test func anInsertWithTheSameValuesUpdatesTheExistingObject() throws {
        let store = TemporaryStore()
        let container = try container(store.url)
        let united = try seed(ModelContext(container))
        let context = ModelContext(container)
        let carrier = try #require(context.existingModel(for: united.persistentModelID) as? Carrier)
        context.insert(Route(carrier, 12, "Mon", seats: 150))
        context.insert(Route(carrier, 12, "Wed", seats: 90))
        context.insert(Route(carrier, 12, "Wed", seats: 95))  // the same save: one row
        context.insert(Route(Carrier(code: "DAL"), 12, "Mon", seats: 80))  // another carrier
        context.insert(Route(nil, 12, "Mon", seats: 1))  // a nil member claims nothing
        context.insert(Route(nil, 12, "Mon", seats: 2))
        try context.save()

        let reader = ModelContext(container)
        let routes = try reader.fetch(FetchDescriptor<Route>(sortBy: [SortDescriptor(\.day), SortDescriptor(\.seats)]))
        let summary = routes.map { "\($0.carrier?.code ?? "-") \($0.number) \($0.day) \($0.seats)" }
        #expect(summary == ["- 12 Mon 1", "- 12 Mon 2", "DAL 12 Mon 80", "UAL 12 Mon 150", "UAL 12 Tue 100", "UAL 12 Wed 95"])
        #expect(carrier.routes.count == 3)
    }

    @Test func aChangeThatWouldShareTheValuesFailsTheSave() throws {
        let container = try container(TemporaryStore().url)
        _ = try seed(ModelContext(container))
        let context = ModelContext(container)
        let tuesday = try #require(try context.fetch(FetchDescriptor<Route>(predicate: #Predicate { $0.day == "Tue" })).first)
        tuesday.day = "Mon"
        #expect(throws: ModelContextError.uniqueConstraintViolation(entity: "Route", attribute: "carrier, number, day",
                                                                    value: "Carrier row 1, 12, \"Mon\"")) {
            try context.save()
        }
        // Nothing was written, and the change is still there to fix.
        #expect(context.hasChanges && tuesday.day == "Mon")
        // Swapping the two routes' days in one save is fine.
        let monday = try #require(try context.fetch(FetchDescriptor<Route>(predicate: #Predicate { $0.seats == 100 && $0.day == "Mon" }))
            .first { $0 !== tuesday })
        monday.day = "Tue"
        try context.save()
        let days = try ModelContext(container).fetch(FetchDescriptor<Route>(sortBy: [SortDescriptor(\.day)])).map(\.day)
        #expect(days == ["Mon", "Tue"])
    }

    /// Single-attribute and compound rules are kept alike: an insert that takes one row through
    /// one rule (its tail) while another row holds its key under the other rule fails the save.
    @Test func anUpsertThatWouldShareAnotherRulesKeyFailsTheSave() throws {
        let container = try container(TemporaryStore().url)
        let context = ModelContext(container)
        let united = try seed(context)
        let routes = try context.fetch(FetchDescriptor<Route>(sortBy: [SortDescriptor(\.day)]))
        routes[0].tail = "N1"  // Mon
        routes[1].tail = "N2"  // Tue
        try context.save()
        let clash = Route(united, 12, "Mon", seats: 7)
        clash.tail = "N2"  // Tuesday's tail, Monday's key
        context.insert(clash)
        #expect(throws: ModelContextError.uniqueConstraintViolation(entity: "Route", attribute: "carrier, number, day",
                                                                    value: "Carrier row 1, 12, \"Mon\"")) {
            try context.save()
        }
        let stored = try ModelContext(container).fetch(FetchDescriptor<Route>(sortBy: [SortDescriptor(\.day)]))
        #expect(stored.map { "\($0.day) \($0.tail ?? "-") \($0.seats)" } == ["Mon N1 100", "Tue N2 100"])
    }

    @Test func fetchesThatNameEveryMemberUseTheIndex() throws {
        let context = try seededWithFiftyMoreRoutes()

        let code = "UAL", number = 12, day = "Tue"
        let byKey = FetchDescriptor<Route>(predicate: #Predicate { $0.number == number && $0.day == day && $0.carrier?.code == code })
        #expect(try context.explain(byKey).contains("compound index Route(carrier, number, day)"))
        #expect(try context.fetch(byKey).map(\.day) == ["Tue"])
        let missing = FetchDescriptor<Route>(predicate: #Predicate { $0.number == 12 && $0.day == "Tue" && $0.carrier?.code == "NOPE" })
        #expect(try context.fetch(missing).isEmpty)

        let byIndex = FetchDescriptor<Route>(predicate: #Predicate { $0.seats == 10 && $0.day == "Mon" })
        #expect(try context.explain(byIndex).contains("compound index Route(day, seats)"))
        #expect(try context.fetch(byIndex).map(\.number) == [110])
        // Not every member named: no compound index.
        let partial = FetchDescriptor<Route>(predicate: #Predicate { $0.day == "Mon" })
        #expect(try !context.explain(partial).contains("compound"))
        #expect(try context.fetchCount(partial) == 26)
    }

    /// The optional-filter idiom (`anyDay || $0.day == day`, each filter on or off) still names
    /// every member when its filters are on, and finds what a scan finds either way.
    @Test func optionalFiltersThatNameEveryMemberUseTheIndex() throws {
        let context = try seededWithFiftyMoreRoutes()
        func filter(day: String?, seats: Int?) -> FetchDescriptor<Route> {
            let anyDay = day == nil, anySeats = seats == nil, day = day ?? "", seats = seats ?? 0
            return FetchDescriptor<Route>(predicate: #Predicate { (anyDay || $0.day == day) && (anySeats || $0.seats == seats) },
                                          sortBy: [SortDescriptor(\.number)])
        }
        #expect(try context.explain(filter(day: "Mon", seats: 10)).contains("compound index Route(day, seats)"))
        #expect(try context.fetch(filter(day: "Mon", seats: 10)).map(\.number) == [110])
        #expect(try context.fetch(filter(day: "Fri", seats: 10)).isEmpty)
        // A filter off: not every member named.
        #expect(try !context.explain(filter(day: "Mon", seats: nil)).contains("compound"))
        #expect(try context.fetchCount(filter(day: "Mon", seats: nil)) == 26)
        #expect(try context.fetch(filter(day: nil, seats: 11)).map(\.number) == [111])
        let scanned = try context.fetch(FetchDescriptor<Route>()).filter { $0.day == "Mon" && $0.seats == 10 }.map(\.number)
        #expect(scanned == [110])
    }

    @Test func theIndexesSurviveReopeningFromTheLogAndFromACheckpoint() throws {
        let store = TemporaryStore()
        do {
            let container = try container(store.url)
            _ = try seed(ModelContext(container))
            container.close()
        }
        for round in 0..<2 {
            let container = try container(store.url)
            if round == 1 { _ = try container.checkpoint() }
            let context = ModelContext(container)
            let united = try #require(try context.fetch(FetchDescriptor<Carrier>()).first)
            context.insert(Route(united, 12, "Mon", seats: 200 + round))
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<Route>()) == 2)
            let monday = FetchDescriptor<Route>(predicate: #Predicate { $0.number == 12 && $0.day == "Mon" && $0.carrier?.code == "UAL" })
            #expect(try context.fetch(monday).map(\.seats) == [200 + round])
            container.close()
        }
        let container = try container(store.url)
        _ = try container.checkpoint()
        container.close()
        let reopened = ModelContext(try self.container(store.url))
        let monday = FetchDescriptor<Route>(predicate: #Predicate { $0.number == 12 && $0.day == "Mon" && $0.carrier?.code == "UAL" })
        #expect(try reopened.explain(monday).contains("compound index"))
        #expect(try reopened.fetch(monday).map(\.seats) == [201])
    }

    @Test func aBatchInsertRefusesUniquenessItCannotKeep() throws {
        let container = try container(TemporaryStore().url)
        #expect(throws: ModelContextError.self) { try BatchInsert(Route.self, in: container) }
    }
}
