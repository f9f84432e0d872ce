// The one Swift runtime entry point GraphStore calls directly (Swift code may not name runtime
// symbols itself). See Sources/GraphStore/Context/ObjectRegistry.swift.
#ifndef CSWIFTRUNTIME_H
#define CSWIFTRUNTIME_H

#include <stdbool.h>

/// Retains a Swift object unless its deinit has begun: returns the object, or NULL (taking
/// nothing). Exported by libswiftCore on every platform: it is what loading a weak reference uses.
extern void *swift_tryRetain(void *object);

/// Whether `object` was retained.
static inline bool graphstore_try_retain(void *object) { return swift_tryRetain(object) != 0; }

#endif
