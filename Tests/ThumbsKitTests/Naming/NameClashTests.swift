import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// Issue 14, point 5: a file and a folder that want the same name in a size
/// folder (`a.png` → `256/a.jpg`, and `a.jpg/b.jpg` → `256/a.jpg/b.jpg`)
/// get distinct names chosen by the namer, the same on every run, instead of
/// one of them failing at random.
final class NameClashTests: XCTestCase {
    /// No output file of one name is a folder on the path of another.
    func assertNoFileIsAFolder(_ names: [String], file: StaticString = #filePath, line: UInt = #line) {
        var folders = Set<String>()
        for name in names {
            let segments = name.split(separator: "/")
            for end in segments.indices.dropLast() {
                folders.insert(segments[...end].joined(separator: "/").lowercased())
            }
        }
        for name in names {
            for ext in OutputNamer.outputExtensions where folders.contains((name + "." + ext).lowercased()) {
                XCTFail("\(name).\(ext) is both a file and a folder in \(names)", file: file, line: line)
            }
        }
        XCTAssertEqual(Set(names.map { $0.lowercased() }).count, names.count, "\(names)", file: file, line: line)
    }

    func testFileAfterAFolderOfItsOutputNameGivesWay() {
        let names = OutputNamer.assign(stems: ["a.jpg/b", "a"], extensions: ["jpg", "png"])
        XCTAssertEqual(names, ["a.jpg/b", "a_png"])
        assertNoFileIsAFolder(names)
    }

    func testFolderAfterAFileOfItsNameIsRenamedForAllItsItems() {
        let names = OutputNamer.assign(stems: ["a", "a.jpg/b", "a.jpg/c", "a.jpg/d/e", "x"], extensions: ["png", "jpg", "jpg", "jpg", "jpg"])
        XCTAssertEqual(names, ["a", "a.jpg_dir/b", "a.jpg_dir/c", "a.jpg_dir/d/e", "x"])
        assertNoFileIsAFolder(names)
    }

    func testEveryOutputExtensionAndCaseClash() {
        // Whatever --format the run uses, and on a case-insensitive disk too.
        for folder in ["a.webp", "A.PNG", "a.avif", "A.jpg"] {
            let names = OutputNamer.assign(stems: ["a", folder + "/b"], extensions: ["png", "jpg"])
            XCTAssertNotEqual(names[1], folder + "/b")
            assertNoFileIsAFolder(names)
        }
        // A folder with another extension is no clash and keeps its name.
        XCTAssertEqual(OutputNamer.assign(stems: ["a", "a.gif/b"], extensions: ["png", "jpg"]), ["a", "a.gif/b"])
    }

    func testRenamedFoldersNeverMeetAFile() {
        let stems = ["a", "a.jpg_dir", "a.jpg/b", "a.jpg_dir.jpg/c"]
        let names = OutputNamer.assign(stems: stems, extensions: ["png", "png", "jpg", "jpg"])
        assertNoFileIsAFolder(names)
        XCTAssertEqual(names, ["a", "a.jpg_dir", "a.jpg_dir/b", "a.jpg_dir.jpg_dir/c"])
    }

    func testListIdsOfAFileAndAFolder() throws {
        let entries = ["a", "a.jpg/b", "a.jpg/c", "photos/x", "photos/x.webp/y"].map { id in
            SourceItem(id: id, source: "https://example.com/\(id)", origin: .remote(url: "https://example.com/\(id)", meta: .empty))
        }
        let names = try SourceFinaliser.finalised(entries).map(\.outputName)
        assertNoFileIsAFolder(names)
        // Pinned names: the same in every process and on every machine.
        XCTAssertEqual(names, ["a", "a.jpg_dir/b", "a.jpg_dir/c", "photos/x", "photos/x.webp_dir/y"])
        // The other order: the folders come first, the files give way.
        let reversed = try SourceFinaliser.finalised(Array(entries.reversed())).map(\.outputName)
        assertNoFileIsAFolder(reversed)
        XCTAssertEqual(reversed, ["photos/x.webp/y", "photos/x_2", "a.jpg/c", "a.jpg/b", "a_2"])
    }
}
