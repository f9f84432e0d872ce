/// What to do with related objects when an object is deleted (SwiftData's `Schema.Relationship.DeleteRule`).
public enum DeleteRule: String, Sendable, Codable, CaseIterable {
    /// Remove the deleted object from the related objects' inverse (the default).
    case nullify
    /// Delete the related objects too.
    case cascade
    /// Refuse the delete (save throws) while any related object remains.
    case deny
    /// Leave the related objects as they are.
    case noAction
}
