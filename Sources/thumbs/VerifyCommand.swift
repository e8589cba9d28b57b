import ArgumentParser
import ThumbsKit

struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "verify", abstract: "Not available yet.")

    func run() async throws {
        throw ValidationError("thumbs verify is not available yet")
    }
}
