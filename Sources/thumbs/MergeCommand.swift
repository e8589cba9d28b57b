import ArgumentParser
import ThumbsKit

struct MergeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "merge", abstract: "Not available yet.")

    func run() async throws {
        throw ValidationError("thumbs merge is not available yet")
    }
}
