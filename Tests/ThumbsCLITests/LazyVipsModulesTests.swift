import Foundation
import ThumbsTestSupport
import XCTest

/// libvips' loadable modules (HEIF, JPEG XL, ImageMagick, PDF, OpenSlide)
/// are opened by the first image that needs one, not at start-up
/// (`vips_modules.c`): a run over JPEGs never opens them, a BMP (read only
/// by ImageMagick, through vips-magick) opens them and is still blocked as
/// untrusted. glibc's loader names every object it opens on stderr under
/// `LD_DEBUG=files`.
final class LazyVipsModulesTests: TemporaryFolderTestCase {
    private func run(_ folder: String, out: String, _ extra: [String] = [], modules: String? = nil) throws -> ThumbsProcess.Result {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        environment.removeValue(forKey: "VIPSHOME")
        environment["THUMBS_VIPS_MODULES"] = modules
        return try ThumbsProcess.capture(["run", folder, "--out", out, "--progress", "never"] + extra, environment: environment)
    }

    private func openedModules(_ result: ThumbsProcess.Result) -> Bool {
        result.stderr.split(whereSeparator: \.isNewline).contains { $0.contains("file=") && $0.contains("/vips-modules-") }
    }

    func testARunOverJPEGsOpensNoModule() throws {
        try ThumbsProcess.requireExecutable()
        TestImages.write(root + "/jpeg/a.jpg", width: 64, height: 48)
        let lazy = try run(root + "/jpeg", out: root + "/lazy")
        XCTAssertEqual(lazy.status, 0)
        XCTAssertFalse(openedModules(lazy), "a JPEG run opened libvips' modules")
        // The check sees modules when they are opened: at start-up on request.
        let eager = try run(root + "/jpeg", out: root + "/eager", modules: "eager")
        XCTAssertEqual(eager.status, 0)
        XCTAssertTrue(openedModules(eager), "THUMBS_VIPS_MODULES=eager opened no module")
    }

    func testAnImageOnlyAModuleReadsOpensThemAndStaysUntrusted() throws {
        try ThumbsProcess.requireExecutable()
        try FileManager.default.createDirectory(atPath: root + "/bmp", withIntermediateDirectories: true)
        try Data(TestImages.bmp(width: 40, height: 30)).write(to: URL(fileURLWithPath: root + "/bmp/everyday.bmp"))
        let blocked = try run(root + "/bmp", out: root + "/blocked")
        XCTAssertEqual(blocked.status, 1)
        XCTAssertTrue(openedModules(blocked), "a BMP did not open libvips' modules")
        XCTAssertTrue(blocked.stderr.contains("run with --allow-untrusted"), blocked.stderr)
        let allowed = try run(root + "/bmp", out: root + "/allowed", ["--allow-untrusted"])
        XCTAssertEqual(allowed.status, 0, allowed.stdout)
    }
}
