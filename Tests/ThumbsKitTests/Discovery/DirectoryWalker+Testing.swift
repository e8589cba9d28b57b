@testable import ThumbsKit

extension DirectoryWalker {
    /// `walk(_:found:)`, with the files it hands over collected in walk
    /// order (a run hands each to its spool as it is met, keeping none).
    func collect(_ root: String) throws(RunError) -> (files: [FoundFile], result: Result) {
        var files: [FoundFile] = []
        let result = try walk(root) { files.append($0) }
        return (files, result)
    }
}
