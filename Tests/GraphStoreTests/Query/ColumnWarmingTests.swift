import Foundation
import GraphStoreModelTestSupport
import GraphStoreTestSupport
import Testing
@testable import GraphStore
@testable import GraphStoreMacrosFree

/// Before a compiled condition runs on many candidates, the column it reads first is read for
/// all of them at once. That is the first column a run reads: not one an equality the plan's
/// rows already meet would read (that equality returns without reading).
@Suite struct ColumnWarmingTests {
    @Test func theColumnWarmedIsTheFirstOneARunReads() throws {
        let (context, _, _) = try PlannerTests().randomGraph(seed: 23)
        let entity = try #require(context.schema.entity(for: Flight.self))
        let (destination, origin) = ("K1", "K2")
        let predicate = #Predicate<Flight> { $0.destination?.icao == destination && $0.origin?.icao == origin && $0.actualOff != nil }
        let shape = QueryShape.parameterizing(PredicateNode(predicate.expression)).shape
        var compiler = RowCompiler(schema: context.schema, entity: entity)
        compiler.parameters = ParameterSlots()
        _ = try #require(compiler.condition(shape.node))

        func toOne(_ name: String) throws -> RowCompiler.ColumnRead {
            .toOne(entity: entity.index, relationship: try #require(entity.relationships.first { $0.name == name }).index)
        }
        let actualOff = RowCompiler.ColumnRead.attribute(entity: entity.index,
                                                          attribute: try #require(entity.attributes.first { $0.name == "actualOff" }).index)
        // Sites are numbered as compiled: the destination's equality 0, the origin's 1.
        #expect(compiler.reads.first(skipping: EqualitySet()) == (try toOne("destination")))
        #expect(compiler.reads.first(skipping: EqualitySet(0)) == (try toOne("origin")))
        #expect(compiler.reads.first(skipping: EqualitySet([0, 1])) == actualOff)
    }

    /// Warming changes no answer: the Enroute filter's shape over an airport's arrivals (many
    /// more than the 64 from which a run warms; the destination's equality met by the plan)
    /// answers as a scan.
    @Test func aWarmedFetchAnswersAsAScan() throws {
        let context = ModelContext(try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let airports = (0..<3).map { i -> Airport in
            let airport = Airport(icao: "K\(i)")
            context.insert(airport)
            return airport
        }
        var rng = SplitMix64(seed: 24)
        for i in 0..<900 {
            let flight = Flight(ident: "F\(i)")
            context.insert(flight)
            flight.destination = airports[Int(rng.next() % 2)]
            flight.origin = airports[Int(rng.next() % 3)]
            if rng.next() % 2 == 0 { flight.actualOff = Date(timeIntervalSince1970: Double(i)) }
        }
        try context.save()
        for destination in ["K0", "K1"] {
            for origin in ["K0", "K1", "K2"] {
                let predicate = #Predicate<Flight> { $0.destination?.icao == destination && $0.origin?.icao == origin && $0.actualOff != nil }
                let (planned, scanned) = try PlannerTests().fetchBoth(context, FetchDescriptor(predicate: predicate))
                #expect(planned == scanned, "\(destination) \(origin)")
                #expect(planned.count > 20)
            }
        }
    }
}
