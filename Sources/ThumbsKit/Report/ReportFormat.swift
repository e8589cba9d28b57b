import Foundation

/// Numbers as the report shows them: grouped digits, short byte sizes and
/// durations, compact axis labels.
enum ReportFormat {
    /// `text` escaped for HTML.
    static func escape(_ text: String) -> String {
        var out = ""
        out.appendEscaped(text)
        return out
    }

    static func int<T: BinaryInteger>(_ value: T) -> String { StatisticsTable.number(Double(value), digits: 0) }

    static func number(_ value: Double, digits: Int) -> String { StatisticsTable.number(value, digits: digits) }

    /// `12.3 MB` (decimal units).
    static func bytes(_ value: Int64) -> String {
        StatisticsTable.byteCount(value) { scaled in
            String(format: scaled < 10 ? "%.2f" : scaled < 100 ? "%.1f" : "%.0f", scaled)
        }
    }

    /// `850 ms`, `12.4 s`, `3 min 20 s`, `1 h 05 min`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 1 { return String(format: "%.0f ms", seconds * 1000) }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
        return String(format: "%d h %02d min", whole / 3600, whole % 3600 / 60)
    }

    /// `4,000`, `2.5`, `0.25`, `12k`, `1.5M`: short labels for axes.
    static func tick(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude >= 1_000_000 { return trimmed(value / 1_000_000) + "M" }
        if magnitude >= 10_000 { return trimmed(value / 1000) + "k" }
        if value.rounded() == value { return int(Int(value)) }
        return trimmed(value)
    }

    private static func trimmed(_ value: Double) -> String {
        var text = String(format: "%.2f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A coordinate with at most one decimal.
    static func coordinate(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? String(tenths / 10) : String(format: "%.1f", Double(tenths) / 10)
    }
}
