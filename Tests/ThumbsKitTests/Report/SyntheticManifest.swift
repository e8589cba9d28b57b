import Foundation
@testable import ThumbsKit

/// A large manifest made up in memory (no files), for rendering at scale:
/// deterministic, with the mix of statuses, sizes and formats a real archive has.
enum SyntheticManifest {
    static func make(items count: Int, seed: UInt64 = 42) -> Manifest {
        var state = seed
        func next() -> UInt64 {
            // SplitMix64: deterministic on every machine.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let common = [(4000, 3000), (3000, 4000), (6000, 4000), (4032, 3024), (1920, 1080), (1080, 1350), (2048, 2048), (800, 600)]
        let formats = ["jpeg", "jpeg", "jpeg", "jpeg", "png", "webp", "heif"]
        let errors = [("decode", "the JPEG data is truncated (Premature end of JPEG file)"),
                      ("too-large", "image is 70000×70000 pixels, more than --max-pixels 268402689"),
                      ("unsupported", "not an image libvips can read here")]
        var items: [ManifestItem] = []
        items.reserveCapacity(count)
        for i in 0..<count {
            let roll = next() % 1000
            let id = "archive/\(2000 + i % 25)/album-\(i / 500)/IMG_\(String(format: "%06d", i)).jpg"
            if roll < 10 {
                let error = errors[Int(next() % UInt64(errors.count))]
                items.append(ManifestItem(id: id, source: "/photos/" + id, status: .failed,
                                          error: ErrorRecord(code: error.0, message: error.1), ms: 3))
                continue
            }
            var (w, h) = common[Int(next() % UInt64(common.count))]
            if next() % 4 == 0 {
                w = 300 + Int(next() % 7000)
                h = 300 + Int(next() % 5000)
            }
            let scale = min(1, 256 / Double(max(w, h)))
            let ow = max(1, Int((Double(w) * scale).rounded())), oh = max(1, Int((Double(h) * scale).rounded()))
            let status: ItemStatus = roll < 40 ? .duplicate : roll < 90 ? .unchanged : .ok
            let output = ManifestOutput(size: "256", path: "256/" + id, width: ow, height: oh,
                                        bytes: Int64(6000 + next() % 12000), format: "jpeg", sha256: String(repeating: "ab", count: 32))
            items.append(ManifestItem(
                id: id, source: "/photos/" + id, status: status, sha256: String(repeating: "cd", count: 32),
                bytes: Int64(w * h / 4), format: formats[Int(next() % UInt64(formats.count))], width: w, height: h,
                orientation: 1, outputs: [output], ms: status == .ok ? 20 + Double(next() % 800) / 10 + (next() % 50 == 0 ? 400 : 0) : 0))
        }
        var run = RunCounters(ignored: count / 100, wallSeconds: Double(count) / 40)
        run.downloads.requests = count / 10
        run.downloads.ok = count / 10 - 7
        run.downloads.failed = 7
        run.downloads.retries = 19
        run.downloads.bytes = Int64(count) * 250_000
        run.downloads.pages = max(1, count / 1000)
        run.downloads.byStatus = ["200": count / 10 - 7, "404": 3, "503": 4]
        return Manifest(tool: .init(libvips: "8.14.1"), startedAt: "2024-05-01T10:00:00.000Z", finishedAt: "2024-05-01T10:41:40.000Z",
                        settings: OutputSettings(), run: run, items: items)
    }
}
