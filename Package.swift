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
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
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
            // lcms2 (liblcms2-dev, also a libvips-dev dependency) for icc_fast.c.
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("lcms2")]
        ),
        .target(
            name: "ThumbsKit",
            dependencies: [
                "CVips",
                "CVipsShim",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "thumbs",
            dependencies: [
                "ThumbsKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "ThumbsKitTests",
            dependencies: [
                "ThumbsKit",
                "CVips",
                "CVipsShim",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
