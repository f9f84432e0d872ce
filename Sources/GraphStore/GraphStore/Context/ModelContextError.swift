import GraphStoreEngine

/// Why a context operation failed, naming the model and property involved.
public enum ModelContextError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Two objects would share a unique value (only after upsert could not apply).
    case uniqueConstraintViolation(entity: String, attribute: String, value: String)
    /// A deny delete rule refused the delete: `model` still has members in `relationship`.
    case deleteDenied(model: PersistentIdentifier, relationship: String)
    /// A relationship has fewer or more members than its declared minimum or maximum.
    case relationshipCountOutOfRange(model: PersistentIdentifier, relationship: String, count: Int, minimum: Int?, maximum: Int?)
    /// The model type is not part of the container's schema.
    case typeNotInSchema(String)
    /// The container was opened read-only (`allowsSave: false`).
    case readOnly
    /// A value could not be encoded for storage.
    case encodingFailed(entity: String, attribute: String, reason: String)
    /// Two threads used one context (or its objects) at the same moment: `operation` was called
    /// while another thread was inside `otherOperation`. A context and its models are not
    /// Sendable; only code that defeats the compiler (`@unchecked Sendable`,
    /// `nonisolated(unsafe)`) can do this. Nothing of `operation` was done.
    case concurrentUse(operation: String, otherOperation: String)
    /// A lookup by unique value named a key path that is not a unique attribute.
    case notUnique(entity: String, keyPath: String)
    /// `enumerate` met unsaved changes (pass `allowEscapingMutations: true` to allow them).
    case mutationDuringEnumeration
    /// Another context saved changes to properties this one also changed (merge policy `.error`).
    case mergeConflict(model: PersistentIdentifier, properties: [String])
    /// History, checkpoints and compaction need a store on disk; this container is in memory.
    case noHistory
    /// `deleteHistory` selected a transaction after one it keeps: history is dropped from its start.
    case historyNotAPrefix(transaction: UInt64)
    /// A `BatchInsert` cannot set this property (see `BatchInsert` for what it can).
    case batchPropertyUnsupported(entity: String, property: String, reason: String)
    /// A batch row links to a row that does not exist (by identifier or unique key).
    case batchTargetNotFound(entity: String, relationship: String, target: String)
    /// A batch was filled or executed wrongly (the first misuse is named).
    case batchInvalid(entity: String, reason: String)

    /// What went wrong and on which object, attribute or value.
    public var description: String {
        switch self {
        case let .uniqueConstraintViolation(entity, attribute, value):
            return "\(entity).\(attribute) must be unique, and \(value) is already used"
        case let .deleteDenied(model, relationship):
            return "cannot delete \(model): its \(relationship) relationship is not empty and its delete rule is deny"
        case let .relationshipCountOutOfRange(model, relationship, count, minimum, maximum):
            return "\(model).\(relationship) has \(count) members; allowed: \(minimum.map(String.init) ?? "0")...\(maximum.map(String.init) ?? "any")"
        case let .typeNotInSchema(name):
            return "\(name) is not part of the container's schema"
        case .readOnly:
            return "the container is read-only (allowsSave: false)"
        case let .encodingFailed(entity, attribute, reason):
            return "cannot store \(entity).\(attribute): \(reason)"
        case let .concurrentUse(operation, otherOperation):
            return "\(operation) was called on a ModelContext (or one of its models) while another thread was inside "
                + "\(otherOperation) of the same context; a ModelContext and its models are not Sendable: give each task "
                + "or actor its own context and pass PersistentIdentifiers between them"
        case let .notUnique(entity, keyPath):
            return "\(keyPath) is not a unique attribute of \(entity)"
        case .mutationDuringEnumeration:
            return "the context has unsaved changes during enumerate (allowEscapingMutations is false)"
        case let .mergeConflict(model, properties):
            return "\(model): another context saved \(properties.joined(separator: ", ")) since this context changed them"
        case .noHistory:
            return "an in-memory container keeps no history, checkpoints or compaction"
        case let .historyNotAPrefix(transaction):
            return "deleteHistory selects transaction \(transaction) after one it keeps; history is deleted from its oldest transaction on"
        case let .batchPropertyUnsupported(entity, property, reason):
            return "a batch insert cannot set \(entity).\(property): \(reason)"
        case let .batchTargetNotFound(entity, relationship, target):
            return "a batch row of \(entity) links \(relationship) to \(target), which does not exist"
        case let .batchInvalid(entity, reason):
            return "batch insert of \(entity): \(reason)"
        }
    }
}
