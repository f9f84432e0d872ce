import Foundation

/// A fetch written once with parameters and run with their values, as a prepared statement is:
///
/// ```swift
/// let arrivals = PreparedFetch<Flight, (String, String)>(
///     predicate: #Predicate { flight, p in flight.destination?.icao == p.0 && flight.airline?.code == p.1 },
///     sortBy: [SortDescriptor(\.routeDistance)])
/// let flights = try context.fetch(arrivals, ("KSFO", "UAL"))
/// ```
///
/// `Parameters` is one value, a tuple or a struct; the predicate reads it (or its members)
/// wherever a `FetchDescriptor`'s predicate would capture a constant. Each context converts,
/// plans and compiles the predicate on its first run and then only binds the values, so a run
/// costs neither making a `#Predicate` (Foundation builds its expression tree each time) nor
/// working it out again. A run answers exactly as
/// `descriptor(parameters)` does; on a context with unsaved changes, or for a predicate that
/// must run on objects, it is that descriptor's fetch. Docs/guides/fetching.md.
public struct PreparedFetch<T: PersistentModel, Parameters> {
    /// The predicate, reading the model and the parameters.
    public let predicate: Predicate<T, Parameters>
    /// The results' order, as on `FetchDescriptor`.
    public var sortBy: [SortDescriptor<T>]
    /// At most this many objects (after the offset).
    public var fetchLimit: Int?
    /// How many objects, in order, to skip first.
    public var fetchOffset: Int?
    /// Whether unsaved inserts, changes and deletes of the context count (default true, as in SwiftData).
    public var includePendingChanges: Bool
    /// The predicate as the planner reads it, with its parameters as slots.
    let prepared: PreparedPredicate
    /// Each slot's value as the graph stores it, read straight from the parameters — where the
    /// slot is the parameters themselves or one member, of a `Storable` type. Nil for other
    /// slots, which are read through `Any` (checked casts and a key path projection at each
    /// step). A reader is given the parameters' address.
    private let storedReaders: [SlotReader?]
    typealias SlotReader = (UnsafeRawPointer) -> Value

    /// A prepared fetch of the objects `predicate` matches for each run's parameters, in the order
    /// `sortBy` gives.
    public init(predicate: Predicate<T, Parameters>, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
        includePendingChanges = true
        prepared = PreparedPredicate(expression: predicate.expression, parameters: predicate.variable.1.key)
        var readers: [SlotReader?] = []
        for path in prepared.slotPaths { readers.append(Self.storedReader(path)) }
        storedReaders = readers
    }

    /// The parameter slots' values for `parameters`, as given.
    func slotValues(_ parameters: Parameters) -> [Any] {
        prepared.values(of: parameters)
    }

    /// Every slot's stored value for `parameters` (the parameters' and then the constants'),
    /// when every parameter slot has a typed reader and every constant a stored form.
    func storedSlotValues(_ parameters: Parameters) -> [Value]? {
        guard prepared.constantsAreStored else { return nil }
        return withUnsafePointer(to: parameters) { address in
            var values: [Value] = []
            values.reserveCapacity(storedReaders.count + prepared.storedConstants.count)
            for reader in storedReaders {
                guard let reader else { return nil }
                values.append(reader(UnsafeRawPointer(address)))
            }
            values.append(contentsOf: prepared.storedConstants)
            return values
        }
    }

    private static func storedReader(_ path: [AnyKeyPath]) -> SlotReader? {
        switch path.count {
        case 0:
            guard let type = Parameters.self as? any Storable.Type else { return nil }
            return reader(at: 0, type)
        case 1:
            guard let keyPath = path[0] as? PartialKeyPath<Parameters>,
                  let type = Swift.type(of: keyPath).valueType as? any Storable.Type else { return nil }
            // A stored member of a struct or tuple is read at its offset; anything else (a
            // computed property) through its key path.
            if let offset = MemoryLayout<Parameters>.offset(of: keyPath) { return reader(at: offset, type) }
            return keyPathReader(keyPath, type)
        default:
            return nil
        }
    }

    /// The value of type `V` at `offset` in the parameters. The common key types are read
    /// without generic code (which looked metadata up at every read).
    private static func reader<V: Storable>(at offset: Int, _: V.Type) -> SlotReader {
        if V.self == String?.self { return { $0.load(fromByteOffset: offset, as: String?.self).map(Value.string) ?? .null } }
        if V.self == String.self { return { .string($0.load(fromByteOffset: offset, as: String.self)) } }
        if V.self == Int.self { return { .int(Int64($0.load(fromByteOffset: offset, as: Int.self))) } }
        if V.self == Int?.self { return { $0.load(fromByteOffset: offset, as: Int?.self).map { .int(Int64($0)) } ?? .null } }
        return { $0.load(fromByteOffset: offset, as: V.self).storedValue }
    }

    private static func keyPathReader<V: Storable>(_ keyPath: PartialKeyPath<Parameters>, _: V.Type) -> SlotReader {
        let typed = keyPath as! KeyPath<Parameters, V>
        return { $0.assumingMemoryBound(to: Parameters.self).pointee[keyPath: typed].storedValue }
    }

    /// The plain fetch this one runs as for `parameters`.
    public func descriptor(_ parameters: Parameters) -> FetchDescriptor<T> {
        let predicate = self.predicate, prepared = self.prepared, values = slotValues(parameters)
        var descriptor = FetchDescriptor<T>(
            predicate: Predicate<T> { input in
                BoundParameters(input: input, predicate: predicate, parameters: parameters, node: prepared.bound(to: values))
            },
            sortBy: sortBy)
        descriptor.fetchLimit = fetchLimit
        descriptor.fetchOffset = fetchOffset
        descriptor.includePendingChanges = includePendingChanges
        return descriptor
    }
}

// Like FetchDescriptor: predicates, sort descriptors and key paths are immutable values.
extension PreparedFetch: @unchecked Sendable {}

/// A prepared fetch's predicate with its parameters' values: a one-input predicate expression
/// (so that a `FetchDescriptor` can hold it), which the planner reads as the prepared tree with
/// the values as constants.
struct BoundParameters<T, Parameters>: StandardPredicateExpression, DynamicPredicateNode, @unchecked Sendable {
    typealias Output = Bool
    let input: PredicateExpressions.Variable<T>
    let predicate: Predicate<T, Parameters>
    let parameters: Parameters
    /// The prepared tree with the parameters' values as constants.
    let node: PredicateNode

    init(input: PredicateExpressions.Variable<T>, predicate: Predicate<T, Parameters>, parameters: Parameters, node: PredicateNode) {
        self.input = input
        self.predicate = predicate
        self.parameters = parameters
        self.node = node
    }

    func evaluate(_ bindings: PredicateBindings) throws -> Bool {
        try predicate.evaluate(try input.evaluate(bindings), parameters)
    }

    var dynamicPredicateNode: PredicateNode { node }

    // A bound prepared fetch lives in memory only: it has no archived form.
    init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                debugDescription: "A prepared fetch's bound predicate cannot be decoded"))
    }

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(parameters, .init(codingPath: encoder.codingPath,
                                                           debugDescription: "A prepared fetch's bound predicate cannot be encoded"))
    }
}
