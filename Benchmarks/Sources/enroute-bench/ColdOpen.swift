import Foundation
import EnrouteModels
import GraphStore

/// `cold_open`: how long opening a store of N flights takes, up to the answer of its first
/// query (the Enroute filter), when open replays the whole log and when it loads a checkpoint.
/// Also reports how long writing that checkpoint took and how big it is.
struct ColdOpen {
    struct Result {
        var replaySeconds: Double
        var checkpointSeconds: Double
        var checkpointBytes: UInt64
        var checkpointOpenSeconds: Double
    }

    let directory: String
    let flights: Int

    func run() throws -> Result {
        let path = directory + "/cold-open-store"
        try? FileManager.default.removeItem(atPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let synthetic = SyntheticEnroute(flights: flights)
        let rows = synthetic.rows()
        let destination = rows.airports[rows.airports.count / 2].icao
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: path), durability: .full)
        configuration.maintenance = .manual
        var expected = 0
        do {
            let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: configuration)
            let context = ModelContext(container)
            synthetic.insert(rows, into: context)
            try context.save()
            expected = try firstQuery(container, destination)
            container.close()
        }
        func openAndQuery() throws -> (Double, ModelContainer) {
            trimHeap()
            let start = nowMicros()
            let container = try ModelContainer(for: Flight.self, Airport.self, Airline.self, configurations: configuration)
            guard try firstQuery(container, destination) == expected else {
                throw SQLiteBaseline.Failure(description: "cold_open: the first query's answer changed across the reopen")
            }
            return ((nowMicros() - start) / 1e6, container)
        }
        let (replay, replayed) = try openAndQuery()
        let checkpointStart = nowMicros()
        let summary = try replayed.checkpoint()
        let checkpointSeconds = (nowMicros() - checkpointStart) / 1e6
        replayed.close()
        let (fromCheckpoint, reopened) = try openAndQuery()
        guard reopened.openReport?.checkpoint == summary.transaction else {
            throw SQLiteBaseline.Failure(description: "cold_open: the reopen did not load the checkpoint")
        }
        reopened.close()
        return Result(replaySeconds: replay, checkpointSeconds: checkpointSeconds, checkpointBytes: summary.bytes,
                      checkpointOpenSeconds: fromCheckpoint)
    }

    private func firstQuery(_ container: ModelContainer, _ destination: String) throws -> Int {
        try ModelContext(container).fetch(FlightFilter(destination: destination, enrouteOnly: true, sort: .distance).fetchDescriptor).count
    }
}
