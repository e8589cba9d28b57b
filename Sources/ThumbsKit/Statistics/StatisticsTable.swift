import Foundation

/// `thumbs stats`: the statistics as aligned text blocks, one per part of
/// stats.json (counts, downloads, dimensions, formats, bytes, time, source
/// fields). Numbers are right-aligned, with thousands separators.
public struct StatisticsTable: Sendable {
    public var statistics: Statistics
    /// Printed first (the manifest's path), when given.
    public var title: String?

    public init(_ statistics: Statistics, title: String? = nil) {
        self.statistics = statistics
        self.title = title
    }

    public func render() -> String {
        let s = statistics
        var blocks: [String] = []
        if let title { blocks.append(title) }

        let c = s.counts
        blocks.append(TextTable(header: ["images", ""], rows: [
            ["discovered", Self.int(c.discovered)], ["ok", Self.int(c.ok)], ["unchanged", Self.int(c.unchanged)],
            ["duplicate", Self.int(c.duplicate)], ["failed", Self.int(c.failed)], ["ignored files", Self.int(c.ignored)],
        ] + (c.unreadable > 0 ? [["unreadable", Self.int(c.unreadable)]] : [])
          + (c.warnings > 0 ? [["with warnings", Self.int(c.warnings)]] : [])).render())

        if let r = s.read {
            // Bytes read of file sources, next to the downloads.
            blocks.append(TextTable(header: ["read", ""], rows: [
                ["bytes", Self.bytes(r.bytes)], ["partial", Self.int(r.partial)], ["bytes saved", Self.bytes(r.bytesSaved)],
            ]).render())
        }

        let d = s.downloads
        if d.requests == 0 && d.pages == 0 {
            blocks.append(TextTable(header: ["downloads", "none"], rows: []).render())
        } else {
            var rows = [
                ["requests", Self.int(d.requests)], ["ok", Self.int(d.ok)], ["failed", Self.int(d.failed)],
                ["retries", Self.int(d.retries)], ["not modified", Self.int(d.notModified)],
                ["bytes", Self.bytes(d.bytes)], ["list pages", Self.int(d.pages)],
            ]
            if d.partial > 0 {
                rows += [["partial", Self.int(d.partial)], ["bytes saved", Self.bytes(d.bytesSaved)]]
            }
            for status in d.byStatus.sortedKeys {
                rows.append(["HTTP \(status)", Self.int(d.byStatus[status] ?? 0)])
            }
            blocks.append(TextTable(header: ["downloads", ""], rows: rows).render())
        }

        let dims = s.dimensions
        let summaryHeader = ["dimensions", "count", "min", "p50", "p95", "max", "mean"]
        blocks.append(TextTable(header: summaryHeader, rows: [
            Self.summaryRow("input width", dims.input.width, digits: 0),
            Self.summaryRow("input height", dims.input.height, digits: 0),
            Self.summaryRow("input megapixels", dims.input.megapixels, digits: 2),
            Self.summaryRow("output width", dims.output.width, digits: 0),
            Self.summaryRow("output height", dims.output.height, digits: 0),
        ]).render())
        blocks.append(TextTable(header: ["shape", ""], rows: [
            ["landscape", Self.int(dims.shape.landscape)], ["portrait", Self.int(dims.shape.portrait)],
            ["square", Self.int(dims.shape.square)],
        ]).render())

        let names = Set(s.formats.input.values.keys).union(s.formats.output.values.keys).sorted()
        blocks.append(TextTable(header: ["formats", "input", "output"], rows: names.isEmpty ? [["none", "", ""]] : names.map {
            [$0, Self.int(s.formats.input[$0] ?? 0), Self.int(s.formats.output[$0] ?? 0)]
        }).render())

        let ratio = s.bytes.input > 0 ? String(format: "%.1f%% of input", Double(s.bytes.output) / Double(s.bytes.input) * 100) : ""
        blocks.append(TextTable(header: ["bytes", "", "", ""], rows: [
            ["input", Self.shortBytes(s.bytes.input), Self.int(s.bytes.input), ""],
            ["output", Self.shortBytes(s.bytes.output), Self.int(s.bytes.output), ratio],
        ]).render())

        let t = s.time
        blocks.append(TextTable(header: ["time", ""], rows: [
            ["wall", Self.duration(t.wallSeconds)], ["images/s", Self.number(t.imagesPerSecond, digits: 1)],
        ]).render())
        blocks.append(TextTable(header: ["per image (ms)", "count", "min", "p50", "p95", "max", "mean"], rows: [
            Self.summaryRow("decode + encode", t.perImageMs, digits: 1),
        ]).render())
        blocks.append(TextTable(header: ["look-alikes", ""], rows: [
            ["groups", Self.int(s.similar.groups)], ["images in them", Self.int(s.similar.images)],
        ]).render())
        blocks.append(TextTable(header: ["decoded by", "images"], rows: DecodePath.allCases.map {
            [$0.rawValue, Self.int(s.decoders[$0.rawValue] ?? 0)]
        }).render())

        if !s.source.isEmpty {
            blocks.append(TextTable(header: ["list fields", "count", "min", "p50", "p95", "max", "mean", "total"], rows: s.source.sortedKeys.map { key in
                let summary = s.source[key]!
                return Self.summaryRow(key, summary, digits: Self.integral(summary) ? 0 : 2)
                    + [summary.total.map { Self.number($0, digits: Self.integral(summary) ? 0 : 2) } ?? ""]
            }).render())
        }
        return blocks.joined(separator: "\n") + ""
    }

    static func summaryRow(_ label: String, _ summary: Summary, digits: Int) -> [String] {
        guard summary.count > 0 else { return [label, "0", "", "", "", "", ""] }
        return [label, int(summary.count), number(summary.min, digits: digits), number(summary.p50, digits: digits),
                number(summary.p95, digits: digits), number(summary.max, digits: digits),
                number(summary.mean, digits: max(digits, 1))]
    }

    static func integral(_ summary: Summary) -> Bool {
        [summary.min, summary.max, summary.p50, summary.p95].allSatisfy { $0.rounded() == $0 }
    }

    static func int<T: BinaryInteger>(_ value: T) -> String { number(Double(value), digits: 0) }

    /// `12,345.6`: fixed digits with thousands separators, the same on every machine.
    static func number(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        let text = String(format: "%.\(digits)f", abs(value))
        let parts = text.split(separator: ".", maxSplits: 1)
        var whole = String(parts[0])
        var grouped = ""
        while whole.count > 3 {
            grouped = "," + whole.suffix(3) + grouped
            whole.removeLast(3)
        }
        grouped = whole + grouped
        let sign = value < 0 && text.contains(where: { $0 != "0" && $0 != "." }) ? "-" : ""
        return sign + grouped + (parts.count > 1 ? "." + parts[1] : "")
    }

    /// `1.2 MB (1,234,567)`: decimal units, with the exact count.
    static func bytes(_ value: Int64) -> String {
        let short = shortBytes(value)
        return value < 1000 ? short : "\(short) (\(int(value)))"
    }

    /// `1.2 MB`: decimal units.
    static func shortBytes(_ value: Int64) -> String {
        byteCount(value) { scaled in String(format: "%.1f", scaled) }
    }

    /// `value` in decimal units (B, KB, MB…), the number formatted by `digits`.
    static func byteCount(_ value: Int64, digits: (Double) -> String) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var scaled = Double(value)
        var unit = 0
        while scaled >= 1000 && unit < units.count - 1 {
            scaled /= 1000
            unit += 1
        }
        return unit == 0 ? "\(value) B" : digits(scaled) + " " + units[unit]
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return String(format: "%.2f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return "\(whole / 3600) h \(whole % 3600 / 60) min"
    }
}

/// A block of rows with a header line: the first column left-aligned and
/// indented under the header, the others right-aligned.
struct TextTable {
    var header: [String]
    var rows: [[String]]

    func render() -> String {
        let columns = max(header.count, rows.map(\.count).max() ?? 0)
        var widths = [Int](repeating: 0, count: columns)
        let indent = "  "
        for (i, cell) in header.enumerated() { widths[i] = max(widths[i], cell.count) }
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count + (i == 0 ? indent.count : 0)) }
        }
        func line(_ cells: [String], first: String) -> String {
            var out = (first + cells[0]).padding(toLength: widths[0], withPad: " ", startingAt: 0)
            for i in 1..<columns {
                let cell = i < cells.count ? cells[i] : ""
                out += "  " + String(repeating: " ", count: max(0, widths[i] - cell.count)) + cell
            }
            return String(out.reversed().drop(while: { $0 == " " }).reversed())
        }
        var lines = [line(header, first: "")]
        for row in rows { lines.append(line(row, first: indent)) }
        return lines.joined(separator: "\n") + "\n"
    }
}
