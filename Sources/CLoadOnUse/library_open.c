#include "library_open.h"

#include <stdio.h>

void *library_open(const char *soname, const char *what, char *failure, size_t failure_len) {
    void *handle = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(failure, failure_len, "%s could not be loaded: %s", what, why ? why : soname);
    }
    return handle;
}

void library_missing(const char *soname, const char *what, const char *missing, char *failure, size_t failure_len) {
    snprintf(failure, failure_len, "%s could not be loaded: %s has no %s", what, soname, missing);
}
