import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

@Suite struct PlannerTests {
    func randomGraph(seed: UInt64) throws -> (ModelContext, [Airport], SplitMix64) {
        var rng = SplitMix64(seed: seed)
        let context = ModelContext(try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let airports = (0..<8).map { i -> Airport in
            let a = Airport(icao: "K\(i)", name: ["Zürich", "San Jose", "Chicago", "Santa Ana", "Denver", "", "Sanford", "Oslo"][i])
            context.insert(a)
            return a
        }
        for i in 0..<200 {
            let f = Flight(ident: "F\(i)")
            context.insert(f)
            f.routeDistance = Int(rng.next() % 50) * 10
            f.status = FlightStatus.allCases[Int(rng.next() % 3)]
            if rng.next() % 3 == 0 { f.actualOff = Date(timeIntervalSince1970: Double(rng.next() % 1000)) }
            if rng.next() % 5 != 0 { f.origin = airports[Int(rng.next() % 8)] }
            if rng.next() % 5 != 0 { f.destination = airports[Int(rng.next() % 8)] }
        }
        try context.save()
        return (context, airports, rng)
    }

    func flightPredicates(_ rng: inout SplitMix64) -> [(String, Predicate<Flight>)] {
        let c = Int(rng.next() % 50) * 10, d = Int(rng.next() % 50) * 10
        let ident = "F\(rng.next() % 220)", ident2 = "F\(rng.next() % 220)"
        let icao: String? = "K\(rng.next() % 9)", icao2: String? = "K\(rng.next() % 9)"
        let plain = "K\(rng.next() % 9)"
        let prefix = "F1"
        let low = min(c, d), high = max(c, d)
        let count = Int(rng.next() % 40)
        let enroute = FlightStatus.enroute
        let cutoff = Date(timeIntervalSince1970: Double(rng.next() % 1000)), epoch = Date(timeIntervalSince1970: 0)
        return [
            ("ident ==", #Predicate { $0.ident == ident }),
            ("distance >", #Predicate { $0.routeDistance > c }),
            ("distance <=", #Predicate { $0.routeDistance <= c }),
            ("distance ==", #Predicate { $0.routeDistance == c }),
            ("constant on the left", #Predicate { c <= $0.routeDistance }),
            ("range", #Predicate { $0.routeDistance > low && $0.routeDistance < high }),
            ("IN", #Predicate { [ident, ident2, "F3"].contains($0.ident) }),
            ("destination icao", #Predicate { $0.destination?.icao == icao }),
            ("origin and distance", #Predicate { $0.origin?.icao == icao && $0.routeDistance > d }),
            ("or", #Predicate { $0.destination?.icao == icao || $0.origin?.icao == icao2 }),
            ("or with a scan side", #Predicate { $0.ident == ident || $0.actualOff == nil }),
            ("nil", #Predicate { $0.actualOff == nil }),
            ("date after", #Predicate { ($0.actualOff ?? epoch) > cutoff }),
            ("date at or before, with an index", #Predicate { $0.routeDistance > c && ($0.actualOff ?? epoch) <= cutoff }),
            ("not", #Predicate { !($0.routeDistance > c) }),
            ("starts with", #Predicate { $0.ident.starts(with: prefix) }),
            ("enum", #Predicate { $0.status == enroute }),
            ("coalesce", #Predicate { ($0.destination?.icao ?? "none") == plain }),
            ("no destination", #Predicate { $0.destination?.icao == nil }),
            ("no destination relationship", #Predicate { $0.destination == nil }),
            ("an origin relationship", #Predicate { nil != $0.origin }),
            ("to-many count through a chain", #Predicate { ($0.destination?.flightsTo.count ?? 0) > count }),
            ("and of indexes", #Predicate { $0.ident == ident && $0.destination?.icao == icao }),
            ("two inverse sets", #Predicate { $0.destination?.icao == icao && $0.origin?.icao == icao2 && $0.actualOff != nil }),
            ("not this destination", #Predicate { $0.destination?.icao != icao }),
            ("an index beside a node only objects answer", #Predicate { $0.ident.starts(with: prefix) && $0.destination?.icao == icao }),
        ]
    }

    func airportPredicates(_ rng: inout SplitMix64) -> [(String, Predicate<Airport>)] {
        let count = Int(rng.next() % 40), distance = Int(rng.next() % 50) * 10
        let icao = "K\(rng.next() % 9)"
        let text = ["san", "ZUR", "o", "x", "oslo"][Int(rng.next() % 5)]
        let same = ComparisonResult.orderedSame
        return [
            ("departures count", #Predicate { $0.flightsFrom.count > count }),
            ("contains where", #Predicate { $0.flightsTo.contains { $0.routeDistance > distance } }),
            ("filter count", #Predicate { $0.flightsFrom.filter { $0.actualOff != nil }.count >= 3 }),
            ("contains", #Predicate { $0.name.contains(text) }),
            ("localized standard contains", #Predicate { $0.name.localizedStandardContains(text) }),
            ("case-insensitive compare", #Predicate { $0.name.caseInsensitiveCompare(text) == same }),
            ("icao", #Predicate { $0.icao == icao }),
        ]
    }

    func fetchBoth<T: PersistentModel>(_ context: ModelContext, _ descriptor: FetchDescriptor<T>) throws -> ([PersistentIdentifier], [PersistentIdentifier]) {
        context.plansQueries = true
        let planned = try context.fetch(descriptor).map(\.persistentModelID)
        context.plansQueries = false
        let scanned = try context.fetch(descriptor).map(\.persistentModelID)
        context.plansQueries = true
        return (planned, scanned)
    }

    /// Random predicates over random graphs: the planned answer equals the scan's, in the same
    /// order, sorted or not, with and without unsaved changes.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func plannedFetchesEqualScans(seed: UInt64) throws {
        var (context, airports, rng) = try randomGraph(seed: seed)
        for round in 0..<3 {
            if round == 2 {
                // Unsaved changes to flights alone: rows are evaluated compiled, changed ones on objects.
                try context.save()
                let flights = try context.fetch(FetchDescriptor<Flight>())
                for _ in 0..<30 {
                    let f = flights[Int(rng.next() % UInt64(flights.count))]
                    switch rng.next() % 3 {
                    case 0: f.routeDistance = Int(rng.next() % 50) * 10
                    case 1: if !f.isDeleted && f.origin == nil && f.destination == nil { context.delete(f) }
                    default:
                        let n = Flight(ident: "M\(rng.next() % 1000)")
                        n.routeDistance = Int(rng.next() % 50) * 10
                        context.insert(n)
                    }
                }
                #expect(context.hasChanges)
            }
            if round == 1 {
                // Unsaved changes: moves, inserts, deletes, a renamed airport.
                let flights = try context.fetch(FetchDescriptor<Flight>())
                for _ in 0..<30 {
                    let f = flights[Int(rng.next() % UInt64(flights.count))]
                    switch rng.next() % 4 {
                    case 0: f.routeDistance = Int(rng.next() % 50) * 10
                    case 1: f.destination = airports[Int(rng.next() % 8)]
                    case 2: context.delete(f)
                    default:
                        let n = Flight(ident: "N\(rng.next() % 1000)")
                        context.insert(n)
                        n.destination = airports[Int(rng.next() % 8)]
                        n.routeDistance = Int(rng.next() % 50) * 10
                    }
                }
                airports[1].icao = "K8"
            }
            for (name, predicate) in flightPredicates(&rng) {
                let sorts: [[SortDescriptor<Flight>]] = [[], [SortDescriptor(\.routeDistance, order: .reverse), SortDescriptor(\.ident)],
                                                         [SortDescriptor(\.destination?.icao)]]
                for sortBy in sorts {
                    var descriptor = FetchDescriptor(predicate: predicate, sortBy: sortBy)
                    let (planned, scanned) = try fetchBoth(context, descriptor)
                    #expect(planned == scanned, "seed \(seed) round \(round): \(name)")
                    descriptor.fetchLimit = 5
                    descriptor.fetchOffset = 2
                    let (p, s) = try fetchBoth(context, descriptor)
                    #expect(p == s, "seed \(seed) round \(round): \(name), paged")
                    #expect(try context.fetchCount(descriptor) == s.count)
                }
            }
            for (name, predicate) in airportPredicates(&rng) {
                let (planned, scanned) = try fetchBoth(context, FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)]))
                #expect(planned == scanned, "seed \(seed) round \(round): \(name)")
            }
        }
    }

    @Test func theScanMatchesPlainSwift() throws {
        let (context, _, _) = try randomGraph(seed: 9)
        let all = try context.fetch(FetchDescriptor<Flight>())
        let expected = all.filter { $0.destination?.icao == "K2" && $0.routeDistance > 100 }.map(\.ident).sorted()
        let found = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.destination?.icao == "K2" && $0.routeDistance > 100 },
                                                              sortBy: [SortDescriptor(\.ident)]))
        #expect(found.map(\.ident) == expected)
    }

    /// An enum is stored by its raw value but compared by its own `Comparable` (a status in the
    /// order of a flight's life): a comparison of it is decided on objects, as Swift decides it,
    /// whether the attribute is indexed (no range of its sorted index) or not.
    @Test func enumsCompareByTheirOwnOrderNotTheirRawValues() throws {
        let container = try ModelContainer(for: Flight.self, IndexedStatus.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let loader = ModelContext(container)
        for i in 0..<30 {
            let flight = Flight(ident: "F\(i)")
            loader.insert(flight)
            flight.status = FlightStatus.allCases[(i * 7) % 3]
            let indexed = IndexedStatus()
            loader.insert(indexed)
            indexed.status = flight.status
            indexed.number = i
        }
        try loader.save()
        let context = ModelContext(container)
        let flights = try context.fetch(FetchDescriptor<Flight>())
        let indexed = try context.fetch(FetchDescriptor<IndexedStatus>())
        for status in FlightStatus.allCases {
            let before = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.status < status }))
            #expect(Set(before.map(\.ident)) == Set(flights.filter { $0.status < status }.map(\.ident)), "< \(status)")
            let from = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { status <= $0.status }))
            #expect(Set(from.map(\.ident)) == Set(flights.filter { status <= $0.status }.map(\.ident)), "<= \(status)")
            #expect(!before.isEmpty || status == .scheduled)
            let indexedBefore = try context.fetch(FetchDescriptor<IndexedStatus>(predicate: #Predicate { $0.status < status }))
            #expect(Set(indexedBefore.map(\.number)) == Set(indexed.filter { $0.status < status }.map(\.number)), "indexed < \(status)")
        }
    }

    @Test func explainNamesEachPath() throws {
        let (context, _, _) = try randomGraph(seed: 5)
        func explain(_ predicate: Predicate<Flight>) throws -> String {
            try context.explain(FetchDescriptor(predicate: predicate)).split(separator: "\n").first.map(String.init) ?? ""
        }
        #expect(try explain(#Predicate { $0.ident == "F7" }).hasPrefix("unique index Flight.ident = \"F7\": 1 row(s)"))
        #expect(try explain(#Predicate { $0.routeDistance == 100 }).hasPrefix("index Flight.routeDistance = 100"))
        #expect(try explain(#Predicate { $0.routeDistance > 300 }).hasPrefix("sorted index Flight.routeDistance > 300"))
        #expect(try explain(#Predicate { ["F1", "F2"].contains($0.ident) }).hasPrefix("unique index Flight.ident IN 2 value(s): 2 row(s)"))
        #expect(try explain(#Predicate { $0.destination?.icao == "K3" }).hasPrefix("inverse set of Airport.icao = \"K3\" through Flight.destination"))
        #expect(try explain(#Predicate { $0.ident == "F7" && $0.routeDistance > 0 }).hasPrefix("unique index Flight.ident = \"F7\": 1 row(s), the narrower side of an AND"))
        #expect(try explain(#Predicate { $0.routeDistance >= 0 && $0.routeDistance < 1_000_000 }).hasPrefix("intersection of (sorted index Flight.routeDistance"))
        #expect(try explain(#Predicate { $0.ident == "F7" && $0.actualOff == nil }).hasPrefix("unique index Flight.ident"))
        #expect(try explain(#Predicate { $0.actualOff == nil }).hasPrefix("scan Flight: 200 row(s)"))
        #expect(try explain(#Predicate { $0.ident == "F7" || $0.destination?.icao == "K3" })
            .hasPrefix("union of (unique index Flight.ident = \"F7\": 1 row(s)) and (inverse set of Airport.icao = \"K3\""))
        // A node the planner does not know (a String function) leaves the rest of the tree planned.
        #expect(try explain(#Predicate { $0.ident.starts(with: "F1") && $0.destination?.icao == "K3" })
            .hasPrefix("inverse set of Airport.icao = \"K3\" through Flight.destination"))
        let full = try context.explain(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "F7" }, sortBy: [SortDescriptor(\.ident)]))
        #expect(full.contains("filter by the predicate, compiled, on rows") && full.contains("sort by 1 key(s)"))
        let onObjects = try context.explain(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident.starts(with: "F1") }))
        #expect(onObjects.contains("filter by the predicate on objects"))
    }
}

@Suite struct PlannerFoldingTests {
    @Test func anOptionalFilterThatIsOffStillUsesTheIndex() throws {
        let context = ModelContext(try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        for i in 0..<20 { context.insert(Flight(ident: "F\(i)")) }
        try context.save()
        let filter: String? = "F3"
        let anyIdent = filter == nil
        let wanted = filter ?? ""
        let descriptor = FetchDescriptor<Flight>(predicate: #Predicate { anyIdent || $0.ident == wanted })
        #expect(try context.explain(descriptor).hasPrefix("unique index Flight.ident"))
        #expect(try context.fetch(descriptor).map(\.ident) == ["F3"])
        let everything = true
        let all = FetchDescriptor<Flight>(predicate: #Predicate { everything || $0.ident == wanted })
        #expect(try context.explain(all).hasPrefix("scan Flight"))
        #expect(try context.fetchCount(all) == 20)
    }
}

@Suite struct PredicateStringFunctionTests {
    @Test func localizedStandardContainsAndCaseInsensitiveCompareWork() throws {
        let context = ModelContext(try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        for name in ["Zürich", "Oslo", "San José", "Chicago"] { context.insert(Airport(icao: name, name: name)) }
        try context.save()
        let zur = "zur", oslo = "OSLO", jose = "jose", same = ComparisonResult.orderedSame
        #expect(try context.fetch(FetchDescriptor<Airport>(predicate: #Predicate { $0.name.localizedStandardContains(zur) })).map(\.name) == ["Zürich"])
        #expect(try context.fetch(FetchDescriptor<Airport>(predicate: #Predicate { $0.name.localizedStandardContains(jose) })).map(\.name) == ["San José"])
        #expect(try context.fetch(FetchDescriptor<Airport>(predicate: #Predicate { $0.name.caseInsensitiveCompare(oslo) == same })).map(\.name) == ["Oslo"])
        let before = ComparisonResult.orderedAscending, denver = "denver"
        #expect(try context.fetch(FetchDescriptor<Airport>(predicate: #Predicate { $0.name.localizedCompare(denver) == before })).map(\.name) == ["Chicago"])
    }
}

extension Flight {
    /// A computed, non-optional Date key (as the Enroute app's `arrival`).
    var departureOrEpoch: Date { actualOff ?? Date(timeIntervalSince1970: 0) }
}

@Suite struct SortingTests {
    /// Fetch sorting reads a numeric or date first key once per object; the order must be
    /// exactly Foundation's (`sorted(using:)`), ties and all, forward and reverse.
    @Test(arguments: [SortOrder.forward, .reverse])
    func decoratedSortingMatchesFoundation(order: SortOrder) throws {
        let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                           configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        var random = SplitMix64(seed: 99)
        for i in 0..<300 {
            let flight = Flight(ident: "F\(random.next() % 1000)-\(i)")
            flight.routeDistance = Int(random.next() % 40)          // many ties
            flight.actualOff = i % 7 == 0 ? nil : Date(timeIntervalSince1970: Double(random.next() % 50) * 60)
            context.insert(flight)
        }
        try context.save()
        let all = try context.fetch(FetchDescriptor<Flight>())
        for sort in [[SortDescriptor(\Flight.routeDistance, order: order), SortDescriptor(\Flight.ident)],
                     [SortDescriptor(\Flight.routeDistance, order: order)],
                     [SortDescriptor(\Flight.actualOff, order: order), SortDescriptor(\Flight.ident, order: order)],
                     // A computed Date (read through a typed key path), ties to ident.
                     [SortDescriptor(\Flight.departureOrEpoch, order: order), SortDescriptor(\Flight.ident)]] {
            let fetched = try context.fetch(FetchDescriptor<Flight>(sortBy: sort)).map(\.ident)
            #expect(fetched == all.sorted(using: sort).map(\.ident) || fetched == stableFoundationSort(all, sort).map(\.ident))
            #expect(try context.stableSorted(all, by: sort).map(\.ident) == stableFoundationSort(all, sort).map(\.ident))
        }
    }

    /// Foundation's order, ties kept in input order.
    func stableFoundationSort(_ items: [Flight], _ sort: [SortDescriptor<Flight>]) -> [Flight] {
        items.enumerated().sorted { a, b in
            for descriptor in sort {
                switch descriptor.compare(a.element, b.element) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return a.offset < b.offset
        }.map(\.element)
    }
}

@Suite struct KeyLookupTests {
    /// A context of an in-memory store with `count` saved flights, F0, F1…
    static func savedFlights(_ count: Int) throws -> ModelContext {
        let context = ModelContext(try ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                                      configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        for i in 0..<count { context.insert(Flight(ident: "F\(i)")) }
        try context.save()
        return context
    }

    /// `#Predicate { $0.key == value }` on a unique key goes straight to the index when the
    /// context has no unsaved changes; with unsaved changes it takes the general path, which
    /// sees them. Either way the answer is the predicate's.
    @Test func aUniqueKeyPredicateAnswersFromTheIndexAndSeesUnsavedChanges() throws {
        let context = try Self.savedFlights(50)
        func idents(_ ident: String) throws -> [String] {
            try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == ident })).map(\.ident)
        }
        #expect(try idents("F7") == ["F7"])
        #expect(try idents("F99").isEmpty)
        let flight = try #require(try context.fetchUnique(\Flight.ident, equals: "F7"))
        #expect(try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "F7" })).first === flight)
        flight.ident = "G7"                       // unsaved
        #expect(try idents("F7").isEmpty)
        #expect(try idents("G7") == ["G7"])
        var paged = FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "F8" })
        paged.fetchOffset = 1
        #expect(try context.fetch(paged).isEmpty)
        try context.save()
        #expect(try idents("G7") == ["G7"])
        #expect(try context.fetchCount(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "G7" })) == 1)
    }

    /// Lookups by an optional String key and an Int key answer what a plain scan answers,
    /// for present, missing and nil constants; with an unsaved change the changed object answers.
    @Test func lookupsByOptionalStringAndIntKeysAnswerAsAScanDoes() throws {
        let container = try ModelContainer(for: Badge.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        for i in 0..<20 {
            let badge = Badge()
            context.insert(badge)
            badge.number = i
            badge.code = i % 5 == 0 ? nil : "B\(i)"
        }
        try context.save()
        let scanning = ModelContext(container)
        scanning.plansQueries = false
        func numbers(_ descriptor: FetchDescriptor<Badge>, in context: ModelContext) throws -> [Int] {
            try context.fetch(descriptor).map(\.number).sorted()
        }
        func check() throws {
            for code in ["B3", "B5", "B99", nil] as [String?] {
                let descriptor = FetchDescriptor<Badge>(predicate: #Predicate { $0.code == code })
                #expect(try numbers(descriptor, in: context) == numbers(descriptor, in: scanning))
            }
            for number in [0, 7, 19, 20] {
                let descriptor = FetchDescriptor<Badge>(predicate: #Predicate { $0.number == number })
                #expect(try numbers(descriptor, in: context) == numbers(descriptor, in: scanning))
            }
        }
        try check()
        #expect(try numbers(FetchDescriptor<Badge>(predicate: #Predicate { $0.code == "B3" }), in: context) == [3])
        #expect(try numbers(FetchDescriptor<Badge>(predicate: #Predicate { $0.number == 7 }), in: context) == [7])
        let seven = try #require(try context.fetch(FetchDescriptor<Badge>(predicate: #Predicate { $0.number == 7 })).first)
        seven.code = "Z7"
        seven.number = 70
        #expect(try numbers(FetchDescriptor<Badge>(predicate: #Predicate { $0.code == "Z7" }), in: context) == [70])
        #expect(try context.fetch(FetchDescriptor<Badge>(predicate: #Predicate { $0.code == "B7" })).isEmpty)
        #expect(try context.fetch(FetchDescriptor<Badge>(predicate: #Predicate { $0.number == 70 })).first === seven)
        try context.save()
        try check()
        #expect(try numbers(FetchDescriptor<Badge>(predicate: #Predicate { $0.code == "Z7" }), in: context) == [70])
        #expect(try context.fetch(FetchDescriptor<Badge>(predicate: #Predicate { $0.number == 7 })).isEmpty)
    }

    /// A unique-key lookup's answer is an ordinary array of the model type: it grows, shrinks,
    /// changes in place, converts and casts as any `[Flight]` does (it is made as an array of
    /// objects and handed out as one of flights).
    @Test func aUniqueKeyLookupsAnswerIsAnOrdinaryArrayOfTheModelType() throws {
        let context = try Self.savedFlights(10)
        var found = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "F3" }))
        let other = try #require(try context.fetchUnique(\Flight.ident, equals: "F4"))
        found.append(other)
        found.append(contentsOf: try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "F5" })))
        #expect(found.map(\.ident) == ["F3", "F4", "F5"])
        found[0] = other
        found.removeLast()
        #expect(found.map(\.ident) == ["F4", "F4"])
        let models: [any PersistentModel] = found
        #expect(models.allSatisfy { $0 is Flight })
        let objects = found as [AnyObject]
        #expect(objects.count == 2 && objects[0] === other)
        let anything: [Any] = found
        #expect((anything as? [Flight])?.count == 2)
        #expect(Set(found).count == 1)
        // An unsaved object holding a committed one's key: the answer holds both, committed first.
        let twin = Flight(ident: "F6")
        context.insert(twin)
        let both = try context.fetch(FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "F6" }))
        #expect(both.count == 2 && both[1] === twin && both.map(\.ident) == ["F6", "F6"])
        var grown = both
        grown.append(twin)
        #expect(grown.count == 3 && both.count == 2)
    }

    /// Without unsaved changes the index's one answer is still paged: an offset past it or a
    /// zero limit leaves nothing.
    @Test func aUniqueKeyLookupHonoursOffsetAndLimit() throws {
        let context = try Self.savedFlights(5)
        func idents(offset: Int?, limit: Int?) throws -> [String] {
            var descriptor = FetchDescriptor<Flight>(predicate: #Predicate { $0.ident == "F3" })
            descriptor.fetchOffset = offset
            descriptor.fetchLimit = limit
            return try context.fetch(descriptor).map(\.ident)
        }
        #expect(try idents(offset: nil, limit: nil) == ["F3"])
        #expect(try idents(offset: 0, limit: 1) == ["F3"])
        #expect(try idents(offset: nil, limit: 5) == ["F3"])
        #expect(try idents(offset: 1, limit: nil).isEmpty)
        #expect(try idents(offset: nil, limit: 0).isEmpty)
        #expect(!context.hasChanges)
    }
}

/// A status with a sorted index, for comparisons that must not read the index's raw-value order.
final class IndexedStatus: Model {
    @Attribute(.indexed) var status: FlightStatus = .scheduled
    @Attribute var number: Int = 0
}
