// The libvips umbrella header, exposed to Swift as the CVips module.
#include <vips/vips.h>
