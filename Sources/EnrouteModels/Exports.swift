// The Enroute models are declared with GraphStoreMacrosFree; importing this module brings it along.
@_exported import GraphStoreMacrosFree
