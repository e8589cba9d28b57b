import Foundation

/// `thumbs run --dry-run`: one line per item on standard output, what would
/// be done and where it would go, and a summary; nothing is written and OUT
/// is neither created nor locked.
struct DryRun {
    let options: RunOptions
    let console: Console

    func list(_ items: SourceItems, ignored: Int) -> ThumbsRun.Outcome {
        var lines = ""  // written 64 KB at a time: a million lines are never held at once
        let outRoot = options.outputDirectory
        let previous = PreviousRun.load(
            manifestPath: OutputDirectory.manifestPath(in: outRoot), journalPath: OutputDirectory.journalPath(in: outRoot),
            settings: options.output)
        if !options.force { previous.warnIfUnreadable(console, manifestPath: OutputDirectory.manifestPath(in: outRoot)) }
        var unchanged = 0
        for item in items {
            let targets = options.output.sizes.map { item.outputPath(size: $0, format: options.output.format) }
            var action = "process"
            if !options.force, previous.unchangedSource(item) != nil {
                action = "unchanged"
                unchanged += 1
            }
            lines += "\(action)\t\(VisibleText.forTerminal(item.source))\t→ \(VisibleText.forTerminal(targets.joined(separator: ", ")))\n"
            if lines.utf8.count >= 1 << 16 { FileHandle.standardOutput.write(Data(lines.utf8)); lines = "" }
        }
        FileHandle.standardOutput.write(Data(lines.utf8))
        console.summary(["dry run: \(items.count) images (\(items.count - unchanged) to process, \(unchanged) unchanged, \(ignored) other files ignored); nothing written"])
        return ThumbsRun.Outcome(status: .success, header: nil, statistics: nil)
    }
}
