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
    var out: String = RunOptions.Defaults.outputDirectory

    @Option(name: [.customLong("size")], help: ArgumentHelp("Bounding box N or WxH; repeat for several outputs. (default: \(RunOptions.Defaults.output.sizes.map(\.label).joined(separator: ", ")))", valueName: "size"),
            transform: { text in
                guard let size = ThumbSize(parsing: text) else {
                    throw ValidationError("--size takes N or WxH with sides 1..65535, not '\(text)'")
                }
                return size
            })
    var sizes: [ThumbSize] = []

    @Option(help: "inside keeps the aspect ratio within the box; cover fills it and crops.")
    var fit: Fit = RunOptions.Defaults.output.fit

    @Flag(help: "Also scale up images smaller than the box.")
    var enlarge = false

    @Option(help: "Crop strategy for --fit cover: centre, attention, entropy.")
    var crop: Crop = RunOptions.Defaults.output.crop

    @Option(help: "jpeg, webp, avif, png, or auto (PNG for images with alpha, else JPEG).")
    var format: OutputFormat = RunOptions.Defaults.output.format

    @Option(help: ArgumentHelp("Encoder quality 1..100.", valueName: "q"))
    var quality: Int = RunOptions.Defaults.output.quality

    @Flag(help: "Keep EXIF/XMP metadata (colour is always converted to sRGB, orientation always applied; HDR video and stills, HLG or PQ, are tone-mapped to SDR sRGB).")
    var keepMetadata = false

    @Option(help: ArgumentHelp("Images decoded at once. (default: number of cores)", valueName: "n"))
    var jobs: Int?

    @Option(help: ArgumentHelp("Downloads at once.", valueName: "n"))
    var downloadJobs: Int = RunOptions.Defaults.downloadJobs

    @Option(help: ArgumentHelp("At most R requests per second to a list's host.", valueName: "r"))
    var rate: Double?

    @Option(help: ArgumentHelp("Retries of a failed download (5xx, 429, network).", valueName: "n"))
    var retries: Int = RunOptions.Defaults.retries

    @Option(help: ArgumentHelp("Seconds a whole request (headers and body) may take.", valueName: "s"))
    var timeout: Double = RunOptions.Defaults.timeout

    @Option(help: ArgumentHelp("Refuse images with more pixels than this, before decoding.", valueName: "n"))
    var maxPixels: Int = RunOptions.Defaults.maxPixels

    @Option(help: ArgumentHelp("Refuse downloads larger than this many bytes.", valueName: "n"))
    var maxBytes: Int = RunOptions.Defaults.maxBytes

    @Option(help: "How strict decoding is: none, truncated, error.")
    var failOn: FailOn = RunOptions.Defaults.failOn

    @Flag(help: "Enable the libvips loaders marked untrusted (ImageMagick, MATLAB, FITS…).")
    var allowUntrusted = false

    @Option(help: ArgumentHelp("Failures tolerated before exit 1: a count or a percentage like 5%.", valueName: "n|p%"),
            transform: budget("--max-failures"))
    var maxFailures: FailureBudget = RunOptions.Defaults.maxFailures

    @Flag(help: "Reprocess everything, ignoring earlier runs.")
    var force = false

    @Flag(help: "List what would be done and write nothing.")
    var dryRun = false

    @Flag(help: "Remove the outputs of sources that are gone since the last run.")
    var prune = false

    @Option(help: ArgumentHelp("""
        A prune that would remove the outputs of more than this many of the last run's items \
        (a count, or a percentage like 50%) removes nothing, says why and exits 3: an unmounted disk. \
        (default: \(RunOptions.Defaults.maxPrune))
        """, valueName: "n|p%"),
            transform: budget("--max-prune"))
    var maxPrune: FailureBudget = RunOptions.Defaults.maxPrune

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

    @Option(name: .customLong("header"), help: ArgumentHelp("""
        Photo lists: an extra request header (an API key), repeatable; @FILE reads one per line, and so does \
        the THUMBS_HEADER environment variable. Sent only to the list URL's own origin, never written anywhere.
        """, valueName: "'name: value'|@file"))
    var headers: [String] = []

    @Flag(help: """
        Read and download every source whole: no partial downloads of progressive JPEGs, no reads of only a camera \
        file's embedded preview; every item gets its sha256. For an archive whose every byte must be checked, or \
        deduplicated by content.
        """)
    var wholeFiles = false

    @Flag(name: .customLong("no-placeholders"), help: "Skip the ThumbHash, BlurHash and average colour of each image.")
    var noPlaceholders = false

    @Option(help: ArgumentHelp("Look-alikes: perceptual hashes at most D bits apart; 0 turns grouping off.", valueName: "d"))
    var similar: Int = RunOptions.Defaults.similar

    @Flag(inversion: .prefixedNo, help: "Write OUT/report.html.")
    var report = true

    @Option(help: "Progress bar: auto (on a terminal), always, never.")
    var progress: ProgressMode = .auto

    @OptionGroup
    var logging: LoggingOptions

    /// Reads `--max-failures` and `--max-prune`: a count or a percentage.
    static func budget(_ option: String) -> @Sendable (String) throws -> FailureBudget {
        { text in
            guard let budget = FailureBudget(parsing: text) else {
                throw ValidationError("\(option) takes a count (5) or a percentage (5%), not '\(text)'")
            }
            return budget
        }
    }

    /// `--header` values and files, then THUMBS_HEADER.
    func listHeaders() throws(RunError) -> [RequestHeader] {
        try ListHeaders.parse(arguments: headers, environment: ProcessInfo.processInfo.environment[ListHeaders.environmentVariable])
    }

    func validate() throws {
        do {
            _ = try listHeaders()
            try options.validate()
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// The parsed command line as `RunOptions`; what is not given keeps its
    /// default (`RunOptions.Defaults`).
    var options: RunOptions {
        var options = RunOptions(sources: sources, outputDirectory: out)
        options.output = OutputSettings(
            sizes: sizes.isEmpty ? RunOptions.Defaults.output.sizes : sizes,
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
        options.maxPrune = maxPrune
        options.shard = shard
        options.urlField = urlField
        options.maxPages = maxPages
        options.listHeaders = (try? listHeaders()) ?? []  // checked by validate()
        options.wholeFiles = wholeFiles
        options.writeReport = report
        options.progress = progress
        options.verbosity = logging.verbosity
        options.logFormat = logging.logFormat
        return options
    }

    func run() async throws {
        let options = self.options
        let console = logging.console(progress: progress)
        do {
            let outcome = try await ThumbsRun(options: options, console: console).run()
            if outcome.status != .success { throw ExitCode(outcome.status.rawValue) }
        } catch let error as RunError {
            console.event("fatal", level: .error, error.message, fields: ["exitCode": .number(Double(error.exitCode.rawValue))])
            throw ExitCode(error.exitCode.rawValue)
        }
    }
}
