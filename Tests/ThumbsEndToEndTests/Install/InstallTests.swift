import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// `make install` end to end, as a user would run it: install into a
/// temporary DESTDIR, run the installed binary with no Swift toolchain on PATH
/// or LD_LIBRARY_PATH, check the completions and the man page, uninstall.
///
/// The first run builds the static release binary (`make build-static`, in
/// .build/static: `swift test` holds the lock on .build), which takes minutes;
/// later runs reuse it.
final class InstallTests: XCTestCase {
    /// Tests/ThumbsEndToEndTests/Install/InstallTests.swift -> the repository root.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// Everything `make install` writes, relative to DESTDIR.
    static let installedFiles: Set<String> = [
        "usr/local/bin/thumbs",
        "usr/local/share/bash-completion/completions/thumbs",
        "usr/local/share/zsh/site-functions/_thumbs",
        "usr/local/share/fish/vendor_completions.d/thumbs.fish",
        "usr/local/share/man/man1/thumbs.1",
    ]

    func testInstalledThumbsRunsWithoutTheToolchainAndUninstallLeavesNothing() throws {
        guard let make = Self.executable(named: "make", in: ProcessInfo.processInfo.environment["PATH"] ?? "") else {
            throw XCTSkip("`make` is not installed, so `make install` cannot be tested here (apt-get install make)")
        }
        let scratch = NSTemporaryDirectory() + "thumbs-install-\(UUID().uuidString)"
        let destdir = scratch + "/root"
        try FileManager.default.createDirectory(atPath: destdir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        let install = try Self.run(make, ["-C", Self.repository, "install", "PREFIX=/usr/local", "DESTDIR=\(destdir)"])
        XCTAssertEqual(install.status, 0, "make install failed:\n\(install.output.suffix(4000))")
        guard install.status == 0 else { return }
        XCTAssertEqual(Self.files(under: destdir), Self.installedFiles)

        // The binary: no Swift runtime, Foundation or toolchain path among its libraries.
        let binary = destdir + "/usr/local/bin/thumbs"
        let toolchain = Self.toolchainRoot()
        let ldd = try Self.run("/usr/bin/ldd", [binary])
        XCTAssertEqual(ldd.status, 0, ldd.output)
        for line in ldd.output.split(separator: "\n") {
            XCTAssertFalse(line.contains("libswift") || line.contains("libFoundation") || line.contains("libdispatch"),
                           "the installed thumbs links the Swift runtime dynamically: \(line)")
            if let toolchain {
                XCTAssertFalse(line.contains(toolchain + "/"), "the installed thumbs loads a library from the toolchain: \(line)")
            }
            XCTAssertFalse(line.contains("not found"), "a library of the installed thumbs is missing: \(line)")
        }
        XCTAssertTrue(ldd.output.contains("libvips.so.42"), "thumbs should link libvips dynamically:\n\(ldd.output)")

        // It runs with PATH stripped of the toolchain and no LD_LIBRARY_PATH.
        let environment = Self.environmentWithoutToolchain(home: scratch)
        let version = try Self.run(binary, ["--version"], environment: environment)
        XCTAssertEqual(version.status, 0, version.output)
        XCTAssertEqual(version.output.trimmingCharacters(in: .whitespacesAndNewlines), ThumbsVersion.current)

        let out = scratch + "/out"
        let run = try Self.run(
            binary,
            ["run", Self.repository + "/Samples", "--out", out, "--size", "64", "--max-failures", "1", "--progress", "never"],
            environment: environment)
        XCTAssertEqual(run.status, 0, "the installed thumbs failed on Samples/:\n\(run.output)")
        let manifest = try readManifest(out)
        XCTAssertEqual(manifest.items.filter { $0.status == .failed }.map(\.id), ["broken-truncated.jpg"])
        XCTAssertGreaterThanOrEqual(manifest.items.filter { $0.status == .ok }.count, 7)
        for item in manifest.items where item.status == .ok {
            for output in item.outputs {
                XCTAssertTrue(FileManager.default.fileExists(atPath: out + "/" + output.path), "missing \(output.path)")
            }
        }

        // Completions and the man page, generated from the binary's own options.
        let prefix = destdir + "/usr/local"
        let bash = try String(contentsOfFile: prefix + "/share/bash-completion/completions/thumbs", encoding: .utf8)
        XCTAssertTrue(bash.contains("complete") && bash.contains("--max-failures"), "bash completion:\n\(bash.prefix(400))")
        let zsh = try String(contentsOfFile: prefix + "/share/zsh/site-functions/_thumbs", encoding: .utf8)
        XCTAssertTrue(zsh.hasPrefix("#compdef thumbs"), "zsh completion:\n\(zsh.prefix(400))")
        let fish = try String(contentsOfFile: prefix + "/share/fish/vendor_completions.d/thumbs.fish", encoding: .utf8)
        XCTAssertTrue(fish.contains("complete -c 'thumbs'") || fish.contains("complete -c thumbs"), "fish completion:\n\(fish.prefix(400))")
        let man = try String(contentsOfFile: prefix + "/share/man/man1/thumbs.1", encoding: .utf8)
        XCTAssertTrue(man.contains(".TH \"THUMBS\" \"1\""), "man page:\n\(man.prefix(400))")
        XCTAssertTrue(man.contains("\"thumbs \(ThumbsVersion.current)\""), "man page names no version:\n\(man.prefix(400))")
        for fragment in [".SH SYNOPSIS", ".SS \"thumbs run\"", ".SS \"thumbs verify\"", ".SS \"thumbs merge\"", "\\-\\-max\\-failures", "\\-\\-shard"] {
            XCTAssertTrue(man.contains(fragment), "man page lacks \(fragment)")
        }

        // Uninstall removes every file install wrote (directories may stay).
        let uninstall = try Self.run(make, ["-C", Self.repository, "uninstall", "PREFIX=/usr/local", "DESTDIR=\(destdir)"])
        XCTAssertEqual(uninstall.status, 0, uninstall.output)
        XCTAssertEqual(Self.files(under: destdir), [], "make uninstall left files behind")
    }

    // MARK: - Helpers

    /// Regular files and symbolic links under `root`, relative to it.
    static func files(under root: String) -> Set<String> {
        var found: Set<String> = []
        guard let walker = FileManager.default.enumerator(atPath: root) else { return found }
        while let path = walker.nextObject() as? String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: root + "/" + path)
            if attributes?[.type] as? FileAttributeType != .typeDirectory { found.insert(path) }
        }
        return found
    }

    static func executable(named name: String, in path: String) -> String? {
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The toolchain `swift` belongs to (/opt/swift for /opt/swift/usr/bin/swift).
    static func toolchainRoot() -> String? {
        guard let swift = executable(named: "swift", in: ProcessInfo.processInfo.environment["PATH"] ?? "") else { return nil }
        let resolved = URL(fileURLWithPath: swift).resolvingSymlinksInPath().path
        guard let range = resolved.range(of: "/usr/bin/", options: .backwards) else { return nil }
        let root = String(resolved[..<range.lowerBound])
        return root.isEmpty ? nil : root
    }

    /// PATH without any directory holding swift or swiftc, no LD_LIBRARY_PATH,
    /// nothing else inherited.
    static func environmentWithoutToolchain(home: String) -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let path = inherited.split(separator: ":").map(String.init).filter { directory in
            !FileManager.default.fileExists(atPath: directory + "/swift")
                && !FileManager.default.fileExists(atPath: directory + "/swiftc")
        }
        return ["PATH": path.joined(separator: ":"), "HOME": home, "LANG": "C.UTF-8"]
    }

    /// Runs to the end; stdout and stderr together.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
