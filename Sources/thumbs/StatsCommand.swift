import ArgumentParser
import ThumbsKit

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "Not available yet.")

    func run() async throws {
        throw ValidationError("thumbs stats is not available yet")
    }
}
