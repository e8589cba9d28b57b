import Foundation
import NIOHTTP1

/// A response that was received whole: 2xx, or 304 to a conditional request.
struct TransferResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    /// The URL that answered, after redirects.
    var url: String
    /// Body bytes received.
    var bytes: Int64
    /// The body, for `.memory`.
    var body: Data?
    /// The file holding the body, for `.file`.
    var file: String?
    /// The server declared an image (`Content-Type: image/…`) to a `.memory`
    /// request: the body was not read (a list URL that is one image).
    var declaredImage = false
    /// An observer (`.observed`) wanted no more: the body was not read to
    /// its end.
    var stoppedEarly = false

    var etag: String? { headers.first(name: "etag") }
    var lastModified: String? { headers.first(name: "last-modified") }
    var contentType: String { headers.first(name: "content-type") ?? "" }
}
