// What `import SwiftData` brings a model file, `import GraphStore` brings too: Foundation
@_exported import Foundation
@_exported import GraphStoreCore
@_exported import GraphStoreLog
@_exported import Observation
@_exported import GraphStoreGraph
@_exported import GraphStoreEngine
