import CVips
import CVipsShim
import Foundation

/// `verify --diff DIR`: for each changed output one PNG of baseline | new |
/// difference heat map side by side (`shim_diff_strip_png`), and at the end
/// an `index.html` that shows them, with a slider between baseline and new.
///
/// The page is self-contained as report.html is: inline style and script,
/// no network; it shows the PNGs beside it. Writes go only below DIR, never
/// through a link (`AtomicFile` with DIR as its root).
public final class DiffWriter: @unchecked Sendable {
    struct Entry {
        var file: String
        var id: String
        var path: String
        var size: String
        var width: Int
        var height: Int
        var difference: PixelDifference
    }

    public let folder: String
    private let files: AtomicFile
    private let lock = NSLock()
    private var entries: [Entry] = []

    /// Creates DIR when missing; throws `usage` when it cannot.
    public init(folder: String) throws(RunError) {
        self.folder = folder
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw .usage("cannot create the diff folder \(folder): \(error.localizedDescription)")
        }
        files = AtomicFile(temporaryDirectory: folder, root: folder, synchronise: false)
    }

    /// How many changed outputs have a diff image.
    public var count: Int { lock.withLock { entries.count } }

    /// Writes the side-by-side PNG of one changed output; the problem, when
    /// it could not.
    func write(id: String, output: ManifestOutput, baseline: SRGBPixels, current: SRGBPixels, map: [Float],
               difference: PixelDifference) -> String? {
        var png: UnsafeMutableRawPointer?
        var length = 0
        let status = baseline.bytes.withUnsafeBufferPointer { b in
            current.bytes.withUnsafeBufferPointer { c in
                map.withUnsafeBufferPointer { m in
                    shim_diff_strip_png(b.baseAddress, c.baseAddress, m.baseAddress, Int32(current.width), Int32(current.height),
                                        &png, &length)
                }
            }
        }
        guard status == 0, let png else {
            vips_error_clear()
            return "libvips could not encode the PNG"
        }
        defer { g_free(png) }
        let number = lock.withLock { () -> Int in
            entries.append(Entry(file: "", id: id, path: output.path, size: output.size, width: current.width,
                                 height: current.height, difference: difference))
            return entries.count
        }
        let file = String(format: "%05d", number) + "-" + Self.safeName(output.path) + ".png"
        do {
            try files.write(Data(bytes: png, count: length), to: folder + "/" + file)
        } catch {
            return error.message
        }
        lock.withLock { entries[number - 1].file = file }
        return nil
    }

    /// `256/a/b.jpg` as one file name: letters, digits, `.`, `-`, `_` kept.
    static func safeName(_ path: String) -> String {
        let kept = path.unicodeScalars.map { scalar -> Character in
            (scalar.properties.isAlphabetic && scalar.isASCII) || ("0"..."9").contains(scalar) || scalar == "." || scalar == "-"
                ? Character(scalar) : "_"
        }
        return String(String(kept).prefix(80))
    }

    /// Writes `index.html` for the images written so far.
    public func finish(baseline: String, limits: DifferenceLimits) throws(RunError) {
        let shown = lock.withLock { entries.filter { !$0.file.isEmpty } }
        do {
            try files.write(Data(DiffIndexPage.html(shown, baseline: baseline, limits: limits).utf8), to: folder + "/index.html")
        } catch {
            throw .usage("cannot write \(folder)/index.html: \(error.message)")
        }
    }
}
