import Foundation
import GraphStoreMacrosFree

/// A store directory under the temporary directory, removed when the test is done.
final class TemporaryStore {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("graphstore-models-\(UUID().uuidString)")
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func container(_ types: any PersistentModel.Type..., durability: Durability = .none) throws -> ModelContainer {
        try ModelContainer(for: types, configurations: ModelConfiguration(url: url, durability: durability, segmentSize: 1 << 20))
    }
}
