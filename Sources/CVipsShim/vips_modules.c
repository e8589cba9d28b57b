/* libvips' loadable modules, loaded when an image first needs one.
 *
 * vips_init() opens every module in libdir/vips-modules-X.Y: in Debian's
 * libvips 8.14, vips-heif, vips-jxl, vips-magick, vips-poppler and
 * vips-openslide, which bring about 20 more libraries (ImageMagick, poppler,
 * openslide and theirs), all relocated at once. That is 25-45 ms of CPU per
 * process, a quarter of a run over one photo, and thumbs' JPEG, PNG, TIFF,
 * WebP and GIF loaders (and its own libheif, LibRaw and FFmpeg paths) need
 * none of them.
 *
 * So shim_modules_defer() points VIPSHOME, from which vips_init() finds its
 * libdir, at a prefix with no modules, and remembers where they are. The
 * first lookup that libvips' built-in loaders cannot answer (a HEIF, a JPEG
 * XL, a PDF, what only ImageMagick reads), and the AVIF saver, load them
 * then (shim_modules_load), the way vips_init() would have. A built-in loader
 * that claims an image would have claimed it with the modules loaded too:
 * the module loaders read formats no built-in one does, except magickload,
 * whose priority is below them all, and openslideload, which reads files by
 * name only (thumbs gives libvips memory or a descriptor).
 */
#define _GNU_SOURCE /* dladdr */
#include "CVipsShim.h"

#include <dlfcn.h>
#include <gmodule.h>
#include <limits.h>
#include <libgen.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char module_dir[PATH_MAX];
static atomic_int deferred;
static atomic_int untrusted_blocked = -1;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

int shim_modules_defer(void) {
    /* A VIPSHOME of the user's (a libvips of their own) keeps libvips' own
     * rule. */
    if (getenv("VIPSHOME"))
        return 0;
    /* The modules sit beside libvips.so (libdir), as libvips installs them. */
    Dl_info info;
    if (!dladdr((void *) vips_init, &info) || !info.dli_fname)
        return 0;
    char library[PATH_MAX];
    snprintf(library, sizeof library, "%s", info.dli_fname);
    int n = snprintf(module_dir, sizeof module_dir, "%s/vips-modules-%d.%d",
                     dirname(library), VIPS_MAJOR_VERSION, VIPS_MINOR_VERSION);
    if (n <= 0 || (size_t) n >= sizeof module_dir || !g_file_test(module_dir, G_FILE_TEST_IS_DIR))
        return 0;
    /* vips_init() then looks for modules in MODULE_DIR/<lib>/vips-modules-X.Y,
     * which does not exist (libvips sets VIPSHOME itself when it is unset;
     * the prefix also names the message catalogues, which thumbs does not
     * use). */
    if (setenv("VIPSHOME", module_dir, 0) != 0)
        return 0;
    atomic_store(&deferred, 1);
    return 1;
}

/* What vips_load_plugins() does at vips_init(): every shared object in the
 * directory, opened lazily through GModule (whose g_module_check_init
 * registers the module's operations). */
static void load_modules(void) {
    GDir *dir = g_dir_open(module_dir, 0, NULL);
    if (dir) {
        const char *name;
        while ((name = g_dir_read_name(dir))) {
            if (!g_str_has_suffix(name, "." G_MODULE_SUFFIX))
                continue;
            char *path = g_build_filename(module_dir, name, NULL);
            /* A module that does not load is skipped, as libvips does. */
            (void) g_module_open(path, G_MODULE_BIND_LAZY);
            g_free(path);
        }
        g_dir_close(dir);
    }
    /* vips_block_untrusted_set() marks the operations registered so far:
     * the new ones (magickload) take the run's setting now. */
    int blocked = atomic_load(&untrusted_blocked);
    if (blocked >= 0)
        vips_block_untrusted_set(blocked ? TRUE : FALSE);
}

int shim_modules_load(void) {
    if (!atomic_load(&deferred))
        return 0;
    pthread_once(&load_once, load_modules);
    return 1;
}

void shim_block_untrusted(int block) {
    atomic_store(&untrusted_blocked, block ? 1 : 0);
    vips_block_untrusted_set(block ? TRUE : FALSE);
}
