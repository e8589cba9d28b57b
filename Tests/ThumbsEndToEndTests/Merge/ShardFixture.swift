import Foundation
import ThumbsTestSupport
@testable import ThumbsKit

/// Folders of small generated images for the shard and merge tests.
enum ShardFixture {
    /// 20 images whose names exercise the walk order (nested folders next to
    /// files of the same stem, upper case, digits, spaces, non-ASCII), two
    /// outputs that collide by name (a.jpg, a.png), one broken image, one pair
    /// of identical files that land in different shards of 4, plus a file
    /// that is ignored and a hidden one. Returns the id of the copy.
    @discardableResult
    static func makeFolder(_ root: String) throws -> String {
        let images: [(String, Int, Int)] = [
            ("a.jpg", 64, 48), ("a.png", 40, 40), ("a/b.jpg", 50, 30), ("a-b.png", 30, 50),
            ("a_c.webp", 72, 40), ("B.jpg", 36, 60), ("b/c/d.jpg", 44, 44), ("10.jpg", 80, 20),
            ("9.jpg", 20, 80), ("with space.jpg", 48, 36), ("é.jpg", 60, 45), ("z.jpg", 33, 66),
            ("z/a.png", 66, 33), ("z/y/x.jpg", 90, 60), ("m/n.tif", 52, 39), ("portrait.jpg", 30, 60),
            ("square.png", 50, 50), ("nested/deep/one.webp", 70, 35),
        ]
        for (name, width, height) in images {
            TestImages.write(root + "/" + name, width: width, height: height)
        }
        try Data("not an image at all".utf8).write(to: URL(fileURLWithPath: root + "/broken.jpg"))
        try Data("# notes\n".utf8).write(to: URL(fileURLWithPath: root + "/notes.md"))
        TestImages.write(root + "/.hidden.jpg", width: 20, height: 20)
        // The copy of a.jpg goes to a name in another shard than a.jpg, so
        // the merge has to find the duplicate across shards.
        let home = ShardPartition.shard(of: "a.jpg", count: 4)
        let copyID = (1...50).lazy.map { "zz/copy-\($0)-of-a.jpg" }.first { ShardPartition.shard(of: $0, count: 4) != home }!
        try FileManager.default.createDirectory(atPath: root + "/zz", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: root + "/a.jpg", toPath: root + "/" + copyID)
        return copyID
    }

    /// A handful of images, for the refusal tests.
    static func makeSmallFolder(_ root: String) {
        for (index, name) in ["one.jpg", "two.jpg", "three.png", "sub/four.jpg", "sub/five.webp", "six.jpg"].enumerated() {
            TestImages.write(root + "/" + name, width: 24 + index * 6, height: 30)
        }
    }

    /// Runs shard i/N of `sources` into `root/shard-i` for every i.
    static func runShards(
        _ sources: [String], count: Int, into root: String, configure: (inout RunOptions) -> Void = { _ in }
    ) async throws -> [String] {
        var outs: [String] = []
        for index in 0..<count {
            let out = root + "/shard-\(index)"
            _ = try await runThumbs(sources, out: out) { options in
                options.shard = Shard(index: index, count: count)
                options.maxFailures = .count(100)
                configure(&options)
            }
            outs.append(out)
        }
        return outs
    }

    static func sha256(ofFile path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SHA256Hex.of(data)
    }
}
