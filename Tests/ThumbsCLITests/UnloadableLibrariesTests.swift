import Foundation
import ThumbsTestSupport
import XCTest

/// A machine without FFmpeg's or libheif's runtime libraries: `CLoadOnUse`
/// opens them with `dlopen` on first use, and a library that does not load
/// must fail the items that need it, each with the loader's message, never
/// the run.
///
/// How the libraries are made to fail: `thumbs` does not link them, and
/// none of the libraries it links (libvips among them) needs them, so the
/// dynamic loader first looks for them when `CLoadOnUse` asks. Each is then
/// searched for in `LD_LIBRARY_PATH` before the system's folders, and a
/// file of that name that is not an ELF object ends the search with an
/// error ("file too short", "invalid ELF header"): glibc goes on past a
/// wrong-class object only. So a folder of text files named as the sonames
/// fails exactly the `dlopen`s of `CLoadOnUse`, and libvips's own HEIF
/// module (vips-heif.so, which links libheif.so.1) and ImageMagick's HEIC
/// coder fail to load too, as they would on such a machine: the HEIC is
/// a failed item, with libheif's message (`HeifThumbnail.requireLibrary`).
///
/// The sonames are those `ldconfig -p` knows for the five libraries, every
/// major version of each: whatever major thumbs was built against is among
/// them.
final class UnloadableLibrariesTests: TemporaryFolderTestCase {
    private static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    private static let libraries = ["libavutil", "libavcodec", "libavformat", "libswscale", "libheif"]

    /// The sonames `ldconfig -p` lists for `libraries` ("libavcodec.so.59").
    private func sonames() throws -> Set<String> {
        let ldconfig = Process()
        ldconfig.executableURL = URL(fileURLWithPath: FileManager.default.isExecutableFile(atPath: "/sbin/ldconfig")
                                     ? "/sbin/ldconfig" : "/usr/sbin/ldconfig")
        ldconfig.arguments = ["-p"]
        let pipe = Pipe()
        ldconfig.standardOutput = pipe
        try ldconfig.run()
        let listing = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ldconfig.waitUntilExit()
        var found = Set<String>()
        for line in listing.split(whereSeparator: \.isNewline) {
            guard let name = line.split(whereSeparator: \.isWhitespace).first.map(String.init) else { continue }
            for library in Self.libraries where name.hasPrefix(library + ".so.") && name.dropFirst(library.count + 4).allSatisfy(\.isNumber) {
                found.insert(name)
            }
        }
        return found
    }

    /// The items of OUT's manifest by id.
    private func items(_ out: String) throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json"))
        let manifest = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        let items = try XCTUnwrap(manifest["items"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: items.map { ($0["id"] as? String ?? "", $0) })
    }

    /// `item` failed with `code`, its message one line that starts with `prefix`.
    private func assertFailed(
        _ item: [String: Any]?, _ code: String, prefix: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let item = try XCTUnwrap(item, file: file, line: line)
        XCTAssertEqual(item["status"] as? String, "failed", file: file, line: line)
        let error = try XCTUnwrap(item["error"] as? [String: Any], file: file, line: line)
        XCTAssertEqual(error["code"] as? String, code, file: file, line: line)
        let message = try XCTUnwrap(error["message"] as? String, file: file, line: line)
        XCTAssertTrue(message.hasPrefix(prefix), message, file: file, line: line)
        XCTAssertFalse(message.contains("\n"), "one line: \(message)", file: file, line: line)
    }

    func testAMachineWithoutFFmpegOrLibheifFailsTheirItemsAndNotTheRun() throws {
        try ThumbsProcess.requireExecutable()
        let names = try sonames()
        for library in Self.libraries {
            XCTAssertTrue(names.contains { $0.hasPrefix(library + ".so.") }, "ldconfig -p lists no \(library): nothing to hide")
        }
        let fakes = root + "/fake-libraries"
        try FileManager.default.createDirectory(atPath: fakes, withIntermediateDirectories: true)
        for name in names {
            try Data("not a library\n".utf8).write(to: URL(fileURLWithPath: fakes + "/" + name))
        }
        let photos = root + "/photos"
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        for fixture in ["video/h264.mp4", "heif/heic-orientation-6.heic"] {
            try FileManager.default.copyItem(
                atPath: Self.fixtures.appendingPathComponent(fixture).path,
                toPath: photos + "/" + (fixture as NSString).lastPathComponent
            )
        }
        TestImages.write(photos + "/photo.jpg", width: 64, height: 48)

        var environment = ProcessInfo.processInfo.environment
        environment["LD_LIBRARY_PATH"] = fakes
        let out = root + "/out"
        let result = try ThumbsProcess.capture(
            ["run", photos, "--out", out, "--progress", "never", "--max-failures", "2"], environment: environment, timeout: 120
        )
        XCTAssertFalse(result.timedOut, "the run hung")
        XCTAssertFalse(result.signalled, "the run was killed by signal \(result.status); stderr:\n\(result.stderr)")
        XCTAssertEqual(result.status, 0, "two failures are within --max-failures 2; stderr:\n\(result.stderr)")

        let byID = try items(out)
        XCTAssertEqual(byID["photo.jpg"]?["status"] as? String, "ok")

        // dlerror names the file it found: "FAKES/libavutil.so.57: file too short".
        try assertFailed(byID["h264.mp4"], "unsupported", prefix: "cannot make a poster frame of this MP4 file: "
                         + "FFmpeg could not be loaded: \(fakes)/libavutil.so.")
        // Not libvips's "run with --allow-untrusted": ImageMagick's HEIC coder needs libheif too.
        try assertFailed(byID["heic-orientation-6.heic"], "unsupported", prefix: "cannot read this HEIF file: "
                         + "libheif could not be loaded: \(fakes)/libheif.so.1")
    }
}
