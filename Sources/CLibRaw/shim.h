// LibRaw's C API (the thread-safe build, libraw_r), exposed to Swift as the
// CLibRaw module; thumbs calls it through CRawShim.
#include <libraw/libraw.h>
