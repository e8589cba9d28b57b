// libheif's C API, exposed to Swift and to CHeifShim as the CHeif module.
#include <libheif/heif.h>
