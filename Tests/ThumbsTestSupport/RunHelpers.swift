import Foundation
import XCTest
import ThumbsKit

/// Runs the pipeline in-process, as `thumbs run` would.
public func runThumbs(_ sources: [String], out: String, configure: (inout RunOptions) -> Void = { _ in }) async throws -> ThumbsRun.Outcome {
    var options = RunOptions(sources: sources, outputDirectory: out)
    options.jobs = 2
    options.progress = .never
    options.verbosity = .quiet
    configure(&options)
    // manifest.json does not keep each item's decoder; tests ask for it.
    let decoders = DecoderLog()
    var run = ThumbsRun(options: options)
    run.onItem = { decoders.add($0) }
    var outcome = try await run.run()
    outcome.itemDecoders = decoders.byID
    return outcome
}

/// Each finished item's decoder, by id (`ThumbsRun.onItem`).
final class DecoderLog: @unchecked Sendable {
    private let lock = NSLock()
    private var decoders: [String: DecodePath] = [:]

    func add(_ item: ManifestItem) {
        lock.lock()
        defer { lock.unlock() }
        decoders[item.id] = item.decoder
    }

    var byID: [String: DecodePath] {
        lock.lock()
        defer { lock.unlock() }
        return decoders
    }
}

public func readManifest(_ out: String) throws -> Manifest {
    try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: out + "/manifest.json")))
}

extension Manifest {
    public func item(_ id: String, file: StaticString = #filePath, line: UInt = #line) -> ManifestItem? {
        let found = items.first { $0.id == id }
        if found == nil { XCTFail("no item \(id) in manifest: \(items.map(\.id))", file: file, line: line) }
        return found
    }
}

extension RunOptions {
    /// Square boxes of these sizes: `size([64])` is `--size 64`.
    public mutating func size(_ sizes: [Int]) {
        output.sizes = sizes.map { ThumbSize(width: $0, height: $0) }
    }
}
