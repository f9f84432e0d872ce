/// A class reference held without a reference count: the one way GraphStore's targets hold or
/// use an object unretained, so that every such use is found here and by its type.
///
/// Hot paths use it where a retain and a release per call showed up in profiles: a table's
/// columns written once per value, the graph's tables read once per row, a model's backing
/// set up once per object made.
///
/// The invariant every use relies on: **something else keeps the object alive for as long as
/// the reference is used**. Each stored `Unretained` names that owner beside its declaration
/// (a table's `columns` array keeps its columns; a context keeps the link its objects point
/// at, and clears their links before it goes). Using it after the owner let go is undefined
/// behaviour, which no check here can catch: keep the owner and the reference side by side.
@frozen
public struct Unretained<Object: AnyObject> {
    @usableFromInline let reference: Unmanaged<Object>

    /// `object`, unretained: the caller's owner keeps it alive.
    @inlinable
    public init(_ object: Object) {
        reference = .passUnretained(object)
    }

    /// Calls `body` with the object, retaining nothing around the call.
    @inlinable
    public func with<Result>(_ body: (Object) throws -> Result) rethrows -> Result {
        try reference._withUnsafeGuaranteedRef(body)
    }

    /// The object as a strong reference, retained for the caller to keep.
    @inlinable
    public var object: Object {
        reference.takeUnretainedValue()
    }
}

extension Unretained {
    /// The reference as a plain address, for the C shim (`CSwiftRuntime`), which holds it
    /// without a reference count too.
    @inlinable
    @_spi(GraphStoreInternals) public var address: UnsafeMutableRawPointer {
        reference.toOpaque()
    }

    /// The reference an `address` (or the C shim) gave.
    @inlinable
    @_spi(GraphStoreInternals) public init(address: UnsafeRawPointer) {
        reference = .fromOpaque(address)
    }

    /// Gives back one retain taken outside Swift (the C shim's `graphstore_try_retain`).
    @inlinable
    @_spi(GraphStoreInternals) public func releaseRetainTakenOutsideSwift() {
        reference.release()
    }

    /// `object`'s address, retained once for a holder outside Swift's reference counting, which
    /// gives the retain back with `releaseRetainTakenOutsideSwift`.
    @inlinable
    @_spi(GraphStoreInternals) public static func retainedAddress(of object: Object) -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(object).toOpaque()
    }

    /// The object as a strong reference that takes over one retain taken outside Swift.
    @inlinable
    @_spi(GraphStoreInternals) public func adoptingRetainTakenOutsideSwift() -> Object {
        reference.takeRetainedValue()
    }
}

extension Unretained: @unchecked Sendable where Object: Sendable {}
