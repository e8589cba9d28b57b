import Foundation

/// What `thumbs run` tells the terminal (or the JSON log): its events, their
/// fields, and the summary lines at the end.
struct RunLog {
    let options: RunOptions
    let console: Console

    /// Where the time went, for the `finish` event.
    struct Phases {
        var discover, load, process, group, write: Double
    }

    func interrupted() {
        console.event("interrupt", level: .warning,
                      "interrupted: no new downloads; finishing the images in flight, then writing the manifest (press Ctrl-C again to stop at once)")
    }

    /// The journal could not be written (`Journal.failure`): one line.
    func journalFailed(_ failure: String) {
        console.event("journal-failed", level: .error,
                      "\(failure); no new image was started after it, since a run stopped from then on could not resume; the manifest is written next if the disk takes it, else the journal keeps the images finished so far and the next run resumes from it; exit 3",
                      fields: ["problem": .string(failure)])
    }

    func start(images: Int, out: OutputDirectory, jobs: Int, resumed: Bool) {
        console.event("start", level: .info,
                      "thumbs: \(images) images from \(options.sources.map(RemoteURL.redacted).joined(separator: " ")) → \(out.root)"
                        + (resumed ? " (resuming an unfinished run)" : ""),
                      fields: ["images": .number(Double(images)), "out": .string(out.root),
                               "jobs": .number(Double(jobs)), "resumed": .bool(resumed)])
    }

    /// One item done: an error line for a failure, a debug line otherwise.
    func item(_ record: ManifestItem) {
        if record.status == .failed, let error = record.error {
            console.event("item-failed", level: .error, "\(record.source): \(error.code): \(error.message)",
                          fields: ["id": .string(record.id), "source": .string(record.source),
                                   "code": .string(error.code), "message": .string(error.message)])
        } else {
            let sizes = record.outputs.map { "\($0.width)×\($0.height)" }.joined(separator: ", ")
            var fields: [String: JSONValue] = ["id": .string(record.id), "status": .string(record.status.rawValue), "ms": .number(record.ms)]
            var decoded = ""
            if let decoder = record.decoder {
                fields["decoder"] = .string(decoder.rawValue)
                decoded = ", \(decoder.rawValue)"
            }
            console.event("item", level: .debug, "\(record.status.rawValue): \(record.id) → \(sizes) (\(record.ms) ms\(decoded))",
                          fields: fields)
        }
    }

    /// The summary lines, and the `finish` event with the counts and where
    /// the time went (in JSON logs always, in text with `--verbose`).
    /// `leftOutputs`: outputs no item of this run produces that stay in OUT
    /// (of gone sources, of a size or format no longer asked for).
    func finish(_ stats: Statistics, out: OutputDirectory, gone: Int, leftOutputs: Int = 0, interrupted: Bool, status: ExitStatus,
                phases: Phases) {
        func rounded(_ x: Double) -> JSONValue { .number((x * 1000).rounded() / 1000) }
        let c = stats.counts
        let rate = String(format: "%.1f", stats.time.imagesPerSecond)
        let seconds = String(format: "%.1f", stats.time.wallSeconds)
        var lines = [
            "\(interrupted ? "interrupted" : "done"): \(c.ok) ok, \(c.unchanged) unchanged, \(c.duplicate) duplicate, \(c.failed) failed"
                + " of \(c.discovered) images (\(c.ignored) other files ignored\(c.unreadable > 0 ? ", \(c.unreadable) unreadable" : "")) in \(seconds) s, \(rate) images/s",
            "thumbnails in \(out.root)/{\(options.output.sizes.map(\.label).joined(separator: ","))}/",
            "manifest \(out.manifestPath)" + (options.writeReport ? ", report \(out.reportPath)" : ""),
        ]
        if !options.prune, gone > 0 || leftOutputs > 0 {
            // One line: how many outputs stay, and how to remove them.
            let goneText = gone == 0 ? "" : "\(gone) sources gone since the last run; "
            let stay = leftOutputs == 1 ? "1 output that no item of this run produces stays" : "\(leftOutputs) outputs that no item of this run produces stay"
            lines.append(goneText + stay + " in OUT (of gone sources, or of a size or format no longer asked for); run again with --prune to remove them")
        } else if gone > 0 {
            lines.append("\(gone) sources gone since the last run" + (status == .fatal || interrupted ? " (nothing pruned)" : " (outputs pruned)"))
        } else if leftOutputs > 0 {
            lines.append("\(leftOutputs) outputs of a size or format no longer asked for stay in OUT (nothing pruned)")
        }
        if status == .failures {
            lines.append("\(c.failed) failed, more than --max-failures \(options.maxFailures): exit 1")
        }
        if interrupted {
            lines.append("run the same command again to finish the remaining images")
        }
        console.summary(lines)
        var fields: [String: JSONValue] = [
            "ok": .number(Double(c.ok)), "unchanged": .number(Double(c.unchanged)),
            "duplicate": .number(Double(c.duplicate)), "failed": .number(Double(c.failed)),
            "discovered": .number(Double(c.discovered)), "ignored": .number(Double(c.ignored)),
            "wallSeconds": .number(stats.time.wallSeconds), "imagesPerSecond": .number(stats.time.imagesPerSecond),
            "discoverSeconds": rounded(phases.discover), "loadSeconds": rounded(phases.load),
            "processSeconds": rounded(phases.process), "groupSeconds": rounded(phases.group), "writeSeconds": rounded(phases.write),
            "exitCode": .number(Double(status.rawValue)), "manifest": .string(out.manifestPath),
        ]
        if interrupted { fields["interrupted"] = .bool(true) }
        if console.format == .json || console.verbosity >= .verbose {
            console.event("finish", level: console.format == .json ? .info : .debug,
                          "time: discover \(String(format: "%.3f", phases.discover)) s, previous run \(String(format: "%.3f", phases.load)) s, images \(String(format: "%.3f", phases.process)) s, look-alikes \(String(format: "%.3f", phases.group)) s, manifest/stats/report \(String(format: "%.3f", phases.write)) s", fields: fields)
        }
    }
}
