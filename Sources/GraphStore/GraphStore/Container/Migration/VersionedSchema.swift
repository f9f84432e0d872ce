
/// One version of an app's models, as SwiftData declares it:
///
///     enum EnrouteV1: VersionedSchema {
///         static let versionIdentifier = Schema.Version(1, 0, 0)
///         static var models: [any PersistentModel.Type] { [Airport.self, Flight.self] }
///         final class Airport: Model { … }
///     }
public protocol VersionedSchema {
    /// This version's number, as `Schema.Version(1, 0, 0)`.
    static var versionIdentifier: Schema.Version { get }
    /// The model types of this version.
    static var models: [any PersistentModel.Type] { get }
}

/// The ordered versions of an app's models and how to get from each to the next.
///
/// `ModelContainer(for:migrationPlan:configurations:)` finds which version the store is in (by
/// the shape of its recorded schema) and runs the stages from there to the newest version, each
/// as one crash-safe step, before opening the store. Between consecutive versions without a
/// stage, a lightweight stage is assumed.
public protocol SchemaMigrationPlan {
    /// Oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The steps from each version to the next, oldest first.
    static var stages: [MigrationStage] { get }
}

/// How one version becomes the next.
public enum MigrationStage: @unchecked Sendable {
    /// Only lightweight changes (Docs/guides/migration.md): applied and recorded as one schema
    /// transaction; anything else fails listing every difference.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// `willMigrate` runs on a context of the old models, `didMigrate` on one of the new; between
    /// them the stored data moves to the new schema, dropping what no longer fits (an attribute
    /// whose type changed starts at its initial value: carry it across in the closures). Saves
    /// inside the closures, the schema change and everything else are committed together as one
    /// transaction, so a crash leaves the old version complete or the new one.
    case custom(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
                willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)

    var fromVersion: any VersionedSchema.Type {
        switch self {
        case let .lightweight(from, _), let .custom(from, _, _, _): return from
        }
    }

    var toVersion: any VersionedSchema.Type {
        switch self {
        case let .lightweight(_, to), let .custom(_, to, _, _): return to
        }
    }
}
