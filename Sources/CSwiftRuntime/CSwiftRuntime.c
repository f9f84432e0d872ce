// The header holds the functions; the recording counter lives here.
#include "CSwiftRuntime.h"

_Atomic long graphstore_recording_sessions = 0;
