extension Store {
    /// Reads every blob file the committed graph names and returns what is wrong with each that
    /// fails (missing, damaged), naming entity, row and attribute; empty when all are sound.
    public func verifyBlobs(progress: (Int, Int) -> Void = { _, _ in }) -> [String] {
        var references: [(String, BlobReference)] = []
        let (_, tables) = graph.captureImage()
        for entity in schema.entities {
            for attribute in entity.attributes where attribute.options.contains(.externalStorage) {
                guard let column = tables[entity.index].columns[attribute.index] else { continue }
                for (slot, value) in column.values.enumerated() where tables[entity.index].live[slot] {
                    for reference in value.blobReferences { references.append(("\(entity.name)/\(slot + 1).\(attribute.name)", reference)) }
                }
            }
        }
        var problems: [String] = []
        for (index, (name, reference)) in references.enumerated() {
            progress(index, references.count)
            do { _ = try blobs.read(reference) } catch { problems.append("\(name): \(error)") }
        }
        progress(references.count, references.count)
        return problems
    }
}
