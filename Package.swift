// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "thumbs",
    // Linux only (x86_64/aarch64; built and tested on Debian bookworm x86_64):
    // ThumbsKit calls Glibc (Sources/ThumbsKit/System) and shim.c includes
    // <malloc.h>, so no Apple platform is declared.
    products: [
        .executable(name: "thumbs", targets: ["thumbs"]),
        .library(name: "ThumbsKit", targets: ["ThumbsKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Deque and Heap (already built for SwiftNIO): queues and the merge's heap.
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
    ],
    targets: [
        // libvips through pkg-config; the module map lives in Sources/CVips.
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        // The few libvips entry points Swift cannot call: variadic functions and macros.
        .target(
            name: "CVipsShim",
            dependencies: ["CVips"],
            // libjpeg (libvips-dev depends on libjpeg-dev) for the direct JPEG path,
            // lcms2 (liblcms2-dev, also a libvips-dev dependency) for icc_fast.c,
            // GModule (libglib2.0-dev) to load libvips' modules late (vips_modules.c).
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("lcms2"), .linkedLibrary("gmodule-2.0")]
        ),
        // libheif (libheif-dev, which libvips-dev also brings) for HEIF
        // thumbnails and nclx colour, which libvips's heifload does not give.
        // The tests' C helpers link it (CThumbsTestShim); the product loads
        // it on first use (CLoadOnUse).
        .systemLibrary(
            name: "CHeif",
            pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]
        ),
        // libheif and FFmpeg's libraries (libavformat-dev, libavcodec-dev,
        // libswscale-dev, libavutil-dev, which `make setup` installs), loaded
        // with dlopen when an item first needs them instead of linked: they
        // and the ~60 libraries they bring cost ~25 ms of every run's start,
        // and most runs meet no video and no HEIC. Their headers are found on
        // the default include path (Debian's multiarch directory).
        .target(name: "CLoadOnUse"),
        // HEIC decodes through libheif; FFmpeg's libavcodec decodes the HEVC
        // of a HEIC's primary image (heif_hevc_ffmpeg.c, a libheif decoder
        // plugin).
        .target(
            name: "CHeifShim",
            dependencies: ["CLoadOnUse", "CVipsShim"],
            linkerSettings: [.linkedLibrary("lcms2")]
        ),
        // Video poster frames (issue 22): the C that demuxes, decodes one
        // keyframe and tone-maps HDR, on FFmpeg through CLoadOnUse.
        .target(
            name: "CVideoShim",
            // CVipsShim: the HDR tone mapping stills share (hdr_tonemap.c).
            dependencies: ["CLoadOnUse", "CVipsShim"]
        ),
        // Camera RAWs (issue 22): LibRaw's thread-safe build through
        // pkg-config, and the C++ shim that opens a RAW from memory (facts,
        // where its thumbnail is, a development into 8-bit sRGB pixels).
        .systemLibrary(
            name: "CLibRaw",
            pkgConfig: "libraw_r",
            providers: [.apt(["libraw-dev"])]
        ),
        .target(
            name: "CRawShim",
            dependencies: ["CLibRaw"]
        ),
        // SQLite (Debian's libsqlite3-dev) through pkg-config, module map in
        // Sources/CSQLite: the merge's index under OUT/.thumbs/ (issue 23).
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // OpenSSL's libcrypto (Debian's libssl-dev) through pkg-config, module
        // map in Sources/CLibCrypto: SHA-256 (Formats/SHA256Hex.swift). It
        // replaced swift-crypto, whose own BoringSSL was a second copy of the
        // ~400 C and assembly files swift-nio-ssl already compiles (issue 34:
        // the cold build a new user meets).
        .systemLibrary(
            name: "CLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "ThumbsKit",
            dependencies: [
                "CVips",
                "CSQLite",
                "CVipsShim",
                "CHeifShim",
                "CVideoShim",
                "CRawShim",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                "CLibCrypto",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "thumbs",
            dependencies: [
                "ThumbsKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Code the test targets share: images made with libvips, the
        // loopback HTTP server, in-process runs, the built `thumbs` binary,
        // a test case with its own temporary folder. A regular target (as
        // swift-argument-parser's ArgumentParserTestHelpers) because test
        // targets cannot depend on one another; it uses ThumbsKit's public
        // API only (no @testable import), so release builds compile it too.
        // C helpers for the tests only (libvips file I/O, pixel means, the
        // parsers of untrusted bytes run against a guard page): kept out of
        // CVipsShim so that the product does not ship them.
        .target(
            name: "CThumbsTestShim",
            dependencies: ["CVips", "CVipsShim", "CHeif"],
            path: "Tests/CThumbsTestShim"
        ),
        .target(
            name: "ThumbsTestSupport",
            dependencies: [
                "ThumbsKit",
                "CVips",
                "CVipsShim",
                "CThumbsTestShim",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/ThumbsTestSupport"
        ),
        // Unit tests, in folders that mirror Sources/ThumbsKit: one type or
        // one rule at a time (`make test-unit` runs these alone).
        .testTarget(
            name: "ThumbsKitTests",
            dependencies: ["ThumbsKit", "ThumbsTestSupport", "CVips", "CVipsShim", "CThumbsTestShim"]
        ),
        // Whole runs on generated images and loopback servers, in process or
        // through the built binary (kill -9, signals), and `make install`.
        .testTarget(
            name: "ThumbsEndToEndTests",
            dependencies: [
                "ThumbsKit",
                "ThumbsTestSupport",
                "CVips",
                "CVipsShim",
                "CThumbsTestShim",
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The `thumbs` binary as a user meets it: --help, usage errors, exit
        // codes, and the README's option table against `thumbs run --help`.
        .testTarget(
            name: "ThumbsCLITests",
            dependencies: ["ThumbsKit", "ThumbsTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
