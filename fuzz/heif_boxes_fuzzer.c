/* Off CI. libFuzzer harness for the HEIF box reading thumbs does itself
 * (Sources/CHeifShim/heif_input.c): heif_primary_is_grid (meta, pitm, iinf,
 * infe) and heif_primary_rotation (iprp, ipco, ipma, irot, imir, clap) over
 * a file's bytes held in memory, as a source of that size. Built and run by
 * fuzz/heif_boxes.sh. */
#include "../Sources/CHeifShim/heif_input.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    shim_heif_input input = {.buf = data, .len = size, .fd = -1};
    (void) heif_primary_is_grid(&input);
    (void) heif_primary_rotation(&input);
    return 0;
}
