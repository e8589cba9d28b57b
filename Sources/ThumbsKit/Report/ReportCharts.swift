import Foundation

/// The report's charts as inline SVG, drawn from plain numbers. Colours and
/// fonts come from the page's CSS classes, so dark mode applies to them too.
///
/// Whatever the number of items, a chart stays small: the scatter plot draws
/// one mark per distinct size (at most `maxScatterMarks`), or a 2D histogram
/// beyond that; histograms have at most `maxBins` bars.
enum ReportCharts {
    static let width = 560.0
    static let height = 280.0
    /// The plot area inside the SVG.
    static let left = 58.0, right = width - 18, top = 14.0, bottom = height - 42
    static let maxScatterMarks = 2000
    static let maxBins = 40

    // MARK: Scatter

    /// Input width × height: a dot per distinct size (area grows with the
    /// number of images of that size), both axes on one scale so that the
    /// diagonal is "square".
    static func scatter(_ counts: [Int64: Int], images: Int, into out: inout String) {
        guard !counts.isEmpty else { return empty("no images", into: &out) }
        var largest = 1
        for key in counts.keys {
            largest = max(largest, Int(key >> 32), Int(key & 0xFFFF_FFFF))
        }
        let step = niceStep(Double(largest) / 5)
        let topValue = (Double(largest) / step).rounded(.up) * step
        let sx = (right - left) / topValue, sy = (bottom - top) / topValue
        open(label: "Input width by height of \(images) images", into: &out)
        axes(xMax: topValue, xStep: step, yMax: topValue, yStep: step, xTitle: "width (px)", yTitle: "height (px)", into: &out)
        // The diagonal: square images lie on it, landscape below, portrait above.
        out += "<line class=diag x1=\(c(left)) y1=\(c(bottom)) x2=\(c(right)) y2=\(c(top))></line>"
        out += "<text class=note x=\(c(left + 8)) y=\(c(top + 12))>portrait</text>"
        out += "<text class=note x=\(c(right - 4)) y=\(c(bottom - 8)) text-anchor=end>landscape</text>"

        if counts.count <= maxScatterMarks {
            // Largest marks first, so that rare sizes stay visible on top.
            let marks = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            for (key, n) in marks {
                let w = Double(key >> 32), h = Double(key & 0xFFFF_FFFF)
                let r = min(14, 3.5 + 2 * log2(Double(n)))
                out += "<circle class=dot cx=\(c(left + w * sx)) cy=\(c(bottom - h * sy)) r=\(c(r))><title>"
                out += "\(Int(w))×\(Int(h)): \(ReportFormat.int(n)) image\(n == 1 ? "" : "s")</title></circle>"
            }
        } else {
            // Too many distinct sizes for dots: count them in a grid of cells,
            // shaded on a log scale.
            let columns = 60, rows = 30
            let cellW = topValue / Double(columns), cellH = topValue / Double(rows)
            var grid = [Int](repeating: 0, count: columns * rows)
            for (key, n) in counts {
                let x = min(columns - 1, Int(Double(key >> 32) / cellW))
                let y = min(rows - 1, Int(Double(key & 0xFFFF_FFFF) / cellH))
                grid[y * columns + x] += n
            }
            let peak = log(1 + Double(grid.max() ?? 1))
            let pw = (right - left) / Double(columns), ph = (bottom - top) / Double(rows)
            for y in 0..<rows {
                for x in 0..<columns where grid[y * columns + x] > 0 {
                    let n = grid[y * columns + x]
                    let shade = 0.18 + 0.82 * log(1 + Double(n)) / peak
                    out += "<rect class=cell x=\(c(left + Double(x) * pw)) y=\(c(bottom - Double(y + 1) * ph)) width=\(c(pw)) height=\(c(ph)) fill-opacity=\(String(format: "%.2f", shade))>"
                    out += "<title>\(Int(Double(x) * cellW))–\(Int(Double(x + 1) * cellW)) × \(Int(Double(y) * cellH))–\(Int(Double(y + 1) * cellH)): \(ReportFormat.int(n)) images</title></rect>"
                }
            }
        }
        out += "</svg>"
    }

    /// Images per width × height in bounded memory: exact sizes while there
    /// are at most `limit` distinct ones; past that, sizes are rounded down
    /// to a coarser step (doubled each time the limit is reached again).
    /// The chart then draws cells of a 60 × 30 grid, far coarser than that.
    struct SizeCounts {
        static let limit = 50_000
        private(set) var counts: [Int64: Int] = [:]
        private(set) var images = 0
        private var step = 1

        mutating func add(width: Int, height: Int) {
            images += 1
            counts[key(width, height), default: 0] += 1
            if counts.count > Self.limit {
                step *= 2
                var coarser: [Int64: Int] = [:]
                for (key, n) in counts { coarser[self.key(Int(key >> 32), Int(key & 0xFFFF_FFFF)), default: 0] += n }
                counts = coarser
            }
        }

        private func key(_ width: Int, _ height: Int) -> Int64 {
            Int64(width / step * step) << 32 | Int64((height / step * step) & 0xFFFF_FFFF)
        }
    }

    // MARK: Histogram

    /// A histogram of `values` with nice bin edges. With many values the
    /// range stops at the 99th percentile, the last bar holding the rest.
    static func histogram(_ values: [Double], unit: String, noun: String, into out: inout String) {
        var sketch = QuantileSketch()
        for value in values { sketch.add(value) }
        histogram(sketch, unit: unit, noun: noun, into: &out)
    }

    /// The histogram of a sketch's values (`QuantileSketch`: each of its
    /// buckets counts at its smallest value, within 0.1 % of its values), so
    /// that the report of ten million items needs no list of them.
    static func histogram(_ sketch: QuantileSketch, unit: String, noun: String, into out: inout String) {
        guard sketch.count > 0 else { return empty("no \(noun)", into: &out) }
        let low = sketch.min, high = sketch.max
        let rangeEnd = sketch.count >= 200 ? sketch.value(atIndex: Int(Double(sketch.count - 1) * 0.99)) : high
        var step = niceStep((rangeEnd - low) / 24)
        if rangeEnd - low < step { step = niceStep(max(abs(low), 1e-9) / 10) }
        let start = (low / step).rounded(.down) * step
        var bins = Int(((rangeEnd - start) / step).rounded(.down)) + 1
        bins = min(maxBins, max(1, bins))
        var counts = [Int](repeating: 0, count: bins)
        var overflow = 0
        for (value, n) in sketch.ascendingBuckets {
            let index = Int(((value - start) / step).rounded(.down))
            if index >= bins { overflow += n }
            counts[min(bins - 1, max(0, index))] += n
        }
        let peak = counts.max() ?? 1
        let yStep = max(1, niceStep(Double(peak) / 4))  // counts: whole numbers only
        let yMax = max(yStep, (Double(peak) / yStep).rounded(.up) * yStep)
        let xMax = start + Double(bins) * step
        open(label: "Histogram of \(noun)", into: &out)
        axes(xMin: start, xMax: xMax, xStep: niceStep((xMax - start) / 7),
             yMax: yMax, yStep: yStep, xTitle: unit, yTitle: "images", into: &out)
        let bw = (right - left) / Double(bins)
        for (i, n) in counts.enumerated() where n > 0 {
            let h = Double(n) / yMax * (bottom - top)
            let from = start + Double(i) * step
            let last = i == bins - 1 && overflow > 0
            out += "<rect class=bar x=\(c(left + Double(i) * bw + 0.5)) y=\(c(bottom - h)) width=\(c(max(1, bw - 1.5))) height=\(c(h)) rx=1.5><title>"
            out += "\(ReportFormat.tick(from))\(last ? " and more" : "–" + ReportFormat.tick(from + step)) \(unit): \(ReportFormat.int(n)) image\(n == 1 ? "" : "s")</title></rect>"
        }
        if overflow > 0 {
            out += "<text class=note x=\(c(right - 4)) y=\(c(top + 12)) text-anchor=end>last bar includes \(ReportFormat.int(overflow)) above \(ReportFormat.tick(xMax)) \(unit)</text>"
        }
        out += "</svg>"
    }

    // MARK: Bars

    struct Bar {
        var label: String
        var value: Int
        /// A CSS class for the bar's colour: "", "ok", "bad", "warn", "muted".
        var tone: String = ""
    }

    /// Horizontal bars with their label on the left and value on the right.
    /// Labels may come from the manifest: they are escaped.
    /// `width` is the SVG's own: 560 for a half-width panel, 400 for a third.
    static func bars(_ bars: [Bar], label: String, empty emptyText: String, width: Double = 400, into out: inout String) {
        guard !bars.isEmpty else { return empty(emptyText, into: &out) }
        let rowHeight = 30.0, labelWidth = 112.0, valueWidth = 64.0
        let h = Double(bars.count) * rowHeight + 8
        let peak = Double(max(1, bars.map(\.value).max() ?? 1))
        out += "<svg class=chart viewBox=\"0 0 \(Int(width)) \(Int(h))\" role=img aria-label=\""
        out.appendEscaped(label)
        out += "\">"
        for (i, bar) in bars.enumerated() {
            let y = 4 + Double(i) * rowHeight
            let length = Double(bar.value) / peak * (width - labelWidth - valueWidth - 8)
            out += "<text class=blabel x=\(c(labelWidth - 10)) y=\(c(y + 19)) text-anchor=end>"
            out.appendEscaped(shorten(bar.label, to: 18))
            out += "</text><rect class=track x=\(c(labelWidth)) y=\(c(y + 6)) width=\(c(width - labelWidth - valueWidth - 8)) height=18 rx=4></rect>"
            if bar.value > 0 {
                out += "<rect class=\"bar \(bar.tone)\" x=\(c(labelWidth)) y=\(c(y + 6)) width=\(c(max(3, length))) height=18 rx=4><title>"
                out.appendEscaped(bar.label)
                out += ": \(ReportFormat.int(bar.value))</title></rect>"
            }
            out += "<text class=bvalue x=\(c(width - valueWidth + 4)) y=\(c(y + 19))>\(ReportFormat.int(bar.value))</text>"
        }
        out += "</svg>"
    }

    // MARK: Parts

    private static func open(label: String, into out: inout String) {
        out += "<svg class=chart viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=img aria-label=\""
        out.appendEscaped(label)
        out += "\">"
    }

    /// Grid lines, axes, tick labels and axis titles.
    private static func axes(xMin: Double = 0, xMax: Double, xStep: Double, yMax: Double, yStep: Double,
                             xTitle: String, yTitle: String, into out: inout String) {
        let sx = (right - left) / (xMax - xMin), sy = (bottom - top) / yMax
        var y = 0.0
        while y <= yMax + yStep / 1000 {
            let py = bottom - y * sy
            out += "<line class=grid x1=\(c(left)) y1=\(c(py)) x2=\(c(right)) y2=\(c(py))></line>"
            out += "<text x=\(c(left - 8)) y=\(c(py + 4)) text-anchor=end>\(ReportFormat.tick(y))</text>"
            y += yStep
        }
        // Ticks on round values (multiples of the step), wherever the axis starts.
        var x = (xMin / xStep - 1e-9).rounded(.up) * xStep
        while x <= xMax + xStep / 1000 {
            let px = left + (x - xMin) * sx
            out += "<line class=tick x1=\(c(px)) y1=\(c(bottom)) x2=\(c(px)) y2=\(c(bottom + 5))></line>"
            out += "<text x=\(c(px)) y=\(c(bottom + 18)) text-anchor=middle>\(ReportFormat.tick(x))</text>"
            x += xStep
        }
        out += "<line class=axis x1=\(c(left)) y1=\(c(bottom)) x2=\(c(right)) y2=\(c(bottom))></line>"
        out += "<line class=axis x1=\(c(left)) y1=\(c(top)) x2=\(c(left)) y2=\(c(bottom))></line>"
        out += "<text class=atitle x=\(c((left + right) / 2)) y=\(c(height - 6)) text-anchor=middle>"
        out.appendEscaped(xTitle)
        out += "</text><text class=atitle transform=\"translate(14 \(c((top + bottom) / 2))) rotate(-90)\" text-anchor=middle>"
        out.appendEscaped(yTitle)
        out += "</text>"
    }

    private static func empty(_ text: String, into out: inout String) {
        out += "<p class=empty>"
        out.appendEscaped(text)
        out += "</p>"
    }

    /// 1, 2, 2.5 or 5 times a power of ten, at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let magnitude = pow(10, (log10(raw)).rounded(.down))
        let fraction = raw / magnitude
        let nice: Double = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10
        return nice * magnitude
    }

    private static func shorten(_ text: String, to length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }

    private static func c(_ value: Double) -> String { ReportFormat.coordinate(value) }
}
