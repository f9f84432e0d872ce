extension Store {
    /// Reads every blob file the committed graph names and returns what is wrong with each that
    /// fails (missing, damaged), naming entity, row and attribute; empty when all are sound.
    public func verifyBlobs(progress: (Int, Int) -> Void = { _, _ in }) -> [String] {
        var references: [(String, BlobReference)] = []
        forEachBlobReference(in: graph.captureImage().tables) { entity, row, attribute, reference in
            references.append(("\(entity.name)/\(row).\(attribute.name)", reference))
        }
        var problems: [String] = []
        for (index, (name, reference)) in references.enumerated() {
            progress(index, references.count)
            do { _ = try blobs.read(reference) } catch { problems.append("\(name): \(error)") }
        }
        progress(references.count, references.count)
        return problems
    }

    /// Calls `body` for every blob reference the live rows of these tables hold. Wherever they
    /// are: not only in attributes marked `.externalStorage` now — a store keeps the blobs an
    /// attribute wrote before the mark was dropped (a lightweight change), and reads them.
    func forEachBlobReference(in tables: [EntityTable.Image],
                              _ body: (Schema.Entity, _ row: UInt64, Schema.Attribute, BlobReference) -> Void) {
        for entity in schema.entities {
            let table = tables[entity.index]
            for attribute in entity.attributes {
                // Blob references are stored values: only value-layout columns can hold them.
                guard let column = table.columns[attribute.index], !column.values.isEmpty else { continue }
                for (slot, value) in column.values.enumerated() where table.live[slot] {
                    for reference in value.blobReferences { body(entity, UInt64(slot + 1), attribute, reference) }
                }
            }
        }
    }
}
