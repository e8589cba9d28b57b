import Foundation
@testable import ThumbsKit
#if canImport(Glibc)
import Glibc
#endif

/// Everything in a folder tree, to prove that a run left it alone: every
/// entry's relative path and kind, file contents, link targets. Links are
/// recorded, not followed.
struct FolderSnapshot: Equatable, CustomStringConvertible {
    var entries: [String: String] = [:]

    init(_ root: String) {
        walk(root, relative: "")
    }

    private mutating func walk(_ path: String, relative: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) ?? "?"
            entries[relative] = "link → " + target
        case S_IFDIR:
            entries[relative] = "folder"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            for name in names.sorted() {
                walk(path + "/" + name, relative: relative.isEmpty ? name : relative + "/" + name)
            }
        case S_IFREG:
            let data = FileManager.default.contents(atPath: path) ?? Data()
            entries[relative] = "file \(data.count) bytes, mtime \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec), "
                + SHA256Hex.of(data)
        default:
            entries[relative] = "special"
        }
    }

    var description: String {
        entries.keys.sorted().map { "\($0): \(entries[$0]!)" }.joined(separator: "\n")
    }
}
