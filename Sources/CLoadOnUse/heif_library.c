// libheif, loaded on first use: see include/heif_library.h.
#include "heif_library.h"
#include "library_open.h"

heif_functions heif_library;

/// The soname of libheif 1.x, which every 1.x release keeps.
static const char *const sonames[] = {"libheif.so.1"};

static void find(size_t index, void *handle, const char **missing) {
    (void) index;
#define HEIF_FIND(name) LIBRARY_FIND(handle, heif_library.name, #name, *missing);
    HEIF_FUNCTIONS(HEIF_FIND)
#undef HEIF_FIND
}

static library_group libheif = LIBRARY_GROUP("libheif", sonames, 1, find, NULL);

int heif_library_load(char *error, size_t error_len) { return library_group_load(&libheif, 1, error, error_len); }
