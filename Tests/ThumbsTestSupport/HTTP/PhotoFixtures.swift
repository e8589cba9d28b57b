import Foundation
import NIOHTTP1

/// JPEGs made with libvips (TestImages), cached by size, for the test server.
public final class ImageStore: @unchecked Sendable {
    private let lock = NSLock()
    private var cache: [String: [UInt8]] = [:]
    private let folder = TestImages.temporaryDirectory("image-store")

    public init() {}

    public func jpeg(width: Int, height: Int) -> [UInt8] {
        let key = "\(width)x\(height)"
        if let bytes = lock.withLock({ cache[key] }) { return bytes }
        let path = TestImages.write(folder + "/\(key).jpg", width: width, height: height, options: "[Q=80,strip]")
        let bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        lock.withLock { cache[key] = bytes }
        return bytes
    }

    /// A PNG, so that not every image is the same format.
    public func png(width: Int, height: Int) -> [UInt8] {
        let path = TestImages.write(folder + "/\(width)x\(height)-\(UUID().uuidString.prefix(4)).png", width: width, height: height)
        return [UInt8](FileManager.default.contents(atPath: path)!)
    }
}

/// A Lorem Picsum look-alike: `/v2/list?page=&limit=` with Link pagination
/// and `/id/{id}/{w}/{h}` images.
///
/// Like picsum.photos it advertises `rel="next"` on every page, the last one
/// included, and answers a page past the end with `[]`; `clampPastEnd`
/// instead repeats the last page, as some APIs do.
public struct PicsumFixture: Sendable {
    public var total: Int
    public var clampPastEnd: Bool
    public let images: ImageStore

    public init(total: Int, clampPastEnd: Bool = false, images: ImageStore) {
        self.total = total
        self.clampPastEnd = clampPastEnd
        self.images = images
    }

    /// Size of photo `id`: a mix of landscape, portrait and square, each
    /// its own size (so no two photos share their bytes).
    public static func size(of id: Int) -> (width: Int, height: Int) {
        switch id % 3 {
        case 0: (96 + id, 64)
        case 1: (64, 96 + id)
        default: (80 + id, 80 + id)
        }
    }

    public func respond(_ request: TestRequest, base: String) -> TestResponse? {
        if request.path == "/v2/list" {
            let limit = Int(request.query["limit"] ?? "") ?? 30
            var page = Int(request.query["page"] ?? "") ?? 1
            let pages = max(1, (total + limit - 1) / limit)
            if clampPastEnd { page = min(page, pages) }
            let first = max(0, (page - 1) * limit)
            let ids = first < total ? Array(first..<min(total, page * limit)) : []
            let entries = ids.map { id -> String in
                let (w, h) = Self.size(of: id)
                return """
                    {"id":"\(id)","author":"Author \(id % 4)","width":\(w * 10),"height":\(h * 10),\
                    "url":"https://unsplash.com/photos/p\(id)","download_url":"\(base)/id/\(id)/\(w)/\(h)"}
                    """
            }
            var links = ["<\(base)/v2/list?page=\(page + 1)&limit=\(limit)>; rel=\"next\""]
            if page > 1 { links.append("<\(base)/v2/list?page=\(page - 1)&limit=\(limit)>; rel=\"prev\"") }
            return .json("[" + entries.joined(separator: ",") + "]", headers: [("Link", links.joined(separator: ", "))])
        }
        let parts = request.path.split(separator: "/")
        if parts.count == 4, parts[0] == "id", let w = Int(parts[2]), let h = Int(parts[3]) {
            return .image(images.jpeg(width: w, height: h))
        }
        return nil
    }
}

/// Unsplash-style photo objects under `results`, with nested `urls`, `user`
/// and `links`, served at `/unsplash/search` with images at `/unsplash/img/`.
public struct UnsplashFixture: Sendable {
    public let images: ImageStore

    public init(images: ImageStore) {
        self.images = images
    }

    public static let likes = [10, 20, 30, 40]
    public static let downloads = [100, 200, 300, 400]

    public func respond(_ request: TestRequest, base: String) -> TestResponse? {
        if request.path == "/unsplash/search" {
            let photos = (0..<4).map { i in
                """
                {"id":"u\(i)","width":\(3000 + i),"height":2000,"color":"#aabbcc","likes":\(Self.likes[i]),
                 "downloads":\(Self.downloads[i]),"description":null,
                 "urls":{"raw":"\(base)/unsplash/img/raw/\(i)","full":"\(base)/unsplash/img/full/\(i)",
                         "regular":"\(base)/unsplash/img/regular/\(i)","small":"\(base)/unsplash/img/small/\(i)",
                         "thumb":"\(base)/unsplash/img/thumb/\(i)"},
                 "links":{"html":"https://unsplash.com/photos/u\(i)"},
                 "user":{"id":"user\(i)","name":"Photographer \(i)","profile_image":{"small":"x"}}}
                """
            }
            return .json("{\"total\":4,\"total_pages\":1,\"results\":[" + photos.joined(separator: ",") + "]}")
        }
        if request.path.hasPrefix("/unsplash/img/") {
            return .image(images.jpeg(width: 90, height: 60))
        }
        return nil
    }
}

/// Every regular file below `root`, as paths relative to it.
public func filesBelow(_ root: String) -> [String] {
    var found: [String] = []
    guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
    while let path = walker.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
            found.append(path)
        }
    }
    return found.sorted()
}
