/* Internal to CVipsShim: a hook into icc_fast.c's transform cache. Not in
 * include/, so the product's Swift code does not see it. */
#ifndef ICC_FAST_H
#define ICC_FAST_H

/* Empties the transform cache, so that the next shim_icc_to_srgb8 of each
 * profile builds its transform again. Only timing needs it (bench/icc_bench.c
 * measures a cold cache); nothing in the product calls it. It stays here,
 * not in a test target, because the cache is this file's private state. */
void shim_icc_cache_clear(void);

#endif
