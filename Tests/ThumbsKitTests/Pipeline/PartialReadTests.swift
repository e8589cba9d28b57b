import CThumbsTestShim
import Foundation
import Synchronization
import ThumbsTestSupport
import XCTest
@testable import ThumbsKit

/// What is read is what is hashed (issue 35 §2): a camera JPEG whose
/// embedded preview serves is read only there, and its record says so
/// (`read`, no `sha256`); `--whole-files` reads it whole; two partly read
/// sources are duplicates when their sizes and every byte read are equal;
/// a motion photo's appended video is never read.
///
/// The camera JPEG: a 1200 x 800 photo of noise (about 1.5 MB, so that the
/// preview leaves out far more than `ItemProcessor.wholeReadBelow`), its
/// APP1 saying NIKON firmware wrote it at 1200 x 800, its maker note holding
/// a solid blue 600 x 400 preview, which covers a 256 box at 1/2.
final class PartialReadTests: TemporaryFolderTestCase {
    typealias B = EmbeddedPictureBytes

    /// A JPEG of `width` x `height` written from `rgb`.
    private func jpeg(_ name: String, rgb: [UInt8], width: Int, height: Int, options: String) throws -> [UInt8] {
        let path = root + "/made-" + name
        XCTAssertEqual(rgb.withUnsafeBufferPointer { test_write_rgb8(path + options, $0.baseAddress, Int32(width), Int32(height)) }, 0)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `brokenPreview`: the preview's scan bytes after its header replaced
    /// by 0xFF fill, its frame intact: it is planned, then declines.
    private func cameraJPEGBytes(seed: UInt64 = 1, brokenPreview: Bool = false) throws -> [UInt8] {
        var blue = [UInt8](repeating: 0, count: 600 * 400 * 3)
        for i in stride(from: 2, to: blue.count, by: 3) { blue[i] = 255 }
        var preview = try jpeg("preview.jpg", rgb: blue, width: 600, height: 400, options: "[Q=90,strip]")
        if brokenPreview {
            let sos = try XCTUnwrap((0..<preview.count - 1).first { preview[$0] == 0xFF && preview[$0 + 1] == 0xDA })
            for i in sos + 20..<preview.count - 2 { preview[i] = 0xFF }
        }
        var random = SplitMix64(state: seed)
        let noise = (0..<1200 * 800 * 3).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let photo = try jpeg("photo-\(seed).jpg", rgb: noise, width: 1200, height: 800, options: "[Q=90,strip]")
        var facts = B.ExifFacts()
        facts.pixel = (1200, 800)
        return B.exifJPEG(facts, note: B.nikonNote(preview: preview), main: photo)
    }

    @discardableResult
    private func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = root + "/in/" + name
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    private func run(_ out: String = "out", wholeFiles: Bool = false) async throws -> Manifest {
        _ = try await runThumbs([root + "/in"], out: root + "/" + out) { options in
            options.size([256])
            options.wholeFiles = wholeFiles
        }
        return try readManifest(root + "/" + out)
    }

    private func statistics(_ out: String = "out") throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/" + out + "/stats.json"))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func output(_ out: String, _ item: ManifestItem) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: root + "/" + out + "/" + XCTUnwrap(item.outputs.first).path))
    }

    /// The preview serves: the item has `read` (partial, bytes well under
    /// its size) and no sha256. With `--whole-files` the same file gets its
    /// sha256, no `read`, and the same thumbnail's bytes.
    func testAPreviewServedJPEGIsReadInPartAndWholeFilesReadsItAll() async throws {
        let bytes = try cameraJPEGBytes()
        try write(bytes, "camera.jpg")
        let first = try await run()
        let item = try XCTUnwrap(first.item("camera.jpg"))
        XCTAssertEqual(item.status, .ok)
        XCTAssertNil(item.sha256, "only part of the file was read")
        let read = try XCTUnwrap(item.read)
        XCTAssertEqual(read.partial, true)
        XCTAssertEqual(item.bytes, Int64(bytes.count))
        XCTAssertLessThan(read.bytes, Int64(bytes.count) / 4, "the preview and the header, not the photo")
        XCTAssertGreaterThanOrEqual(read.bytes, Int64(SourceFile.prefixLength))

        let wholeRun = try await run("whole", wholeFiles: true)
        let whole = try XCTUnwrap(wholeRun.item("camera.jpg"))
        XCTAssertEqual(whole.sha256, bytes.withUnsafeBytes { SHA256Hex.of($0) })
        XCTAssertNil(whole.read)
        XCTAssertEqual(try output("whole", whole), try output("out", item), "the same thumbnail either way")
    }

    /// A made DNG (2400 x 1600 of sensor data, 7.7 MB, and a 600 x 400
    /// JPEG preview): its preview serves, so it is read in part like a
    /// camera JPEG; `--whole-files` gives its sha256 and the same thumbnail.
    /// (LibRaw reads the RAW's directories through the descriptor itself:
    /// those reads are neither counted in `read.bytes` nor hashed.)
    func testARawServedByItsPreviewIsReadInPart() async throws {
        let preview = TestDNG.jpegPreview(root, name: "preview", width: 600, height: 400)
        let bytes = TestDNG.make(width: 2400, height: 1600, previews: [preview]).bytes
        try write(bytes, "shot.dng")
        let partly = try await run()
        let item = try XCTUnwrap(partly.item("shot.dng"))
        XCTAssertEqual(item.status, .ok)
        XCTAssertNil(item.sha256)
        XCTAssertEqual(item.read?.partial, true)
        XCTAssertLessThan(try XCTUnwrap(item.read?.bytes), Int64(bytes.count) / 10)

        let wholeRun = try await run("whole", wholeFiles: true)
        let whole = try XCTUnwrap(wholeRun.item("shot.dng"))
        XCTAssertEqual(whole.sha256, bytes.withUnsafeBytes { SHA256Hex.of($0) })
        XCTAssertNil(whole.read)
        XCTAssertEqual(try output("whole", whole), try output("out", item), "the same thumbnail either way")
    }

    /// A preview that is planned but does not decode: the photo's own entry
    /// decodes the file, reading all of it, so the item is hashed whole
    /// after all and gets its sha256 (no `read`): a record never claims less
    /// than was read. A copy of it is its duplicate, by that sha256.
    func testADeclinedPreviewGivesTheWholeFilesSha256() async throws {
        let bytes = try cameraJPEGBytes(brokenPreview: true)
        try write(bytes, "a.jpg")
        try write(bytes, "b.jpg")
        let manifest = try await run()
        let a = try XCTUnwrap(manifest.item("a.jpg")), b = try XCTUnwrap(manifest.item("b.jpg"))
        XCTAssertEqual(a.status, .ok)
        XCTAssertEqual(a.sha256, bytes.withUnsafeBytes { SHA256Hex.of($0) })
        XCTAssertNil(a.read)
        XCTAssertEqual(b.status, .duplicate)
        XCTAssertEqual(b.duplicateOf, "a.jpg")
        XCTAssertEqual(b.sha256, a.sha256)
    }

    /// Two copies of one camera JPEG: the second in source order is the
    /// first's duplicate, found by the digest of what each read.
    func testTwoCopiesOfACameraJPEGAreDuplicates() async throws {
        let bytes = try cameraJPEGBytes()
        try write(bytes, "a.jpg")
        try write(bytes, "b.jpg")
        let manifest = try await run()
        let a = try XCTUnwrap(manifest.item("a.jpg")), b = try XCTUnwrap(manifest.item("b.jpg"))
        XCTAssertEqual(a.status, .ok)
        XCTAssertEqual(b.status, .duplicate)
        XCTAssertEqual(b.duplicateOf, "a.jpg")
        XCTAssertEqual(b.read, a.read)
        XCTAssertNil(b.sha256)
    }

    /// Two files of the same size whose read bytes (header, preview) are
    /// equal but whose photos differ in bytes never read: duplicates. That
    /// IS the rule (PRODUCT.md: sources read in part are identical when
    /// their whole sizes and every byte read are equal): the thumbnail is
    /// made from those bytes alone, so it is the same. `--whole-files` is
    /// for the archive that must tell them apart.
    func testSameSizeAndSameBytesReadAreDuplicatesEvenWhenThePhotosDiffer() async throws {
        let bytes = try cameraJPEGBytes()
        var changed = bytes
        // A byte of the photo's scan, well past what is read: not 0xFF, not
        // after one (no marker made or broken), and not turned into 0xFF.
        var at = bytes.count * 3 / 4
        while bytes[at] == 0xFF || bytes[at - 1] == 0xFF || bytes[at] == 0xFE { at += 1 }
        changed[at] ^= 0x01
        try write(bytes, "a.jpg")
        try write(changed, "b.jpg")
        let manifest = try await run()
        XCTAssertEqual(manifest.item("b.jpg")?.status, .duplicate)
        XCTAssertEqual(manifest.item("b.jpg")?.duplicateOf, "a.jpg")

        let whole = try await run("whole", wholeFiles: true)
        XCTAssertEqual(whole.item("b.jpg")?.status, .ok, "read whole, the bytes differ")
        XCTAssertNotEqual(whole.item("a.jpg")?.sha256, whole.item("b.jpg")?.sha256)
    }

    /// The same bytes read, but one file is longer (zeros before its last
    /// two bytes, the EOI, which are read in both): not duplicates, since
    /// the sizes differ.
    func testSameBytesReadButDifferentSizesAreNotDuplicates() async throws {
        let bytes = try cameraJPEGBytes()
        XCTAssertEqual(Array(bytes.suffix(2)), [0xFF, 0xD9])
        try write(bytes, "a.jpg")
        try write(Array(bytes.dropLast(2)) + [UInt8](repeating: 0, count: 1000) + [0xFF, 0xD9], "b.jpg")
        let manifest = try await run()
        let a = try XCTUnwrap(manifest.item("a.jpg")), b = try XCTUnwrap(manifest.item("b.jpg"))
        XCTAssertEqual(a.read?.partial, true)
        XCTAssertEqual(a.read?.bytes, b.read?.bytes, "as many bytes were read, the same")
        XCTAssertNotEqual(a.read?.digest, b.read?.digest, "the whole size is in the digest")
        XCTAssertEqual(b.status, .ok)
        XCTAssertNil(b.duplicateOf)
    }

    /// The digest of a partly read file covers its size and the bytes read
    /// in their places, and is never the SHA-256 of a file: equal for two
    /// files of one size that differ only outside the ranges, different for
    /// files that differ in size only, and not the file's SHA-256 even when
    /// the ranges cover every byte.
    func testThePartialDigestIsOfTheSizeAndTheBytesRead() throws {
        var random = SplitMix64(state: 7)
        let base = (0..<(1 << 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        var changed = base
        changed[900_000] ^= 0xFF
        let a = try write(base, "a.bin"), b = try write(changed, "b.bin"), c = try write(base + [0], "c.bin")
        let ranges = ReadRanges([0..<SourceFile.prefixLength, 500_000..<600_000])
        func digest(_ path: String, _ ranges: ReadRanges) throws -> SourceBytes {
            try SourceBytes(hashing: SourceFile(path: path), ranges: ranges, interrupt: nil)
        }
        XCTAssertEqual(try digest(a, ranges).key, try digest(b, ranges).key, "they differ only where nothing was read")
        XCTAssertNotEqual(try digest(a, ranges).key, try digest(c, ranges).key, "the same bytes read, another size")
        XCTAssertNotEqual(try digest(a, ReadRanges([0..<300_000])).key, try digest(a, ReadRanges([0..<300_001])).key)
        let whole = try SourceBytes(path: a)
        let all = try digest(a, ReadRanges([0..<base.count]))
        XCTAssertEqual(whole.digest.hex, base.withUnsafeBytes { SHA256Hex.of($0) })
        XCTAssertNotEqual(all.digest, whole.digest, "a partial digest is never a file's sha256")
        XCTAssertNotEqual(all.key.key, whole.key.key)
        XCTAssertEqual(all.bytesRead, base.count)
    }

    /// A motion photo (a JPEG with 8 MB of video appended): the DC path
    /// reads the JPEG, so the item is partly read, and not one byte of the
    /// video is read, as `SourceFile` reports each of its reads.
    func testAMotionPhotosVideoIsNeverRead() async throws {
        let photo = TestImages.write(root + "/photo.jpg", width: 1600, height: 1200, options: "[Q=90,strip]")
        let jpegBytes = try Data(contentsOf: URL(fileURLWithPath: photo))
        var motion = jpegBytes
        motion.append(contentsOf: [0, 0, 0, 0x18] + Array("ftypmp42".utf8))
        motion.append(Data(repeating: 0x5A, count: 8 << 20))
        let path = try write(Array(motion), "PXL_MP.jpg")

        let seen = Mutex(ReadRanges())
        let hook = SourceReadHook(reads: { read, range in
            if read == path { seen.withLock { $0.insert(range) } }
        })
        let item = try await SourceReadHook.$current.withValue(hook) { try await run().item("PXL_MP.jpg") }
        XCTAssertEqual(item?.status, .ok)
        XCTAssertNil(item?.sha256)
        XCTAssertEqual(item?.read?.partial, true)
        XCTAssertEqual(item?.bytes, Int64(motion.count))
        let read = seen.withLock { $0 }
        // What is read is what is hashed: every byte thumbs read of it.
        XCTAssertEqual(item?.read?.bytes, Int64(read.count))
        XCTAssertGreaterThanOrEqual(read.count, jpegBytes.count, "the JPEG's bytes, all of them")
        // Of the video, only the tail of `JPEGExtent`'s one scan chunk past
        // the EOI (it reads 256 KiB at a time) and the file's last two bytes
        // (does it end in EOI?) are read: not its 8 MB.
        let video = ReadRanges(read.ranges.map { max($0.lowerBound, jpegBytes.count)..<max($0.upperBound, jpegBytes.count) })
        XCTAssertLessThanOrEqual(video.count, JPEGExtent.scanChunk + 2, "the video is not read")
    }

    /// stats.json's `read`: the bytes read of file sources, the partly read
    /// ones, and the bytes they left unread; a re-run (every item
    /// unchanged) gives the same figures.
    func testStatisticsCountTheBytesReadAndAReRunKeepsThem() async throws {
        let camera = try cameraJPEGBytes()
        try write(camera, "camera.jpg")
        let plain = try Data(contentsOf: URL(fileURLWithPath: TestImages.write(root + "/plain.png", width: 300, height: 200)))
        try write(Array(plain), "plain.png")
        let manifest = try await run()
        let read = try XCTUnwrap(manifest.item("camera.jpg")?.read)
        var stats = try XCTUnwrap(try statistics()["read"] as? [String: Any])
        XCTAssertEqual(stats["partial"] as? Int, 1)
        XCTAssertEqual((stats["bytes"] as? NSNumber)?.int64Value, read.bytes + Int64(plain.count))
        XCTAssertEqual((stats["bytesSaved"] as? NSNumber)?.int64Value, Int64(camera.count) - read.bytes)

        let again = try await run()
        XCTAssertEqual(again.item("camera.jpg")?.status, .unchanged)
        XCTAssertEqual(again.item("camera.jpg")?.read, read)
        XCTAssertNil(again.item("camera.jpg")?.sha256)
        let first = stats
        stats = try XCTUnwrap(try statistics()["read"] as? [String: Any])
        XCTAssertEqual(NSDictionary(dictionary: stats), NSDictionary(dictionary: first))

        // `thumbs stats`, the report and `thumbs verify` say the same, next to downloads.
        let table = StatisticsTable(Statistics(manifest: again)).render()
        XCTAssertTrue(table.contains("bytes saved"), table)
        XCTAssertTrue(table.contains(StatisticsTable.bytes(Int64(camera.count) - read.bytes)), table)
        let report = try String(contentsOfFile: root + "/out/report.html", encoding: .utf8)
        let saved = ReportFormat.bytes(Int64(camera.count) - read.bytes)
        XCTAssertTrue(report.contains("\(saved) saved by 1 partly read file"), "the report's Read fact")
        let verified = try ManifestVerifier(manifestPath: root + "/out/manifest.json").run()
        XCTAssertEqual(verified.findings, [])
        XCTAssertEqual(verified.read?.bytes, read.bytes + Int64(plain.count))
        XCTAssertEqual(verified.read?.of, Int64(camera.count + plain.count))
        XCTAssertEqual(verified.read?.partial, 1)
        XCTAssertNil(verified.download)
        XCTAssertTrue(verified.summary.hasSuffix(" (1 in part)"), verified.summary)
    }

    /// Copies of a partly read camera JPEG in different shards: the merge
    /// finds them identical by `read.digest` (there is no sha256), as one
    /// run does, and the first in source order leads.
    func testAMergeFindsPartlyReadCopiesAcrossShardsByTheirDigest() async throws {
        let bytes = try cameraJPEGBytes()
        try write(bytes, "camera.jpg")
        let home = ShardPartition.shard(of: "camera.jpg", count: 2)
        let copyID = try XCTUnwrap((1...50).lazy.map { "copy-\($0).jpg" }.first { ShardPartition.shard(of: $0, count: 2) != home })
        try write(bytes, copyID)
        let single = try await run("single")
        let leader = try XCTUnwrap(single.item("camera.jpg"))
        let digest = try XCTUnwrap(leader.read?.digest, "a partly read item carries the digest of what was read")
        XCTAssertNil(leader.sha256)
        XCTAssertEqual(single.item(copyID)?.status, .duplicate)
        XCTAssertEqual(single.item(copyID)?.read?.digest, digest)

        var outs: [String] = []
        for index in 0..<2 {
            let out = root + "/shard-\(index)"
            _ = try await runThumbs([root + "/in"], out: out) { options in
                options.size([256])
                options.shard = Shard(index: index, count: 2)
            }
            outs.append(out)
        }
        for out in outs { XCTAssertEqual(try readManifest(out).items.filter { $0.status == .duplicate }.count, 0, "alone in its shard") }
        _ = try ThumbsMerge(manifests: outs.map { $0 + "/manifest.json" }, outputDirectory: root + "/merged").run()
        let merged = try readManifest(root + "/merged")
        XCTAssertEqual(merged.item("camera.jpg")?.status, .ok)
        XCTAssertEqual(merged.item(copyID)?.status, .duplicate, "identical by what was read, across shards")
        XCTAssertEqual(merged.item(copyID)?.duplicateOf, "camera.jpg")
        XCTAssertEqual(merged.item(copyID)?.read?.digest, digest, "the merge keeps read.digest")
    }

    /// A camera JPEG whose preview serves and that does not end in EOI
    /// (trailing data, as the Panasonic LX7 writes): the photo is not
    /// scanned for its EOI, since only a plan that decodes the photo needs
    /// its length. Before, the preview's planning read the whole photo.
    func testAPreviewServedJPEGWithTrailingBytesIsNotScannedForItsEnd() async throws {
        var bytes = try cameraJPEGBytes()
        let photo = bytes.count
        bytes += [UInt8](repeating: 0x00, count: 300_000)
        try write(bytes, "lx7.jpg")
        let manifest = try await run()
        let item = try XCTUnwrap(manifest.item("lx7.jpg"))
        XCTAssertEqual(item.status, .ok)
        XCTAssertEqual(item.read?.partial, true, "the preview served")
        let read = try XCTUnwrap(item.read?.bytes)
        XCTAssertLessThan(read, Int64(photo / 4), "the preview and the header, not the \(photo) bytes of the photo")
    }
}
