#!/bin/sh
# Remakes Tests/Fixtures/video: tiny clips for the video tests (issue 22),
# made with the ffmpeg binary (Debian's ffmpeg: libx264, libx265, libvpx),
# which CI does not have; the clips are committed. Run from the repository.
set -eu
out=Tests/Fixtures/video
mkdir -p "$out"
ff() { ffmpeg -hide_banner -loglevel error -y "$@"; }
src="testsrc2=size=160x90:rate=10:duration=3"

# H.264 in MP4: 3 s at 10 fps, a keyframe every second (0, 1, 2 s).
ff -f lavfi -i "$src" -c:v libx264 -preset veryfast -crf 30 -g 10 -keyint_min 10 -sc_threshold 0 \
   -pix_fmt yuv420p -movflags +faststart "$out/h264.mp4"
# The same turned a quarter for display by the display matrix (ffmpeg 5.1's
# rotate tag: ffprobe says rotation 90, anticlockwise): stored 160×90, shown 90×160.
ff -i "$out/h264.mp4" -c copy -metadata:s:v:0 rotate=90 "$out/rotated.mp4"
# HEVC in QuickTime.
ff -f lavfi -i "testsrc2=size=160x96:rate=25:duration=2" -c:v libx265 -preset ultrafast -crf 32 \
   -x265-params log-level=error:keyint=25:min-keyint=25:scenecut=0 -tag:v hvc1 -pix_fmt yuv420p "$out/hevc.mov"
# VP9 in WebM, H.264 in Matroska, MPEG-4 part 2 in AVI, H.264 in an MPEG-TS of 192-byte packets.
ff -f lavfi -i "$src" -c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 100k -g 10 "$out/vp9.webm"
ff -f lavfi -i "$src" -c:v libx264 -preset veryfast -crf 30 -g 10 -sc_threshold 0 -pix_fmt yuv420p "$out/h264.mkv"
ff -f lavfi -i "$src" -c:v mpeg4 -q:v 8 -g 10 "$out/mpeg4.avi"
ff -f lavfi -i "$src" -c:v libx264 -preset veryfast -crf 30 -g 10 -sc_threshold 0 -pix_fmt yuv420p \
   -mpegts_m2ts_mode 1 -f mpegts "$out/h264.m2ts"
# Black for the first 1.5 s, keyframes every 0.5 s: the poster frame is the
# first keyframe that is not black (1.5 s).
ff -f lavfi -i "color=black:size=160x90:rate=10:duration=1.5" -f lavfi -i "testsrc2=size=160x90:rate=10:duration=1.5" \
   -filter_complex "[0:v][1:v]concat=n=2:v=1[v]" -map "[v]" -c:v libx264 -preset veryfast -crf 30 -g 5 -keyint_min 5 \
   -sc_threshold 0 -pix_fmt yuv420p "$out/black-start.mp4"
# One frame only (no duration to take 10% of).
ff -f lavfi -i "testsrc2=size=160x90:rate=10" -frames:v 1 -c:v libx264 -pix_fmt yuv420p "$out/one-frame.mp4"
# One 1920×1080 frame (issue 34): a video's plan reserves what a frame of its size holds.
ff -f lavfi -i "testsrc2=size=1920x1080:rate=10" -frames:v 1 -c:v libx264 -preset veryfast -crf 45 -pix_fmt yuv420p \
   -movflags +faststart "$out/h264-1080p.mp4"
# No duration at all: Matroska written to a pipe has no Duration element.
ff -f lavfi -i "$src" -c:v libx264 -preset veryfast -crf 30 -g 10 -sc_threshold 0 -pix_fmt yuv420p -f matroska - \
   > "$out/no-duration.mkv"
# Sound only, in MP4.
ff -f lavfi -i "sine=frequency=440:duration=0.5" -c:a aac -b:a 32k "$out/audio-only.mp4"
# A video with a hundred audio streams (beyond the 64 thumbs reads).
maps=""
i=0
while [ $i -lt 100 ]; do maps="$maps -map 1:a"; i=$((i + 1)); done
# shellcheck disable=SC2086
ff -f lavfi -i "testsrc2=size=64x36:rate=5:duration=0.4" -f lavfi -i "anullsrc=r=1000:cl=mono" -t 0.4 \
   -map 0:v $maps -c:v libx264 -pix_fmt yuv420p -c:a pcm_u8 "$out/hundred-streams.mkv"
# An H.264 MP4 written as a camera does (moov box last), cut in half: the
# index of its frames is gone.
ff -f lavfi -i "$src" -c:v libx264 -preset veryfast -crf 30 -g 10 -pix_fmt yuv420p /tmp/thumbs-moov-last.mp4
size=$(stat -c %s /tmp/thumbs-moov-last.mp4)
head -c $((size / 2)) /tmp/thumbs-moov-last.mp4 > "$out/truncated.mp4"
rm -f /tmp/thumbs-moov-last.mp4
# The faststart MP4 cut after its index and the first keyframe: the frames the
# index names past the cut are missing.
head -c 4000 "$out/h264.mp4" > "$out/cut-after-index.mp4"
# Only the header: the moov box cut off.
head -c 600 "$out/h264.mp4" > "$out/header-only.mov"
# The movie header (mvhd, version 0, timescale 1000) says 3.6 s where the
# video track lasts 3 s, as when a sound track outlasts the video: players
# show the container's 3.6 s.
python3 - "$out/h264.mp4" "$out/longer-container.mp4" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
at = data.find(b'mvhd')
assert data[at + 4] == 0 and struct.unpack('>I', data[at + 16:at + 20])[0] == 1000
data[at + 20:at + 24] = struct.pack('>I', 3600)
open(sys.argv[2], 'wb').write(data)
PY

# HDR: 10-bit HEVC, BT.2020, with four flat patches of known code values
# (python3 writes the frames; lossless, so the codes survive): PQ and HLG.
python3 scripts/video-hdr-patches.py pq > /tmp/thumbs-pq.yuv
python3 scripts/video-hdr-patches.py hlg > /tmp/thumbs-hlg.yuv
for kind in pq hlg; do
  trc=smpte2084; [ $kind = hlg ] && trc=arib-std-b67
  ff -f rawvideo -pix_fmt yuv420p10le -s 128x128 -r 10 -i /tmp/thumbs-$kind.yuv \
     -c:v libx265 -preset ultrafast -x265-params "log-level=error:lossless=1:keyint=10" \
     -color_primaries bt2020 -color_trc $trc -colorspace bt2020nc -color_range tv \
     -tag:v hvc1 -pix_fmt yuv420p10le "$out/hdr-$kind.mp4"
  rm -f /tmp/thumbs-$kind.yuv
done
ls -l "$out"

# SDR colour bars and their PQ and HLG twins (issue 36): BT.709 SDR made
# linear with SDR white at 203 nits (BT.2408's reference white), BT.2020
# primaries, PQ or HLG, 10-bit HEVC, lossless; needs FFmpeg's zscale
# (libzimg). The HLG twin needs agamma=0: with zscale's default (agamma=1,
# zimg's allow_approximate_gamma) zimg does not apply HLG's display-referred
# OOTF on luminance, as BT.2100 defines it, but a gamma of 1.2 on each
# channel (its red bar is 0.544/0.218/0.120 where BT.2100 gives
# 0.585/0.199/0.097), so a BT.2100 decoder shows that clip less colourful
# (0.72) than the SDR one. With agamma=0 its bars match BT.2100 within 0.005.
bars="smptehdbars=size=320x180:rate=10:duration=2"
ff -f lavfi -i "$bars" -c:v libx264 -crf 12 -pix_fmt yuv420p -colorspace bt709 -color_primaries bt709 -color_trc bt709 \
   "$out/twin-sdr.mp4"
for trc in smpte2084 arib-std-b67; do
    name=$([ "$trc" = smpte2084 ] && echo pq || echo hlg)
    ff -f lavfi -i "$bars" -vf "setparams=color_primaries=bt709:color_trc=bt709:colorspace=bt709:range=tv,zscale=t=linear:npl=203:p=bt709:m=bt709,format=gbrpf32le,zscale=p=bt2020:t=$trc:m=bt2020nc:r=tv:npl=203:agamma=0,format=yuv420p10le" \
       -c:v libx265 -x265-params "log-level=error:lossless=1:colorprim=bt2020:transfer=$trc:colormatrix=bt2020nc" \
       -color_primaries bt2020 -color_trc "$trc" -colorspace bt2020nc "$out/twin-$name.mp4"
done
