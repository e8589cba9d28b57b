/* Off CI. libFuzzer harness for the direct JPEG path (jpeg_direct.c and the
 * DC decode, jpeg_dc.c): probe, then decode at 1/8 (the DC path) and 1/4
 * (libjpeg), with a small memory budget so that huge headers are refused
 * rather than allocated. Build and run: see build.sh. */
#include "CVipsShim.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shim_jpeg_header header;
    if (shim_jpeg_direct_probe(data, size, &header) != 0)
        return 0;
    shim_jpeg_pixels pixels;
    for (int shrink = 8; shrink >= 4; shrink /= 2) {
        if (shim_jpeg_direct_decode(data, size, shrink, (size_t) 64 << 20, &pixels) == 0) {
            /* Touch every byte: the sanitizers see any short buffer. */
            size_t n = pixels.width * pixels.height * (size_t) pixels.bands;
            volatile unsigned sum = 0;
            for (size_t i = 0; i < n; i++)
                sum += pixels.pixels[i];
            if (pixels.decoder < 0 || pixels.decoder > 2 || pixels.bands != header.components)
                __builtin_trap();
            shim_jpeg_pixels_free(&pixels);
        }
    }
    return 0;
}
