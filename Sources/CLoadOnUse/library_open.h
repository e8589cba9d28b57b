// What the loaders of libraries used on first use share (ffmpeg_library.c,
// heif_library.c): a library_group, its libraries opened in order, once.
#ifndef LIBRARY_OPEN_H
#define LIBRARY_OPEN_H

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

/// The most libraries one group holds (FFmpeg's four).
#define LIBRARY_GROUP_MAX 4

/// Sets `slot` to `name`'s address in `handle`; the first name not found
/// goes into `missing` (a const char *, NULL until then).
#define LIBRARY_FIND(handle, slot, name, missing)                                                                  \
    do {                                                                                                           \
        slot = (__typeof__(slot)) dlsym(handle, name);                                                             \
        if (!slot && !missing)                                                                                     \
            missing = name;                                                                                        \
    } while (0)

/// Libraries loaded together on first use, in order (each after those it
/// links), into one table of function pointers. Each is tried once per
/// process: it is loaded, or its failure is kept and given to every later
/// caller, so the message of an item is the same whichever item came first.
typedef struct {
    /// What the messages call the group: "FFmpeg", "libheif".
    const char *what;
    /// The sonames, in load order; `count` of them.
    const char *const *sonames;
    size_t count;
    /// Fills the table with library `index`'s functions from `handle`; the
    /// first name not found goes into `*missing`.
    void (*find)(size_t index, void *handle, const char **missing);
    /// Called once library `index` is loaded, under the group's lock (NULL:
    /// nothing to do).
    void (*loaded)(size_t index);
    pthread_mutex_t lock;
    /// Per library: loaded, or the message of the load that failed.
    struct {
        int loaded;
        char failure[256];
    } state[LIBRARY_GROUP_MAX];
} library_group;

/// A group of `count` libraries named by the array `sonames`.
#define LIBRARY_GROUP(what_, sonames_, count_, find_, loaded_)                                                     \
    {.what = (what_), .sonames = (sonames_), .count = (count_), .find = (find_), .loaded = (loaded_),              \
     .lock = PTHREAD_MUTEX_INITIALIZER}

/// Loads the group's first `needed` libraries, those not loaded yet (any
/// thread may call it): 0, or -1 with the first failure in `error`
/// ("`what` could not be loaded: dlerror's message", or "… `soname` has no
/// `function`"; `error` may be NULL).
int library_group_load(library_group *group, size_t needed, char *error, size_t error_len);

#endif
