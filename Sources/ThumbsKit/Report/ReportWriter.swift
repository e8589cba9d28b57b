import Foundation

/// `OUT/report.html`: one self-contained page of a run. Inline CSS and SVG
/// only: no scripts, fonts or images from elsewhere; thumbnails are
/// referenced by their relative paths.
///
/// Order: the summary (cards, statuses, settings), the charts, the failures,
/// then a grid of every thumbnail. Built to stay usable with 100,000 items:
/// per-item markup is a few short tags, the grid and the failures table come
/// in chunks of `ReportStyle.chunkSize` that the browser lays out only when
/// on screen, and charts have a bounded number of marks.
public struct ReportWriter {
    /// The manifest without its items (`items` hands them out).
    public var manifest: Manifest
    public var statistics: Statistics
    let items: ReportItems
    /// The one pass over the items, made as they were written (`RunResults`,
    /// `MergedManifestWriter`).
    let gathered: ReportGatherer

    /// A report whose items were gathered as they were written (`gathered`)
    /// and are read back as a stream for the rest (a run or a merge of
    /// millions reads its manifest back, up to the last tile: `ReportItems`).
    init(header: Manifest, items: ReportItems, statistics: Statistics, gathered: ReportGatherer) {
        self.manifest = header
        self.statistics = statistics
        self.items = items
        self.gathered = gathered
    }

    /// The whole page as one string (tests and small reports; runs write
    /// it in pieces through `write(pieces:)`).
    public func render() -> String {
        var whole = ""
        // About 180 bytes per item in the grid, plus the fixed parts:
        // reserved at once, so the string is not copied as it grows.
        whole.reserveCapacity(24_000 + min(statistics.counts.discovered, ReportStyle.gridLimit) * 200)
        write(pieces: { whole += $0 })
        return whole
    }

    /// Pieces of the page go out at about this size.
    static let pieceSize = 256 * 1024

    /// The page in order, in pieces of about `pieceSize` bytes: a
    /// 100,000-item report (about 18 MB) is never held whole, and the items
    /// are never held either: everything but the tiles was gathered as they
    /// were written (`ReportGatherer`); they are read back (`ReportItems`)
    /// up to the groups' first images, and up to the last tile shown.
    public func write<Failure: Error>(pieces emit: (String) throws(Failure) -> Void) throws(Failure) {
        var out = ""
        out.reserveCapacity(Self.pieceSize + 64 * 1024)
        head(into: &out)
        summary(into: &out)
        charts(gathered, into: &out)
        try failures(gathered, into: &out, emit: emit)
        try warnings(gathered, into: &out, emit: emit)
        lookalikes(gathered, into: &out)
        try grid(shown: gathered.shown, into: &out, emit: emit)
        out += "<footer>Made by thumbs \(ReportFormat.escape(manifest.tool.version)) with libvips \(ReportFormat.escape(manifest.tool.libvips)). "
        out += "This page is self-contained: no scripts, nothing loaded from the network.</footer>\n</main>\n</body>\n</html>\n"
        try emit(out)
    }

    // MARK: Head and summary

    private func head(into out: inout String) {
        let c = statistics.counts
        out += "<!doctype html>\n<html lang=en>\n<head>\n<meta charset=utf-8>\n"
        out += "<meta name=viewport content=\"width=device-width,initial-scale=1\">\n<meta name=color-scheme content=\"light dark\">\n"
        out += "<meta name=generator content=\"thumbs \(ReportFormat.escape(manifest.tool.version))\">\n"
        out += "<title>thumbs report · \(ReportFormat.int(c.discovered)) images</title>\n<style>\n"
        out += ReportStyle.css
        out += "\n</style>\n</head>\n<body>\n<main>\n<header>\n<div class=kicker>thumbs report</div>\n"
        out += "<h1>\(ReportFormat.int(c.discovered)) image\(c.discovered == 1 ? "" : "s"): "
        out += "\(ReportFormat.int(thumbnailed)) thumbnailed, \(ReportFormat.int(c.failed)) failed</h1>\n"
        out += "<p class=meta>"
        out += ReportFormat.escape(Self.readableSpan(manifest.startedAt, manifest.finishedAt))
        out += " · thumbs \(ReportFormat.escape(manifest.tool.version)) · libvips \(ReportFormat.escape(manifest.tool.libvips))"
        if let shard = manifest.shard { out += " · shard \(ReportFormat.escape("\(shard)"))" }
        out += "</p>\n<nav><a href=\"#summary\">Summary</a><a href=\"#charts\">Charts</a>"
        out += "<a href=\"#failures\">Failures <span class=count>\(ReportFormat.int(c.failed))</span></a>"
        if c.warnings > 0 { out += "<a href=\"#warnings\">Warnings <span class=count>\(ReportFormat.int(c.warnings))</span></a>" }
        out += "<a href=\"#lookalikes\">Look-alikes <span class=count>\(ReportFormat.int(statistics.similar.groups))</span></a>"
        out += "<a href=\"#thumbnails\">Thumbnails <span class=count>\(ReportFormat.int(thumbnailed))</span></a></nav>\n</header>\n"
        if manifest.interrupted == true {
            out += "<p class=banner><b>This run was interrupted.</b> Only the images finished before it stopped are listed; run the same command again to finish the rest.</p>\n"
        }
    }

    /// Items that have a thumbnail: ok, unchanged and duplicate.
    private var thumbnailed: Int {
        statistics.counts.ok + statistics.counts.unchanged + statistics.counts.duplicate
    }

    private func summary(into out: inout String) {
        let s = statistics, c = s.counts, t = s.time
        out += "<section id=summary>\n<div class=cards>\n"
        card("Images", ReportFormat.int(c.discovered),
             (c.ignored > 0 ? "\(ReportFormat.int(c.ignored)) other file\(c.ignored == 1 ? "" : "s") ignored" : "found in the sources")
                + (c.unreadable > 0 ? " · \(ReportFormat.int(c.unreadable)) folder\(c.unreadable == 1 ? "" : "s") or file\(c.unreadable == 1 ? "" : "s") unreadable" : ""), into: &out)
        let kinds = [(c.ok, "new"), (c.unchanged, "unchanged"), (c.duplicate, "duplicate")].filter { $0.0 > 0 }
        card("Thumbnailed", ReportFormat.int(thumbnailed),
             kinds.isEmpty ? "no thumbnails" : kinds.map { "\(ReportFormat.int($0.0)) \($0.1)" }.joined(separator: " · "),
             tone: thumbnailed > 0 && c.failed == 0 ? "good" : "", into: &out)
        card("Failed", ReportFormat.int(c.failed),
             c.failed == 0 ? "no failures" : String(format: "%.1f%% of the images", Double(c.failed) / Double(max(1, c.discovered)) * 100),
             tone: c.failed > 0 ? "bad" : "", into: &out)
        card("Throughput", ReportFormat.number(t.imagesPerSecond, digits: t.imagesPerSecond < 100 ? 1 : 0), unit: "img/s",
             "wall time \(ReportFormat.duration(t.wallSeconds))", into: &out)
        out += "</div>\n"

        // The statuses as one stacked bar.
        out += "<div class=status><div class=stack>"
        let parts: [(String, Int)] = [("ok", c.ok), ("unchanged", c.unchanged), ("duplicate", c.duplicate), ("failed", c.failed)]
        let total = max(1, parts.reduce(0) { $0 + $1.1 })
        for (name, n) in parts where n > 0 {
            out += "<span class=s-\(name) style=\"width:\(String(format: "%.3f", Double(n) / Double(total) * 100))%\" title=\"\(name) \(ReportFormat.int(n))\"></span>"
        }
        out += "</div><div class=legend>"
        for (name, n) in parts {
            out += "<span><i class=\"sw s-\(name)\"></i>\(name) <b>\(ReportFormat.int(n))</b></span>"
        }
        if let gone = manifest.run?.gone ?? manifest.gone?.count, gone > 0 {
            out += "<span>gone since the last run <b>\(ReportFormat.int(gone))</b></span>"
        }
        out += "</div>\n"

        // Smaller figures under the statuses.
        out += "<dl class=facts>"
        fact("Wall time", ReportFormat.duration(t.wallSeconds), "", into: &out)
        fact("Per image", t.perImageMs.count > 0 ? "\(ReportFormat.number(t.perImageMs.p50, digits: 1)) ms" : "–",
             t.perImageMs.count > 0 ? "median · p95 \(ReportFormat.number(t.perImageMs.p95, digits: t.perImageMs.p95 < 10 ? 1 : 0)) ms" : "nothing decoded", into: &out)
        let images = c.ok + c.unchanged + c.duplicate
        fact("Bytes in", ReportFormat.bytes(s.bytes.input),
             images > 0 ? "\(ReportFormat.bytes(s.bytes.input / Int64(images))) per image" : "", into: &out)
        let outputs = s.dimensions.output.width.count
        fact("Bytes out", ReportFormat.bytes(s.bytes.output),
             (s.bytes.input > 0 ? String(format: "%.1f%% of input · ", Double(s.bytes.output) / Double(s.bytes.input) * 100) : "")
                + "\(ReportFormat.int(outputs)) file\(outputs == 1 ? "" : "s")", into: &out)
        if let r = s.read, r.bytes > 0 {
            // File sources: bytes read, and those left unread by the sources read in part.
            fact("Read", ReportFormat.bytes(r.bytes),
                 r.partial > 0 ? "\(ReportFormat.bytes(r.bytesSaved)) saved by \(ReportFormat.int(r.partial)) partly read file\(r.partial == 1 ? "" : "s")" : "every file whole",
                 into: &out)
        }
        let d = s.downloads
        fact("Downloads", d.requests > 0 ? "\(ReportFormat.int(d.requests)) requests" : "none",
             d.requests > 0 ? "\(ReportFormat.bytes(d.bytes)) · \(ReportFormat.int(d.retries)) retries"
                + (d.partial > 0 ? " · \(ReportFormat.bytes(d.bytesSaved)) saved by \(ReportFormat.int(d.partial)) partial downloads" : "")
                : "local files only", into: &out)
        out += "</dl></div>\n"

        // The settings as the options that produced them.
        let settings = manifest.settings
        out += "<div class=settings><span class=l>Settings</span>"
        for size in settings.sizes { chip("size", size.label, into: &out) }
        chip("fit", settings.fit.rawValue, into: &out)
        if settings.fit == .cover { chip("crop", settings.crop.rawValue, into: &out) }
        chip("enlarge", settings.enlarge ? "yes" : "no", into: &out)
        chip("format", settings.format.rawValue, into: &out)
        chip("quality", "\(settings.quality)", into: &out)
        chip("metadata", settings.keepMetadata ? "kept" : "stripped", into: &out)
        out += "</div>\n</section>\n"
    }

    private func card(_ label: String, _ value: String, unit: String = "", _ sub: String, tone: String = "", into out: inout String) {
        out += "<div class=\"card \(tone)\"><div class=l>\(label)</div><div class=v>\(ReportFormat.escape(value))"
        if !unit.isEmpty { out += "<small>\(unit)</small>" }
        out += "</div><div class=s>\(ReportFormat.escape(sub))</div></div>\n"
    }

    private func fact(_ label: String, _ value: String, _ sub: String, into out: inout String) {
        out += "<div><dt>\(label)</dt><dd>"
        out.appendEscaped(value)
        if !sub.isEmpty {
            out += "<small>"
            out.appendEscaped(sub)
            out += "</small>"
        }
        out += "</dd></div>"
    }

    private func chip(_ name: String, _ value: String, into out: inout String) {
        out += "<span class=chip>\(name) <b>"
        out.appendEscaped(value)
        out += "</b></span>"
    }

    // MARK: Charts

    private func charts(_ g: ReportGatherer, into out: inout String) {
        let s = statistics
        out += "<section id=charts>\n<h2>Charts</h2>\n<div class=charts>\n"

        let marks = g.sizes.counts
        panel("Input dimensions", "width × height as displayed · dashed line: square · "
                + (marks.count > ReportCharts.maxScatterMarks ? "darker cells: more images" : "larger dots: more images"), into: &out)
        ReportCharts.scatter(marks, images: g.sizes.images, into: &out)
        out += "</figure>\n"

        panel("Megapixels", g.megapixels.count == 0 ? "of the input images" :
                "of the input images · median \(ReportFormat.number(s.dimensions.input.megapixels.p50, digits: 2)) MP", into: &out)
        ReportCharts.histogram(g.megapixels, unit: "MP", noun: "images", into: &out)
        out += "</figure>\n"

        panel("Time per image", g.times.count == 0 ? "decode, resize and encode of each new image" :
                "decode, resize and encode · median \(ReportFormat.number(s.time.perImageMs.p50, digits: 1)) ms, p95 \(ReportFormat.number(s.time.perImageMs.p95, digits: 1)) ms", into: &out)
        ReportCharts.histogram(g.times, unit: "ms", noun: "images decoded in this run", into: &out)
        out += "</figure>\n"

        let d = s.downloads
        // With downloads, their panel sits beside the time histogram; without,
        // a small "no downloads" panel ends the row of bar charts.
        if d.requests > 0 {
            downloads(into: &out)
        }
        panel("Shapes", third: d.requests > 0, "of the input images", into: &out)
        let shape = s.dimensions.shape
        let shapes = shape.landscape + shape.portrait + shape.square == 0 ? [] : [
            ReportCharts.Bar(label: "landscape", value: shape.landscape),
            ReportCharts.Bar(label: "portrait", value: shape.portrait),
            ReportCharts.Bar(label: "square", value: shape.square),
        ]
        ReportCharts.bars(shapes, label: "Image shapes", empty: "no images", width: d.requests > 0 ? 400 : ReportCharts.width, into: &out)
        out += "</figure>\n"

        panel("Input formats", third: true, "as recognised by their content", into: &out)
        ReportCharts.bars(Self.formatBars(s.formats.input), label: "Input formats", empty: "no images", into: &out)
        out += "</figure>\n"

        panel("Output formats", third: true, "one per thumbnail written", into: &out)
        ReportCharts.bars(Self.formatBars(s.formats.output), label: "Output formats", empty: "no thumbnails", into: &out)
        out += "</figure>\n"

        panel("Decoded by", third: true, "the path that decoded each new image", into: &out)
        let paths = DecodePath.allCases.compactMap { path in
            (s.decoders[path.rawValue] ?? 0) > 0 ? ReportCharts.Bar(label: path.rawValue, value: s.decoders[path.rawValue] ?? 0) : nil
        }
        ReportCharts.bars(paths, label: "Decode paths", empty: "nothing decoded in this run", into: &out)
        out += "</figure>\n"
        if d.requests == 0 {
            downloads(into: &out)
        }
        out += "</div>\n</section>\n"
    }

    /// Download outcomes and HTTP statuses, or "no downloads".
    private func downloads(into out: inout String) {
        let d = statistics.downloads
        panel("Downloads", third: d.requests == 0, d.requests == 0 ? "HTTP requests of photo lists" :
                "\(ReportFormat.int(d.requests)) requests · \(ReportFormat.bytes(d.bytes)) · \(ReportFormat.int(d.pages)) list page\(d.pages == 1 ? "" : "s")", into: &out)
        let outcomes = d.requests == 0 ? [] : [
            ReportCharts.Bar(label: "ok", value: d.ok, tone: "ok"),
            ReportCharts.Bar(label: "failed", value: d.failed, tone: "bad"),
            ReportCharts.Bar(label: "retries", value: d.retries, tone: "warn"),
            ReportCharts.Bar(label: "not modified", value: d.notModified, tone: "muted"),
        ]
        ReportCharts.bars(outcomes, label: "Download outcomes", empty: "no downloads", width: d.requests > 0 ? ReportCharts.width : 400, into: &out)
        if !d.byStatus.isEmpty {
            out += "<h4>By HTTP status</h4>"
            let statuses = d.byStatus.sortedKeys.sorted { (Int($0) ?? 0, $0) < (Int($1) ?? 0, $1) }.map { code in
                ReportCharts.Bar(label: "HTTP \(code)", value: d.byStatus[code] ?? 0,
                                 tone: code.hasPrefix("2") ? "ok" : code.hasPrefix("3") ? "muted" : code.hasPrefix("4") || code.hasPrefix("5") ? "bad" : "")
            }
            ReportCharts.bars(statuses, label: "HTTP status codes", empty: "no responses", width: d.requests > 0 ? ReportCharts.width : 400, into: &out)
        }
        out += "</figure>\n"
    }

    /// Opens a chart panel: half the row, or a third for the small bar charts.
    private func panel(_ title: String, third: Bool = false, _ caption: String, into out: inout String) {
        out += third ? "<figure class=\"panel third\"><figcaption><h3>" : "<figure class=panel><figcaption><h3>"
        out += "\(title)</h3><p>"
        out.appendEscaped(caption)
        out += "</p></figcaption>"
    }

    /// Most common first; format names come from the manifest.
    static func formatBars(_ formats: SortedMap<Int>) -> [ReportCharts.Bar] {
        formats.values.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            .map { ReportCharts.Bar(label: $0.key, value: $0.value) }
    }

    // MARK: Failures

    /// Every failure, whatever their number: the rows gathered in chunks
    /// (`ReportGatherer`), handed on piece by piece.
    private func failures<Failure: Error>(_ g: ReportGatherer, into out: inout String,
                                          emit: (String) throws(Failure) -> Void) throws(Failure) {
        let total = g.failures
        out += "<section id=failures>\n<h2>Failures <span class=count>\(ReportFormat.int(total))</span></h2>\n"
        guard total > 0 else {
            out += "<div class=tablewrap><p class=empty>No failures: every image was thumbnailed.</p></div>\n</section>\n"
            return
        }
        try table(g.failureRows, into: &out, emit: emit)
    }

    /// Every warning, beside the failures: items made, but not quite as
    /// they should be (a colour profile taken as sRGB). No section when
    /// there is none.
    private func warnings<Failure: Error>(_ g: ReportGatherer, into out: inout String,
                                          emit: (String) throws(Failure) -> Void) throws(Failure) {
        guard g.warnings > 0 else { return }
        out += "<section id=warnings>\n<h2>Warnings <span class=count>\(ReportFormat.int(g.warnings))</span></h2>\n"
        out += "<p class=meta>Thumbnails were made for these images, but not quite as they should be.</p>\n"
        try table(g.warningRows, into: &out, emit: emit)
    }

    /// A spooled table's rows, handed on piece by piece, and the section's end.
    private func table<Failure: Error>(_ rows: ReportSpool, into out: inout String,
                                       emit: (String) throws(Failure) -> Void) throws(Failure) {
        out += "<div class=tablewrap>"
        var failure: Failure?
        rows.replay { piece in
            out += piece
            guard failure == nil, out.utf8.count >= Self.pieceSize else { return }
            do throws(Failure) { try emit(out) } catch { failure = error }
            out.removeAll(keepingCapacity: true)
        }
        if let failure { throw failure }
        out += "</div>\n</section>\n"
    }

    // MARK: Grid

    /// The grid, handing `out` to `emit` whenever it has grown past
    /// `pieceSize` (between chunks). Past `ReportStyle.gridLimit` tiles the
    /// grid stops, and says so: the manifest lists every image.
    private func grid<Failure: Error>(shown total: Int, into out: inout String, emit: (String) throws(Failure) -> Void) throws(Failure) {
        let shown = min(total, ReportStyle.gridLimit)
        out += "<section id=thumbnails>\n<h2>Thumbnails <span class=count>\(ReportFormat.int(total))</span></h2>\n"
        let sizes = manifest.settings.sizes.map(\.label)
        var note = "Every image in source order, with its original and thumbnail size in pixels."
        if sizes.count > 1 { note += " Shown: the \(sizes[0]) output of each (\(sizes.count) sizes were made)." }
        out += "<p class=sub>"
        out.appendEscaped(note)
        out += "</p>\n"
        if total > shown {
            out += "<p class=banner><b>The grid shows the first \(ReportFormat.int(shown)) of \(ReportFormat.int(total)) thumbnails.</b> "
            out += "A page of more would not open in a browser in seconds; every image is in manifest.json, and its thumbnails in the size folders.</p>\n"
        }
        guard shown > 0 else {
            out += "<div class=tablewrap><p class=empty>No thumbnails in this run.</p></div>\n</section>\n"
            return
        }
        var index = 0
        var failure: Failure?
        items.each { item in
            guard item.status != .failed, !item.outputs.isEmpty else { return true }
            if index % ReportStyle.chunkSize == 0 {
                let count = min(shown - index, ReportStyle.chunkSize)
                out += "<ol class=\"grid chunk\""
                if count < ReportStyle.chunkSize {
                    out += " style=\"contain-intrinsic-size:auto \(ReportStyle.gridChunkHeight(items: count))px\""
                }
                out += ">\n"
            }
            Self.tile(item, asImage: index < ReportStyle.imageElementLimit, into: &out)
            index += 1
            if index % ReportStyle.chunkSize == 0 || index == shown {
                out += "</ol>\n"
                if out.utf8.count >= Self.pieceSize {
                    do throws(Failure) { try emit(out) } catch {
                        failure = error
                        return false
                    }
                    out.removeAll(keepingCapacity: true)
                }
            }
            return index < shown
        }
        if let failure { throw failure }
        if index % ReportStyle.chunkSize != 0 && index < shown { out += "</ol>\n" }
        out += "</section>\n"
    }

    /// One tile: kept to a few short tags, it is repeated for every image.
    /// Past `ReportStyle.imageElementLimit` the thumbnail is the tile's CSS
    /// background instead of an `<img>` (see there why).
    static func tile(_ item: ManifestItem, asImage: Bool, distance: Int? = nil, into out: inout String) {
        let output = item.outputs[0]
        out += item.status == .duplicate ? "<li class=dup>" : "<li>"
        if asImage {
            out += "<img src=\""
            out.appendURLPath(output.path)
            out += "\" width="
            out.appendInt(output.width)
            out += " height="
            out.appendInt(output.height)
            if let colour = safeColour(item.color) {
                // The average colour fills the tile while the image loads.
                out += " style=\"background:\(colour)\""
            }
            out += " loading=lazy decoding=async alt=\"\">"
        } else {
            // The percent-encoded path holds no quote, parenthesis or space,
            // so it is safe unquoted inside url().
            out += "<div class=t style=\"background-image:url("
            out.appendURLPath(output.path)
            out += ")"
            if let colour = safeColour(item.color) { out += ";background-color:\(colour)" }
            out += "\"></div>"
        }
        if let video = item.video {
            // A video's tile: a play mark with its duration over the poster.
            out += "<span class=play>▶"
            if video.durationSeconds > 0 { out += " " + Self.duration(video.durationSeconds) }
            out += "</span>"
        }
        out += "<b>"
        out.appendEscaped(item.id)
        out += "</b><i>"
        if let w = item.width, let h = item.height {
            out.appendInt(w)
            out += "×"
            out.appendInt(h)
            out += " → "
        }
        out.appendInt(output.width)
        out += "×"
        out.appendInt(output.height)
        if let distance {
            out += " · "
            out.appendInt(distance)
            out += distance == 1 ? " bit" : " bits"
        }
        out += "</i></li>\n"
    }

    /// A video's length as players show it: "0:03", "12:40", "1:02:09"
    /// (whole seconds, rounded up so a clip under a second shows "0:01").
    static func duration(_ seconds: Double) -> String {
        let total = seconds.isFinite ? Int(min(seconds, 1e9).rounded(.up)) : 0
        let h = total / 3600, m = total / 60 % 60, s = total % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }

    /// A manifest colour fit to put in a style attribute: `#rrggbb` only.
    static func safeColour(_ colour: String?) -> String? {
        guard let colour, colour.utf8.count == 7, colour.first == "#",
              colour.utf8.dropFirst().allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        return colour
    }

    // MARK: Look-alikes

    /// Groups of look-alikes side by side: the first item, then each member
    /// with its distance in bits. Bounded, like the charts: past
    /// `ReportStyle.lookalikeGroupLimit` groups a line says how many more.
    private func lookalikes(_ g: ReportGatherer, into out: inout String) {
        let groupCount = statistics.similar.groups
        out += "<section id=lookalikes>\n<h2>Look-alikes <span class=count>\(ReportFormat.int(groupCount))</span></h2>\n"
        out += "<p class=sub>Images whose perceptual hashes differ in at most \(ReportFormat.int(manifest.run?.similar ?? 0)) of 64 bits: "
        out += "the same photo re-encoded, resized or retouched. They are thumbnailed like any other; each row starts with the group's first image.</p>\n"
        guard !g.groups.isEmpty else {
            let off = (manifest.run?.similar ?? 1) == 0
            out += "<div class=tablewrap><p class=empty>\(off ? "Grouping was off (--similar 0)." : "No look-alikes.")</p></div>\n</section>\n"
            return
        }
        // The groups' first images come before their members: read up to
        // the last of them.
        var leaders: [String: String] = [:]
        var pending = Set(g.groups)
        items.each { item in
            if pending.remove(item.id) != nil, !item.outputs.isEmpty, item.status != .failed {
                var tile = ""
                Self.tile(item, asImage: true, into: &tile)
                leaders[item.id] = tile
            }
            return !pending.isEmpty
        }
        for first in g.groups {
            out += "<ol class=\"grid group\">\n"
            if let leader = leaders[first] { out += leader }
            let members = g.members[first] ?? ([], 0)
            for tile in members.tiles { out += tile }
            out += "</ol>\n"
            if members.shown > ReportStyle.lookalikeMemberLimit {
                out += "<p class=sub>and \(ReportFormat.int(members.shown - ReportStyle.lookalikeMemberLimit)) more look-alikes of "
                out.appendEscaped(first)
                out += " (see <code>similarTo</code> in manifest.json).</p>\n"
            }
        }
        if groupCount > ReportStyle.lookalikeGroupLimit {
            out += "<p class=sub>\(ReportFormat.int(groupCount - ReportStyle.lookalikeGroupLimit)) more groups: see <code>similarTo</code> in manifest.json.</p>\n"
        }
        out += "</section>\n"
    }

    /// `2024-05-01 12:03:04 → 12:40:01 UTC` from the manifest's ISO-8601
    /// times (the date once when both are on the same day).
    static func readableSpan(_ start: String, _ end: String) -> String {
        func parts(_ iso: String) -> (date: Substring, time: Substring)? {
            guard iso.count >= 19, iso.dropFirst(10).first == "T" else { return nil }
            return (iso.prefix(10), iso.dropFirst(11).prefix(8))
        }
        guard let a = parts(start), let b = parts(end) else { return "\(start) → \(end)" }
        let zone = start.hasSuffix("Z") && end.hasSuffix("Z") ? " UTC" : ""
        return a.date == b.date ? "\(a.date) \(a.time) → \(b.time)\(zone)" : "\(a.date) \(a.time) → \(b.date) \(b.time)\(zone)"
    }
}
