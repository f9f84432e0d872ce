import EnrouteModels
import Foundation
import GraphStore

/// `property_read` and `property_write`: what reading and assigning one attribute of a model
/// object already in hand costs (GraphStore only: SQLite has no objects to compare with). Every
/// flight is fetched once; each repetition then reads `routeDistance` of every object, or
/// assigns it (the context's unsaved changes, rolled back untimed after each repetition).
struct PropertyAccess {
    let container: ModelContainer
    let repetitions: Int

    struct Result {
        var readNanoseconds = 0.0
        var writeNanoseconds = 0.0
        var accesses = 0
    }

    func run() throws -> Result {
        let context = ModelContext(container)
        let flights = try context.fetch(FetchDescriptor<Flight>())
        guard !flights.isEmpty else { return Result() }
        var reads: [Double] = [], writes: [Double] = []
        var checksum = 0
        for repetition in 0..<repetitions {
            reads.append(measure { checksum &+= Self.readAll(flights) } * 1_000 / Double(flights.count))
            writes.append(measure { Self.writeAll(flights, adding: repetition) } * 1_000 / Double(flights.count))
            context.rollback()
        }
        // Keeps the reads from being optimised away.
        if checksum == 42 { FileHandle.standardError.write(Data(" ".utf8)) }
        return Result(readNanoseconds: median(reads), writeNanoseconds: median(writes), accesses: flights.count)
    }

    // Functions of their own, so that a profiler (callgrind's --toggle-collect) can count them.
    @inline(never)
    static func readAll(_ flights: [Flight]) -> Int {
        var sum = 0
        for flight in flights { sum &+= flight.routeDistance }
        return sum
    }

    @inline(never)
    static func writeAll(_ flights: [Flight], adding offset: Int) {
        for (index, flight) in flights.enumerated() { flight.routeDistance = index &+ offset }
    }
}
