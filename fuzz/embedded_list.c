/* Off CI. Prints what embedded_pictures.c lists for each file named (the
 * whole file given), one line per picture, to set against
 * `exiftool -PreviewImage -MPImage2 -ThumbnailImage`:
 *   fuzz/out/embedded_list FILE...
 * Built by fuzz/build.sh (`embedded-build`). */
#include "CVipsEmbeddedPictures.h"
#include "slurp.h"

#include <stdio.h>

static const char *kind_name(int kind) {
    switch (kind) {
    case SHIM_EP_MPF: return "mpf";
    case SHIM_EP_EXIF_THUMBNAIL: return "exif-thumbnail";
    case SHIM_EP_MAKER_NOTE: return "maker-note";
    case SHIM_EP_TIFF_IMAGE: return "tiff-image";
    case SHIM_EP_JPG_FROM_RAW: return "jpg-from-raw";
    case SHIM_EP_PREVIEW_IMAGE: return "preview-image";
    default: return "?";
    }
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        size_t length;
        unsigned char *bytes = slurp(argv[i], &length);
        if (!bytes) {
            printf("%s: unreadable\n", argv[i]);
            continue;
        }
        shim_embedded_listing listing;
        int jpeg = length > 2 && bytes[0] == 0xFF && bytes[1] == 0xD8;
        int status = jpeg ? shim_embedded_pictures_jpeg(bytes, length, length, &listing)
                          : shim_embedded_pictures_tiff(bytes, length, length, &listing);
        if (status != 0) {
            printf("%s: neither a JPEG nor a TIFF\n", argv[i]);
            free(bytes);
            continue;
        }
        printf("%s: %dx%d orientation %d complete %d pixel %dx%d make '%s' model '%s' software '%s' modify '%s' "
               "original '%s' creator '%s' edits 0x%x refused %d capped %d\n",
               argv[i], listing.width, listing.height, listing.orientation, listing.complete, listing.pixel_x,
               listing.pixel_y, listing.make, listing.model, listing.software, listing.modify_date,
               listing.date_original, listing.creator_tool, listing.edits, listing.refused, listing.capped);
        for (int k = 0; k < listing.count; k++) {
            const shim_embedded_picture *p = &listing.pictures[k];
            printf("  %s maker %d @%llu +%llu %dx%d sof %02x comps %d orientation %d mpf %06x compression %d flags 0x%x\n",
                   kind_name(p->kind), p->maker, (unsigned long long) p->offset, (unsigned long long) p->length,
                   p->width, p->height, p->sof, p->components, p->orientation, p->mpf_type, p->compression, p->flags);
        }
        free(bytes);
    }
    return 0;
}
