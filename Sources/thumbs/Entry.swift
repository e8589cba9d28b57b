import ArgumentParser
import Foundation
import ThumbsKit

/// Entry point: parse, run, and map every outcome onto PRODUCT.md's exit
/// codes (argument-parser's own usage code, 64, becomes 2).
@main
enum Entry {
    static func main() async {
        do {
            var command = try Thumbs.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            exit(0)
        } catch {
            if Thumbs.exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((Thumbs.fullMessage(for: error) + "\n").utf8))
                exit(ExitStatus.usage.rawValue)
            }
            Thumbs.exit(withError: error)
        }
    }
}
