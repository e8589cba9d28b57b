@testable import ThumbsKit

extension SourceFinaliser {
    /// `finalise` over a few items given in memory: unique ids and output
    /// names, as a run gives its spooled items.
    static func finalised(_ items: [SourceItem]) throws(RunError) -> [SourceItem] {
        Array(try finalise(SourceItems(items)).items)
    }
}
