// Everything is in the header (SwiftPM wants a source file in every C target).
#include "CSwiftRuntime.h"
