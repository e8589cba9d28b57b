// libheif, loaded on first use: see include/heif_library.h.
#include "heif_library.h"
#include "library_open.h"

#include <pthread.h>
#include <stdio.h>

heif_functions heif_library;

/// The soname of libheif 1.x, which every 1.x release keeps.
static const char soname[] = "libheif.so.1";

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[256];

static void load(void) {
    void *handle = library_open(soname, "libheif", failure, sizeof failure);
    if (!handle)
        return;
    const char *missing = NULL;
#define HEIF_FIND(name) LIBRARY_FIND(handle, heif_library.name, #name, missing);
    HEIF_FUNCTIONS(HEIF_FIND)
#undef HEIF_FIND
    if (missing)
        library_missing(soname, "libheif", missing, failure, sizeof failure);
    else
        loaded = 1;
}

int heif_library_load(char *error, size_t error_len) {
    pthread_once(&load_once, load);
    if (loaded)
        return 0;
    if (error && error_len)
        snprintf(error, error_len, "%s", failure);
    return -1;
}
