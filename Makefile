# thumbs: setup, build, run, test, bench.
#   make run     installs libvips if needed, builds, thumbnails Samples/ into ./thumbs-out
#   make test    installs libvips if needed, runs the whole test suite (swift test)
SHELL := /bin/bash
SWIFT ?= swift
OUT ?= thumbs-out
BIN := .build/release/thumbs

.PHONY: setup build run test bench report-screenshot clean

# libvips-dev through apt when pkg-config cannot find it (Debian/Ubuntu).
setup:
	@if ! pkg-config --exists vips 2>/dev/null; then \
	  echo "installing libvips-dev (pkg-config cannot find vips)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends libvips-dev pkg-config >/dev/null; \
	fi
	@pkg-config --modversion vips >/dev/null && echo "libvips $$(pkg-config --modversion vips)"

build: setup
	$(SWIFT) build -c release

# The demo: Samples/ holds one broken file on purpose, so one failure is tolerated.
run: build
	$(BIN) run Samples --out $(OUT) --size 256 --max-failures 1

test: setup
	$(SWIFT) test

bench: setup
	bash bench/bench.sh

# Renders the Samples report in headless Chromium to report.png.
report-screenshot: run
	bash scripts/screenshot-report.sh $(OUT)/report.html $(OUT)/report.png

clean:
	rm -rf .build $(OUT)
