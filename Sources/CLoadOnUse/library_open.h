// What the loaders of libraries used on first use share (ffmpeg_library.c,
// heif_library.c).
#ifndef LIBRARY_OPEN_H
#define LIBRARY_OPEN_H

#include <dlfcn.h>
#include <stddef.h>

/// `soname` opened with its symbols kept to itself (lazy binding, as the
/// executable's own libraries get); NULL with "`what` could not be loaded:
/// dlerror's message" in `failure`.
void *library_open(const char *soname, const char *what, char *failure, size_t failure_len);

/// Sets `slot` to `name`'s address in `handle`; the first name not found
/// goes into `missing` (a const char *, NULL until then).
#define LIBRARY_FIND(handle, slot, name, missing)                                                                  \
    do {                                                                                                           \
        slot = (__typeof__(slot)) dlsym(handle, name);                                                             \
        if (!slot && !missing)                                                                                     \
            missing = name;                                                                                        \
    } while (0)

/// "`what` could not be loaded: `soname` has no `missing`" into `failure`.
void library_missing(const char *soname, const char *what, const char *missing, char *failure, size_t failure_len);

#endif
