import Foundation
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// The wrappers in System/ return the error the system gave, so callers can
/// tell errors apart and quote them; and System/ stays the one home of Glibc.
final class SystemWrapperTests: XCTestCase {
    func testAFailedOpenReturnsItsError() {
        let missing = TestImages.temporaryDirectory() + "/missing/file"
        XCTAssertThrowsError(try FileDescriptor.open(missing, .readOnly)) { error in
            XCTAssertEqual(error as? SystemError, .noEntry)
            XCTAssertEqual((error as? SystemError)?.text, String(cString: strerror(ENOENT)))
        }
    }

    func testWrittenBytesAreReadBack() throws {
        let path = TestImages.temporaryDirectory() + "/file"
        let fd = try FileDescriptor.open(path, .writeOnly, [.create, .exclusive], permissions: 0o600)
        XCTAssertEqual(Array("hello".utf8).withUnsafeBytes { writeAll(fd, $0) }, 0)
        try FileDescriptor.synchronise(fd)
        try FileDescriptor.close(fd)
        XCTAssertThrowsError(try FileDescriptor.open(path, .writeOnly, [.create, .exclusive])) { error in
            XCTAssertEqual(error as? SystemError, .exists)
        }

        let reader = try FileDescriptor.open(path, .readOnly)
        defer { try? FileDescriptor.close(reader) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { try FileDescriptor.read(reader, into: $0.baseAddress!, count: 16) }
        XCTAssertEqual(Array(buffer.prefix(count)), Array("hello".utf8))
        XCTAssertEqual(FileDescriptor.seekToEnd(reader), 5)
    }

    func testFoldersAreMadeRenamedIntoAndRemovedFrom() throws {
        let root = TestImages.temporaryDirectory()
        try PathChanges.makeFolder(root + "/a", permissions: 0o755)
        XCTAssertThrowsError(try PathChanges.makeFolder(root + "/a", permissions: 0o755)) { error in
            XCTAssertEqual(error as? SystemError, .exists)
        }
        FileManager.default.createFile(atPath: root + "/temp", contents: Data("x".utf8))
        let folder = try FileDescriptor.open(root + "/a", .readOnly, .directory)
        defer { try? FileDescriptor.close(folder) }
        try PathChanges.rename(root + "/temp", toName: "final", inFolder: folder)
        XCTAssertEqual(FileManager.default.contents(atPath: root + "/a/final"), Data("x".utf8))
        try PathChanges.remove("final", inFolder: folder)
        XCTAssertThrowsError(try PathChanges.remove("final", inFolder: folder)) { error in
            XCTAssertEqual(error as? SystemError, .noEntry)
        }
        XCTAssertThrowsError(try FileInfo.lookup(root + "/a/final")) { error in
            XCTAssertEqual(error as? SystemError, .noEntry)
        }
    }

    func testASecondExclusiveLockIsRefusedAsWouldBlock() throws {
        let path = TestImages.temporaryDirectory() + "/lock"
        let first = try FileDescriptor.open(path, .readWrite, .create, permissions: 0o644)
        let second = try FileDescriptor.open(path, .readOnly)
        defer {
            try? FileDescriptor.close(first)
            try? FileDescriptor.close(second)
        }
        try FileLock.tryLock(first, exclusive: true)
        XCTAssertThrowsError(try FileLock.tryLock(second, exclusive: false)) { error in
            XCTAssertEqual(error as? SystemError, .wouldBlock)
        }
        FileLock.release(first)
        XCTAssertNoThrow(try FileLock.tryLock(second, exclusive: false))
    }

    func testAProcessThatExistsIsNotGone() {
        XCTAssertFalse(Processes.isGone(Processes.currentID))
    }

    /// Issue 12: every Glibc call of ThumbsKit lives in System/.
    func testOnlySystemImportsGlibc() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/ThumbsKit")
        let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: sources.path))
            .filter { $0.hasSuffix(".swift") }
        XCTAssertGreaterThan(files.count, 50)
        let offenders = try files.filter { !$0.hasPrefix("System/") }.filter { file in
            try String(contentsOfFile: sources.path + "/" + file, encoding: .utf8).contains("import Glibc")
        }
        XCTAssertEqual(offenders, [], "Glibc calls belong behind a wrapper in Sources/ThumbsKit/System/")
    }
}
