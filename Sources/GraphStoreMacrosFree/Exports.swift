// Declaring models without macros builds on the engine; importing this module brings it along.
@_exported import GraphStore
