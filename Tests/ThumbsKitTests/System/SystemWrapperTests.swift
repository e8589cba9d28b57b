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

    /// Issue 12: every Glibc call of ThumbsKit lives in System/. Checked on
    /// what the compiler made, not on `import` lines (Foundation re-exports
    /// Glibc, so a file can call `memchr` without importing it): no object
    /// file of ThumbsKit outside System/ may leave a C library function
    /// undefined (`nm -u`), except the few the compiler itself emits for
    /// copies and stack checks.
    func testOnlySystemCallsTheCLibrary() throws {
        let sources = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/ThumbsKit").path
        let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: sources)).filter { $0.hasSuffix(".swift") }
        let names = files.map { ($0 as NSString).lastPathComponent }
        XCTAssertEqual(Set(names).count, names.count, "two ThumbsKit files share a name: objects cannot be told apart")
        let system = Set(files.filter { $0.hasPrefix("System/") }.map { ($0 as NSString).lastPathComponent })
        XCTAssertGreaterThan(system.count, 10)

        let objects = Bundle.main.bundleURL.appendingPathComponent("ThumbsKit.build").path
        let outside = names.filter { !system.contains($0) }.map { objects + "/" + $0 + ".o" }
        let missing = outside.filter { !FileManager.default.fileExists(atPath: $0) }
        XCTAssertEqual(missing, [], "no object per source file in \(objects) (a whole-module build?): build the tests in debug")
        guard missing.isEmpty else { return }

        let libc = try Self.cLibraryFunctions()
        XCTAssertGreaterThan(libc.count, 1000, "the C library's functions were not read")
        var offenders: [String: [String]] = [:]
        for line in try Self.output(of: "/usr/bin/nm", ["-u", "-A"] + outside).split(separator: "\n") {
            // "/path/DataLines.swift.o:                 U memchr"
            guard let colon = line.firstIndex(of: ":"), let symbol = line.split(separator: " ").last else { continue }
            let name = String(symbol.split(separator: "@").first ?? symbol)
            guard libc.contains(name), !Self.compilerEmitted.contains(name) else { continue }
            let file = String((String(line[..<colon]) as NSString).lastPathComponent.dropLast(2))
            offenders[file, default: []].append(name)
        }
        XCTAssertEqual(offenders, [:], "C library calls belong behind a wrapper in Sources/ThumbsKit/System/")

        // The compiler's own calls cannot be told from a file's in the
        // objects: for those, the source text outside System/ is checked
        // (a call, not a method such as `HeapMemory.free(…)`).
        let call = try NSRegularExpression(pattern: "(?<![.\\w])(" + Self.compilerEmitted.sorted().joined(separator: "|") + ")\\s*\\(")
        var textual: [String: [String]] = [:]
        for file in files where !file.hasPrefix("System/") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in call.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { textual[file, default: []].append(String(text[range])) }
            }
        }
        XCTAssertEqual(textual, [:], "C library calls belong behind a wrapper in Sources/ThumbsKit/System/")
    }

    /// What LLVM and the Swift compiler call on their own, in any file:
    /// copies, stack checks, and the standard library's inlined allocation
    /// (an array's capacity asks `malloc_usable_size`, generic metadata
    /// `malloc`), and the Synchronization module's inlined `Mutex`, which
    /// waits on a futex through `syscall`.
    static let compilerEmitted: Set<String> = [
        "memcpy", "memmove", "memset", "memcmp", "bcmp", "__stack_chk_fail", "__stack_chk_guard",
        "malloc", "free", "malloc_usable_size", "syscall",
    ]

    /// The functions the C library this process runs with defines.
    static func cLibraryFunctions() throws -> Set<String> {
        // /proc files say they are empty: read to the end, not by their size.
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/maps"))
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        try handle.close()
        let path = try XCTUnwrap(maps.split(separator: "\n").compactMap { line in
            line.split(separator: " ").last.map(String.init)
        }.first { ($0 as NSString).lastPathComponent.hasPrefix("libc.so") }, "libc.so is not mapped in this process")
        var names: Set<String> = []
        for line in try output(of: "/usr/bin/nm", ["-D", "--defined-only", path]).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, ["T", "W", "i"].contains(fields[1]) else { continue }
            names.insert(String(fields[2].split(separator: "@").first ?? fields[2]))
        }
        return names
    }

    static func output(of tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let file = NSTemporaryDirectory() + "nm-\(UUID().uuidString)"
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        XCTAssertEqual(process.terminationStatus, 0, "\(tool) \(arguments.prefix(3).joined(separator: " "))…")
        return try String(contentsOfFile: file, encoding: .utf8)
    }
}
