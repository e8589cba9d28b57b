# thumbs as a container image:
#   make image IMAGE=registry.example.com/thumbs:0.1.0     (docker or podman)
#   podman push registry.example.com/thumbs:0.1.0
#
# Stages:
#   build     Swift toolchain + libvips-dev, libraw-dev, libheif-dev, FFmpeg's -dev: `make build-static` (Swift stdlib and
#             Foundation linked statically, libvips dynamically).
#   prebuilt  a binary built outside the image, `thumbs` in the build context
#             (scripts/test-image.sh, which builds it with `make build-static`).
#   runtime   the image: RUNTIME_IMAGE + libvips42 + CA certificates, user
#             thumbs (uid 10001), the binary in /usr/local/bin, /data.
# BINARIES picks where the runtime stage takes the binary from. The runtime
# stage itself is the same either way; scripts/test-image.sh builds exactly it
# (`--target runtime --build-arg BINARIES=prebuilt`).
#
# The base images are build arguments, so that the image can also be built
# from a local or mirrored base.
#
# Tested: the runtime stage (scripts/test-image.sh, podman, Debian bookworm).
# The build stage has not been built yet: no container registry was reachable
# where this was written, so swift:6.3.1-bookworm could not be pulled.
ARG SWIFT_IMAGE=docker.io/library/swift:6.3.1-bookworm
ARG RUNTIME_IMAGE=docker.io/library/debian:bookworm-slim
ARG BINARIES=build

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libvips-dev libraw-dev libheif-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libsqlite3-dev libssl-dev pkg-config libxml2-utils make \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN make build-static \
 && install -D -m 755 .build/static/stage/thumbs /usr/local/bin/thumbs

FROM scratch AS prebuilt
COPY thumbs /usr/local/bin/thumbs

FROM ${BINARIES} AS binaries

FROM ${RUNTIME_IMAGE} AS runtime
# libvips42 brings libjpeg62-turbo, liblcms2-2 and libheif1, which thumbs also
# links; libraw20 for camera RAWs; FFmpeg's libraries for video poster frames;
# libsqlite3-0 for the merge's index; libssl3 (libcrypto) for SHA-256; ca-certificates for HTTPS photo lists.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libvips42 libraw20 libheif1 libavformat59 libavcodec59 libswscale6 libavutil57 libsqlite3-0 libssl3 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 thumbs \
 && useradd --uid 10001 --gid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin thumbs \
 && mkdir -p /data \
 && chown 10001:10001 /data
COPY --from=binaries /usr/local/bin/thumbs /usr/local/bin/thumbs
# Numeric, so that Kubernetes' runAsNonRoot can check it.
USER 10001:10001
WORKDIR /data
VOLUME /data
ENTRYPOINT ["thumbs"]
CMD ["--help"]
