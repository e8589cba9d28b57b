# thumbs: setup, build, run, test, bench, install, image.
#   make run     installs libvips, LibRaw, libheif, FFmpeg if needed, builds, thumbnails Samples/ into ./thumbs-out
#   make test    installs them if needed, runs the whole test suite (swift test)
#   make test-unit   the unit tests alone (ThumbsKitTests): no whole runs, no binary, no install
#   make install PREFIX=/usr/local [DESTDIR=...]   a self-contained thumbs, completions, man page
#   make image IMAGE=registry.example.com/thumbs:0.1.0   the container image (docker or podman)
SHELL := /bin/bash
SWIFT ?= swift
OUT ?= thumbs-out
# CONFIG=debug builds and runs the debug binary (CI: `make test` built it already).
CONFIG ?= release
BIN := .build/$(CONFIG)/thumbs
# A release thumbs links the Swift standard library and Foundation statically,
# as the installed one does (build-static): about 15 of a run's 50-70 CPU ms of
# start-up go to the dynamic loader binding the Swift libraries' symbols, which
# a static link resolves once, at link time. Every release build in .build
# (make build, bench/, scripts/) goes through `make build` with these flags:
# a release build without them would recompile every module.
BUILD_FLAGS := $(if $(filter release,$(CONFIG)),--static-swift-stdlib)

.PHONY: setup build run test test-unit bench report-screenshot clean build-static check-static install uninstall image

# The C libraries thumbs builds on, as Debian's -dev packages, through apt
# when pkg-config cannot find one of them (Debian/Ubuntu): libvips; LibRaw
# (camera RAWs, the thread-safe libraw_r); libheif (HEIC thumbnails); FFmpeg's
# libavformat, libavcodec, libswscale and libavutil (video poster frames);
# SQLite (the merge's index under OUT/.thumbs/); OpenSSL's libcrypto (SHA-256);
# xmllint (libxml2-utils), with which the tests check `verify --junit` against
# a JUnit schema.
SYSTEM_MODULES := vips libraw_r libheif libavformat libavcodec libswscale libavutil sqlite3 libcrypto
SYSTEM_PACKAGES := libvips-dev libraw-dev libheif-dev libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libsqlite3-dev libssl-dev pkg-config libxml2-utils

setup:
	@if ! pkg-config --exists $(SYSTEM_MODULES) 2>/dev/null || ! command -v xmllint >/dev/null; then \
	  echo "installing $(SYSTEM_PACKAGES) (pkg-config cannot find all of: $(SYSTEM_MODULES), or xmllint is missing)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $(SYSTEM_PACKAGES) >/dev/null; \
	fi
	@pkg-config --modversion vips >/dev/null && echo "libvips $$(pkg-config --modversion vips), LibRaw $$(pkg-config --modversion libraw_r), libheif $$(pkg-config --modversion libheif), libavformat $$(pkg-config --modversion libavformat)"

# Only the thumbs product: the test support targets (ThumbsTestSupport,
# CThumbsTestShim) are built by `make test`, not for a run.
build: setup
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS) --product thumbs

# The demo: Samples/ holds one broken file on purpose, so one failure is tolerated.
run: build
	$(BIN) run Samples --out $(OUT) --size 256 --max-failures 1

test: setup
	$(SWIFT) test

# The fast part of the suite: Tests/ThumbsKitTests, one type or rule at a time.
# End-to-end runs (Tests/ThumbsEndToEndTests) and the binary's CLI
# (Tests/ThumbsCLITests) run with `make test`.
test-unit: setup
	$(SWIFT) test --filter ThumbsKitTests

bench: setup
	bash bench/bench.sh

# Renders the Samples report in headless Chromium to report.png.
report-screenshot: run
	bash scripts/screenshot-report.sh $(OUT)/report.html $(OUT)/report.png

clean:
	rm -rf .build $(OUT)

# ---------------------------------------------------------------------------
# install: thumbs on PATH, runnable without the Swift toolchain.
#
# build-static links the Swift standard library and Foundation statically
# (libvips, libjpeg, glib, libstdc++ stay dynamic: Debian's libvips42 package
# brings them) and stages everything install copies in $(STAGE): the binary,
# and the completions and man page generated from it, so they cannot drift
# from its options. The staged files are ordinary make targets: once built,
# `sudo make install` copies them without running swift as root.
#
# Its own scratch path, .build/static, though `make build` links the same
# way in .build: the install test builds it while `swift test` holds the
# lock on .build.
PREFIX ?= /usr/local
DESTDIR ?=
STATIC_SCRATCH ?= .build/static
STAGE := $(STATIC_SCRATCH)/stage
STRIP ?= strip
SWIFT_STATIC := $(SWIFT) build -c release --static-swift-stdlib --scratch-path $(STATIC_SCRATCH)
SOURCES := Package.swift $(wildcard Package.resolved) $(shell find Sources -type f 2>/dev/null)

# What install puts where (uninstall removes exactly these).
INSTALLED_BIN  := $(DESTDIR)$(PREFIX)/bin/thumbs
INSTALLED_BASH := $(DESTDIR)$(PREFIX)/share/bash-completion/completions/thumbs
INSTALLED_ZSH  := $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_thumbs
INSTALLED_FISH := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/thumbs.fish
INSTALLED_MAN  := $(DESTDIR)$(PREFIX)/share/man/man1/thumbs.1

STAGED := $(STAGE)/thumbs $(STAGE)/thumbs.bash $(STAGE)/_thumbs $(STAGE)/thumbs.fish $(STAGE)/thumbs.1

build-static: $(STAGED) check-static

$(STAGE)/thumbs: $(SOURCES) | setup
	$(SWIFT_STATIC) --product thumbs
	mkdir -p $(STAGE)
	cp $(STATIC_SCRATCH)/release/thumbs $@.tmp
	$(STRIP) --strip-debug $@.tmp   # DWARF only (147 -> 99 MB); symbols stay for backtraces
	mv $@.tmp $@

$(STAGE)/thumbs.bash: $(STAGE)/thumbs
	$< --generate-completion-script bash > $@.tmp && mv $@.tmp $@
$(STAGE)/_thumbs: $(STAGE)/thumbs
	$< --generate-completion-script zsh > $@.tmp && mv $@.tmp $@
$(STAGE)/thumbs.fish: $(STAGE)/thumbs
	$< --generate-completion-script fish > $@.tmp && mv $@.tmp $@

# The man page from the binary's own description of its arguments.
$(STAGE)/thumbs.1: $(STAGE)/thumbs scripts/manpage.swift
	set -o pipefail; $< --experimental-dump-help | $(SWIFT) scripts/manpage.swift "thumbs $$($< --version)" > $@.tmp && mv $@.tmp $@

# The staged binary must not load anything from the toolchain that built it.
check-static: $(STAGE)/thumbs
	@toolchain=$$(readlink -f "$$(command -v $(SWIFT))"); toolchain=$${toolchain%/usr/bin/*}; \
	case "$$toolchain" in ""|/) toolchain=/nonexistent-toolchain ;; esac; \
	if ldd $< | grep -E "libswift|libFoundation|libdispatch|libBlocksRuntime|$$toolchain/"; then \
	  echo "$< still links the Swift runtime dynamically (above)"; exit 1; \
	fi; \
	echo "$<: no Swift runtime or toolchain library among its dynamic libraries"

install: build-static
	install -d $(dir $(INSTALLED_BIN)) $(dir $(INSTALLED_BASH)) $(dir $(INSTALLED_ZSH)) $(dir $(INSTALLED_FISH)) $(dir $(INSTALLED_MAN))
	install -m 755 $(STAGE)/thumbs $(INSTALLED_BIN)
	install -m 644 $(STAGE)/thumbs.bash $(INSTALLED_BASH)
	install -m 644 $(STAGE)/_thumbs $(INSTALLED_ZSH)
	install -m 644 $(STAGE)/thumbs.fish $(INSTALLED_FISH)
	install -m 644 $(STAGE)/thumbs.1 $(INSTALLED_MAN)

# Removes the five files install wrote; shared directories (bin, man1...) stay.
uninstall:
	rm -f $(INSTALLED_BIN) $(INSTALLED_BASH) $(INSTALLED_ZSH) $(INSTALLED_FISH) $(INSTALLED_MAN)

# ---------------------------------------------------------------------------
# image: the container image from ./Dockerfile, with podman or docker.
#   make image IMAGE=registry.example.com/thumbs:0.1.0 [IMAGE_BUILD_FLAGS="--build-arg SWIFT_IMAGE=..."]
VERSION := $(shell sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/ThumbsKit/Manifest/Manifest.swift)
IMAGE ?= thumbs:$(VERSION)
CONTAINER_TOOL ?= $(shell if command -v podman >/dev/null 2>&1; then echo podman; elif command -v docker >/dev/null 2>&1; then echo docker; fi)
IMAGE_BUILD_FLAGS ?=

image:
	@[ -n "$(CONTAINER_TOOL)" ] || { echo "make image needs podman or docker"; exit 1; }
	$(CONTAINER_TOOL) build $(IMAGE_BUILD_FLAGS) -t $(IMAGE) .
