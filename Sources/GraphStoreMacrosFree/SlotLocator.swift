import CSwiftRuntime

/// Finds where an object keeps a property wrapper's slot, so that every new object's wrappers
/// can be given their slots by plain stores (ClassMetadata.prepare).
///
/// A discovery prototype's wrappers each hold a distinct recording token. The word holding a
/// wrapper's token is looked for in the prototype's memory; each word that holds it is
/// confirmed by writing another value there and reflecting the object, which must then show
/// that value as the wrapper's slot (a stored value that happens to equal the token is not
/// confirmed). The word is restored either way. Exactly one confirmed word is the answer.
enum SlotLocator {
    static func offset(ofWrapper name: String, holding token: Int, in prototype: Model) -> Int? {
        let base = Unmanaged.passUnretained(prototype).toOpaque()
        let size = allocationSize(of: base)
        // Slots are 32 bits (Attribute.rawSlot).
        let token = Int32(truncatingIfNeeded: token)
        let probe = token == Int32.min ? Int32.max : Int32.min
        var found: Int?
        // The object header (metadata and reference counts) takes the first two words.
        var offset = 2 * MemoryLayout<Int>.size
        while offset + MemoryLayout<Int32>.size <= size {
            defer { offset += MemoryLayout<Int32>.alignment }
            guard base.load(fromByteOffset: offset, as: Int32.self) == token else { continue }
            base.storeBytes(of: probe, toByteOffset: offset, as: Int32.self)
            let confirmed = slot(ofWrapper: name, in: prototype) == Int(probe)
            base.storeBytes(of: token, toByteOffset: offset, as: Int32.self)
            if confirmed {
                guard found == nil else { return nil }
                found = offset
            }
        }
        return found
    }

    private static func slot(ofWrapper name: String, in instance: Model) -> Int? {
        (ModelDiscovery.wrapperChildren(of: instance).first { $0.name == name }?.value as? any PropertyWrapperSlot)?.slot
    }

    /// The bytes the allocator gave the object: at least its instance size, all of it readable.
    private static func allocationSize(of object: UnsafeMutableRawPointer) -> Int {
        graphstore_allocation_size(object)
    }
}
