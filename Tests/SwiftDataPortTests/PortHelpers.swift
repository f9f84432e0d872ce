import Foundation
import GraphStoreMacrosFree

/// A store directory under the temporary directory, removed when the test is done.
final class TemporaryStore {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("graphstore-ports-\(UUID().uuidString)")
    deinit { try? FileManager.default.removeItem(at: url) }
}

/// A configuration that leaves checkpoints and compaction to the test.
func maintainedConfiguration(_ url: URL) -> ModelConfiguration {
    var configuration = ModelConfiguration(url: url, durability: .none, autosaveEnabled: false, segmentSize: 4 << 10)
    configuration.maintenance = .manual
    return configuration
}
