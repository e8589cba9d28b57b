import Foundation
import XCTest
@testable import ThumbsKit

/// Runs the pipeline in-process, as `thumbs run` would.
func runThumbs(_ sources: [String], out: String, configure: (inout RunOptions) -> Void = { _ in }) async throws -> ThumbsRun.Outcome {
    var options = RunOptions(sources: sources, outputDirectory: out)
    options.jobs = 2
    options.progress = .never
    options.verbosity = .quiet
    configure(&options)
    return try await ThumbsRun(options: options).run()
}

func readManifest(_ out: String) throws -> Manifest {
    try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")))
}

extension Manifest {
    func item(_ id: String, file: StaticString = #filePath, line: UInt = #line) -> ManifestItem? {
        let found = items.first { $0.id == id }
        if found == nil { XCTFail("no item \(id) in manifest: \(items.map(\.id))", file: file, line: line) }
        return found
    }
}
