import Foundation

/// Schema.Attribute options, as SwiftData spells them, plus `.indexed`.
///
/// The low byte holds flags; the schema record keeps those that shape stored data
/// (`recordedFlags`). A transformable attribute's transformer is kept by number above them
/// (`ValueTransformers`), for the life of the process.
public struct AttributeOptions: OptionSet, Hashable, Sendable {
    /// The options as bits: flags in the low byte, a transformer's number above them.
    public let rawValue: UInt32
    /// Options from their bits.
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }

    // Computed and inlinable, not stored: every object made evaluates its wrappers' options
    // (`@Attribute(.unique)`), and a stored static is a one-time-initialisation check each time.
    /// One object per value: inserting another with the same value updates the existing one (upsert).
    @inlinable public static var unique: AttributeOptions { AttributeOptions(rawValue: 1 << 0) }
    /// Kept in a hash index and a sorted index, for equality, IN, ranges and order.
    @inlinable public static var indexed: AttributeOptions { AttributeOptions(rawValue: 1 << 1) }
    /// Data kept in a blob file beside the log rather than inline.
    @inlinable public static var externalStorage: AttributeOptions { AttributeOptions(rawValue: 1 << 2) }
    /// Its value at deletion is kept in history, in the delete's tombstone (`HistoryTombstone`).
    @inlinable public static var preserveValueOnDeletion: AttributeOptions { AttributeOptions(rawValue: 1 << 3) }
    /// Observed like any attribute but never saved: its value lives in the object, and every
    /// other context, and every later open, sees the initial value.
    @inlinable public static var ephemeral: AttributeOptions { AttributeOptions(rawValue: 1 << 4) }
    /// Accepted for source compatibility; Spotlight indexing does not exist here, so it has no effect.
    @inlinable public static var spotlight: AttributeOptions { AttributeOptions(rawValue: 1 << 5) }
    /// Accepted for source compatibility; there is no CloudKit here, so it has no effect.
    @inlinable public static var allowsCloudEncryption: AttributeOptions { AttributeOptions(rawValue: 1 << 6) }
    /// Stored as the `Data` a `ValueTransformer` turns the value into (set by `transformable(by:)`).
    @inlinable public static var transformable: AttributeOptions { AttributeOptions(rawValue: 1 << 7) }

    /// Stores the value as the `Data` that `transformer` makes of it, and reads it back with the
    /// transformer's reverse transformation.
    public static func transformable(by transformer: ValueTransformer.Type) -> AttributeOptions {
        AttributeOptions(rawValue: AttributeOptions.transformable.rawValue | ValueTransformers.number(for: .type(transformer)) << 8)
    }

    /// The same with the transformer registered under `name` (`ValueTransformer.setValueTransformer`).
    public static func transformable(by transformerName: String) -> AttributeOptions {
        AttributeOptions(rawValue: AttributeOptions.transformable.rawValue | ValueTransformers.number(for: .named(transformerName)) << 8)
    }

    /// The flags the schema record keeps: those that say how values are stored.
    public var recordedFlags: UInt8 {
        UInt8(truncatingIfNeeded: rawValue) & ~UInt8(truncatingIfNeeded: AttributeOptions.spotlight.rawValue | AttributeOptions.allowsCloudEncryption.rawValue)
    }

    /// Whether the transformer is given as a type (not by a registered name).
    package var transformerIsAType: Bool { rawValue >> 8 != 0 && ValueTransformers.isType(number: rawValue >> 8) }

    /// The transformer of a transformable attribute (nil if it names none, or one not registered).
    public var transformer: ValueTransformer? {
        rawValue >> 8 == 0 ? nil : ValueTransformers.transformer(number: rawValue >> 8)
    }
}
