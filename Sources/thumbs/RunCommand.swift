import ArgumentParser
import Foundation
import ThumbsKit

extension Fit: ExpressibleByArgument {}
extension Crop: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
extension FailOn: ExpressibleByArgument {}
extension ProgressMode: ExpressibleByArgument {}
extension LogFormat: ExpressibleByArgument {}

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Thumbnail every image of the sources (the default command).",
        discussion: """
            SOURCE is a folder (walked recursively, sorted, hidden files
            skipped), an image file, a photo list URL (http/https), a list
            file (.json, .ndjson, .txt) or - for a list on standard input.

            Outputs go to OUT/<size>/<name>.<ext>, with OUT/manifest.json,
            OUT/stats.json and OUT/report.html. A second run into the same
            OUT skips what has not changed; an interrupted run resumes.

            EXAMPLES:
              thumbs run ~/Pictures --out /srv/thumbs --size 256 --size 1024
              thumbs run photos/ --fit cover --size 200x200 --crop attention --format webp
              thumbs run photos/ --max-failures 5% --log-format json --progress never
              thumbs run photos/ --shard 0/4 --out shard-0
            """
    )

    @Argument(help: ArgumentHelp("Folders, images, photo list URLs or files, or -.", valueName: "source"))
    var sources: [String] = []

    @Option(name: .long, help: ArgumentHelp("Output folder.", valueName: "dir"))
    var out: String = "thumbs-out"

    @Option(name: [.customLong("size")], help: ArgumentHelp("Bounding box N or WxH; repeat for several outputs. (default: 256)", valueName: "size"),
            transform: { text in
                guard let size = ThumbSize(parsing: text) else {
                    throw ValidationError("--size takes N or WxH with sides 1..65535, not '\(text)'")
                }
                return size
            })
    var sizes: [ThumbSize] = []

    @Option(help: "inside keeps the aspect ratio within the box; cover fills it and crops.")
    var fit: Fit = .inside

    @Flag(help: "Also scale up images smaller than the box.")
    var enlarge = false

    @Option(help: "Crop strategy for --fit cover: centre, attention, entropy.")
    var crop: Crop = .centre

    @Option(help: "jpeg, webp, avif, png, or auto (PNG for images with alpha, else JPEG).")
    var format: OutputFormat = .jpeg

    @Option(help: ArgumentHelp("Encoder quality 1..100.", valueName: "q"))
    var quality: Int = 80

    @Flag(help: "Keep EXIF/XMP metadata (colour is always converted to sRGB, orientation always applied).")
    var keepMetadata = false

    @Option(help: ArgumentHelp("Images decoded at once. (default: number of cores)", valueName: "n"))
    var jobs: Int?

    @Option(help: ArgumentHelp("Downloads at once.", valueName: "n"))
    var downloadJobs: Int = 8

    @Option(help: ArgumentHelp("At most R requests per second to a list's host.", valueName: "r"))
    var rate: Double?

    @Option(help: ArgumentHelp("Retries of a failed download (5xx, 429, network).", valueName: "n"))
    var retries: Int = 3

    @Option(help: ArgumentHelp("Seconds a whole request (headers and body) may take.", valueName: "s"))
    var timeout: Double = 30

    @Option(help: ArgumentHelp("Refuse images with more pixels than this, before decoding.", valueName: "n"))
    var maxPixels: Int = 268_402_689

    @Option(help: ArgumentHelp("Refuse downloads larger than this many bytes.", valueName: "n"))
    var maxBytes: Int = 256 << 20

    @Option(help: "How strict decoding is: none, truncated, error.")
    var failOn: FailOn = .error

    @Flag(help: "Enable the libvips loaders marked untrusted (ImageMagick, MATLAB, FITS…).")
    var allowUntrusted = false

    @Option(help: ArgumentHelp("Failures tolerated before exit 1: a count or a percentage like 5%.", valueName: "n|p%"),
            transform: { text in
                guard let budget = FailureBudget(parsing: text) else {
                    throw ValidationError("--max-failures takes a count (5) or a percentage (5%), not '\(text)'")
                }
                return budget
            })
    var maxFailures: FailureBudget = .count(0)

    @Flag(help: "Reprocess everything, ignoring earlier runs.")
    var force = false

    @Flag(help: "List what would be done and write nothing.")
    var dryRun = false

    @Flag(help: "Remove the outputs of sources that are gone since the last run.")
    var prune = false

    @Option(help: ArgumentHelp("Process only shard I (0-based) of N.", valueName: "i/n"),
            transform: { text in
                guard let shard = Shard(parsing: text) else {
                    throw ValidationError("--shard takes I/N with 0 <= I < N, not '\(text)'")
                }
                return shard
            })
    var shard: Shard?

    @Option(help: ArgumentHelp("Field holding the image URL in list entries (dotted path, e.g. urls.small).", valueName: "path"))
    var urlField: String?

    @Option(help: ArgumentHelp("Read at most this many pages of a list.", valueName: "n"))
    var maxPages: Int?

    @Flag(name: .customLong("no-placeholders"), help: "Skip the ThumbHash, BlurHash and average colour of each image.")
    var noPlaceholders = false

    @Option(help: ArgumentHelp("Look-alikes: perceptual hashes at most D bits apart; 0 turns grouping off. (default: \(LookalikeGrouping.defaultDistance))", valueName: "d"))
    var similar: Int = LookalikeGrouping.defaultDistance

    @Flag(inversion: .prefixedNo, help: "Write OUT/report.html.")
    var report = true

    @Option(help: "Progress bar: auto (on a terminal), always, never.")
    var progress: ProgressMode = .auto

    @Flag(help: "Print only errors.")
    var quiet = false

    @Flag(help: "Print a line per image.")
    var verbose = false

    @Option(help: "Log lines on stderr as text or json (one object per event).")
    var logFormat: LogFormat = .text

    func validate() throws {
        if sources.isEmpty {
            throw ValidationError("no SOURCE given: name a folder, an image, a photo list file or URL, or -")
        }
        if quiet && verbose { throw ValidationError("--quiet and --verbose cannot be used together") }
        if !(1...100).contains(quality) { throw ValidationError("--quality must be 1..100, not \(quality)") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if downloadJobs < 1 { throw ValidationError("--download-jobs must be at least 1") }
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
        if !(0...LookalikeGrouping.maxDistance).contains(similar) {
            throw ValidationError("--similar must be 0..\(LookalikeGrouping.maxDistance) bits, not \(similar)")
        }
    }

    func run() async throws {
        var options = RunOptions(sources: sources, outputDirectory: out)
        options.output = OutputSettings(
            sizes: sizes.isEmpty ? [ThumbSize(width: 256, height: 256)] : sizes,
            fit: fit, crop: crop, enlarge: enlarge, format: format, quality: quality, keepMetadata: keepMetadata,
            placeholders: !noPlaceholders
        )
        options.similar = similar
        if let jobs { options.jobs = jobs }
        options.downloadJobs = downloadJobs
        options.rate = rate
        options.retries = retries
        options.timeout = timeout
        options.maxPixels = maxPixels
        options.maxBytes = maxBytes
        options.failOn = failOn
        options.allowUntrusted = allowUntrusted
        options.maxFailures = maxFailures
        options.force = force
        options.dryRun = dryRun
        options.prune = prune
        options.shard = shard
        options.urlField = urlField
        options.maxPages = maxPages
        options.writeReport = report
        options.progress = progress
        options.verbosity = quiet ? .quiet : verbose ? .verbose : .normal
        options.logFormat = logFormat

        let console = Console(verbosity: options.verbosity, format: logFormat, progress: progress)
        do {
            let outcome = try await ThumbsRun(options: options, console: console).run()
            if outcome.status != .success { throw ExitCode(outcome.status.rawValue) }
        } catch let error as RunError {
            console.event("fatal", level: .error, error.message, fields: ["exitCode": .number(Double(error.exitCode.rawValue))])
            throw ExitCode(error.exitCode.rawValue)
        }
    }
}
