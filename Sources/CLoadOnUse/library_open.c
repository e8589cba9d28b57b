#include "library_open.h"

#include <stdio.h>

/// Opens library `index` of `group` and finds its functions; called with
/// the group's lock held, once per library (a failure is kept).
static void load_one(library_group *group, size_t index) {
    const char *soname = group->sonames[index];
    char *failure = group->state[index].failure;
    size_t failure_len = sizeof group->state[index].failure;
    // Its symbols kept to itself (lazy binding, as the executable's own
    // libraries get).
    void *handle = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(failure, failure_len, "%s could not be loaded: %s", group->what, why ? why : soname);
        return;
    }
    const char *missing = NULL;
    group->find(index, handle, &missing);
    if (missing) {
        snprintf(failure, failure_len, "%s could not be loaded: %s has no %s", group->what, soname, missing);
        return;
    }
    group->state[index].loaded = 1;
    if (group->loaded)
        group->loaded(index);
}

int library_group_load(library_group *group, size_t needed, char *error, size_t error_len) {
    if (needed > group->count)
        needed = group->count;
    int status = 0;
    pthread_mutex_lock(&group->lock);
    for (size_t i = 0; i < needed && status == 0; i++) {
        if (!group->state[i].loaded && !group->state[i].failure[0])
            load_one(group, i);
        if (!group->state[i].loaded) {
            if (error && error_len)
                snprintf(error, error_len, "%s", group->state[i].failure);
            status = -1;
        }
    }
    pthread_mutex_unlock(&group->lock);
    return status;
}
