// FFmpeg's libraries as CVideoShim uses them (Debian: libavformat-dev,
// libavcodec-dev, libswscale-dev, libavutil-dev).
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswscale/swscale.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
