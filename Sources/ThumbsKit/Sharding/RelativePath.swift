import Foundation

/// Paths as the merge handles them: absolute and lexically normalised (no
/// symbolic links resolved, as a browser resolves a page's relative links),
/// and relative links from one folder to a file.
enum RelativePath {
    /// An absolute, normalised form of `path` (relative to the working folder).
    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The path of `target` relative to the folder `base`; both absolute.
    /// `relative(from: "/data/thumbs", to: "/data/shards/0/256/a.jpg")` is
    /// `../shards/0/256/a.jpg`.
    static func relative(from base: String, to target: String) -> String {
        let from = components(base), to = components(target)
        var common = 0
        while common < from.count && common < to.count && from[common] == to[common] { common += 1 }
        let up = [String](repeating: "..", count: from.count - common)
        let parts = up + to[common...].map(String.init)
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// Whether a manifest's output path is a plain relative path that stays
    /// below its folder: not absolute, no `..`, `.` or empty segments.
    static func isContained(_ path: String) -> Bool {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.utf8.contains(0) else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false)
            .allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    private static func components(_ path: String) -> [Substring] {
        path.split(separator: "/")
    }
}
