@testable import ThumbsKit

extension ShardOrder {
    /// The sequence of a run of `ids`, split `count` ways, made as
    /// `SourceFinaliser` makes it: `append` for each item in turn.
    static func of(_ ids: [String], count: Int) -> String {
        var text = ""
        for id in ids { append(id, count: count, to: &text) }
        return text
    }
}
