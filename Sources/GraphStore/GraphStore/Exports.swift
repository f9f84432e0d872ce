// What `import SwiftData` brings a model file, `import GraphStore` brings too: Foundation
// (`#Predicate`, `SortDescriptor`, `Date`, `URL`, `UndoManager`) and Observation
// (`withObservationTracking`, `@Observable`).
@_exported import Foundation
@_exported import Observation
@_exported import GraphStoreCore
@_exported import GraphStoreLog
