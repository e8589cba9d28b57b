import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// ExifTool's RAW containers (Tests/Fixtures/raw): real cameras' files with
/// their image data stripped. Each is recognised by content as its kind,
/// and is one failed item with a message naming it, never a crash, never a
/// picture made of whatever lies past the file's end.
final class RawFixtureTests: TemporaryFolderTestCase {
    static let fixtures = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/raw").path

    static let kinds = [
        "CanonRaw.cr2": "cr2", "CanonRaw.cr3": "cr3", "CanonRaw.crw": "crw", "DNG.dng": "dng", "FujiFilm.raf": "raf",
        "Minolta.mrw": "mrw", "Nikon.nef": "nef", "Panasonic.rw2": "rw2", "PhaseOne.iiq": "iiq", "Sigma.x3f": "x3f",
    ]

    func testEachContainerIsRecognisedByContent() throws {
        for (name, kind) in Self.kinds {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/" + name)))
            XCTAssertEqual(bytes.withUnsafeBytes { RawSniffer.format(in: $0) }, kind, name)
            // Renamed to something that is not an image name: still found by content.
            XCTAssertEqual(RawSniffer.format(read: { offset, count in
                offset < bytes.count ? Array(bytes[offset..<min(bytes.count, offset + count)]) : []
            }), kind, name)
        }
    }

    func testStrippedContainersFailCleanlyOneItemEach() async throws {
        let source = root + "/in"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        for name in Self.kinds.keys {
            // Content decides: the copies have no RAW extension.
            try FileManager.default.copyItem(atPath: Self.fixtures + "/" + name, toPath: source + "/" + name + ".bin")
        }
        let outcome = try await runThumbs([source], out: root + "/out") { $0.maxFailures = .count(100) }
        let manifest = try readManifest(root + "/out")
        XCTAssertEqual(manifest.items.count, Self.kinds.count)
        for (name, kind) in Self.kinds {
            let item = try XCTUnwrap(manifest.item(name + ".bin"))
            XCTAssertEqual(item.status, .failed, name)
            XCTAssertEqual(item.outputs, [], name)
            XCTAssertEqual(item.format, kind, "a failed RAW still says what it is: \(name)")
            let message = item.error?.message ?? ""
            XCTAssertTrue(message.contains(kind.uppercased()), "\(name): \(message)")
            XCTAssertTrue(message.contains("LibRaw") || message.contains("sensor data"), "\(name): \(message)")
        }
        XCTAssertEqual(outcome.statistics?.decoders.values.values.reduce(0, +), 0)
    }
}
