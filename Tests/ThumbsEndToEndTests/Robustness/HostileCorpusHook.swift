import Foundation
import ThumbsTestSupport
#if canImport(Glibc)
import Glibc
#endif
@testable import ThumbsKit

extension HostileCorpus {
    /// The `SourceReadHook` the corpus needs in `dir`: deletes `vanishing`
    /// just before it is opened, truncates `shrinking` once it is open.
    static func hook(for dir: String) -> SourceReadHook {
        let vanishingPath = dir + "/" + vanishing, shrinkingPath = dir + "/" + shrinking
        return SourceReadHook { path, stage in
            if path == vanishingPath && stage == .willOpen { unlink(path) }
            if path == shrinkingPath && stage == .opened { truncate(path, 100) }
        }
    }
}
