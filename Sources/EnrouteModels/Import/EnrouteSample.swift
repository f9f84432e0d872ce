import Foundation

/// The bundled sample: the boards of San Francisco (KSFO) and Chicago O'Hare (KORD) with their
/// airports and airlines, in FlightAware's format (made by `EnrouteGenerator.sample`).
public enum EnrouteSample {
    /// The sample's files, airports and airlines first (load order matters only for the counts
    /// an import reports: flights complete airports either way).
    public static var files: [URL] {
        guard let directory = Bundle.module.url(forResource: "sample", withExtension: nil),
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
        let order = ["airports.json": 0, "airlines.json": 1]
        return names.filter { $0.hasSuffix(".json") }
            .sorted { (order[$0] ?? 2, $0) < (order[$1] ?? 2, $1) }
            .map { directory.appendingPathComponent($0) }
    }
}
