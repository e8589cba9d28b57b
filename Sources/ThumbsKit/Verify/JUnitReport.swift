import Foundation

/// `verify --junit FILE`: JUnit XML, which GitLab, Jenkins and most CI
/// systems show natively. One test case per item and output size
/// (`classname` the item's id, `name` the size), failing with the findings
/// about it; an item without outputs (a failed one) is one test case named
/// `item`; findings about the whole manifest (settings) and about items
/// only in the baseline are test cases of their own. The shape follows the
/// common JUnit schema (Tests/Fixtures/junit/junit.xsd checks it).
public enum JUnitReport {
    struct Case {
        var classname: String
        var name: String
        var findings: [VerifyFinding]
    }

    /// Writes the XML for the manifest at `path` (read item by item, twice:
    /// the counts come first in the file) and `result`'s findings to `file`.
    public static func write(_ result: VerifyResult, manifestAt path: String, to file: String) throws(RunError) {
        guard FileManager.default.createFile(atPath: file, contents: nil), let handle = FileHandle(forWritingAtPath: file) else {
            throw .usage("cannot write \(file): \(errnoText(errno))")
        }
        defer { try? handle.close() }
        var pending = ""
        try emit(result, items: { (body: (ManifestItem) -> Void) throws(RunError) in
            let cursor = try ManifestSource.open(path).items()
            while let item = try cursor.next() { body(item) }
        }, out: { text in
            pending += text
            if pending.utf8.count >= 1 << 16 {
                handle.write(Data(pending.utf8))
                pending = ""
            }
        })
        handle.write(Data(pending.utf8))
    }

    /// The XML for the items of `manifest` and `result`'s findings.
    public static func xml(_ result: VerifyResult, manifest: Manifest) -> String {
        var out = ""
        try? emit(result, items: { body in manifest.items.forEach(body) }, out: { out += $0 })
        return out
    }

    /// Emits the XML: `items` walks the manifest's items (twice).
    static func emit(_ result: VerifyResult, items: ((ManifestItem) -> Void) throws(RunError) -> Void,
                     out: @escaping (String) -> Void) throws(RunError) {
        var byItem: [String: [VerifyFinding]] = [:]
        for finding in result.findings { byItem[finding.id, default: []].append(finding) }
        let whole = byItem.removeValue(forKey: "")
        // First pass: how many test cases, and how many fail.
        var total = whole == nil ? 0 : 1, failures = whole == nil ? 0 : 1
        var seen = Set<String>()
        try items { item in
            let own = byItem[item.id]
            if own != nil { seen.insert(item.id) }
            for test in cases(item, own ?? []) {
                total += 1
                if !test.findings.isEmpty { failures += 1 }
            }
        }
        let baselineOnly = byItem.filter { !seen.contains($0.key) }.sorted { $0.key < $1.key }
        total += baselineOnly.count
        failures += baselineOnly.count
        out("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        out("<testsuites name=\"thumbs verify\" tests=\"\(total)\" failures=\"\(failures)\" errors=\"0\">\n")
        out("  <testsuite name=\"\(attribute(result.manifest))\" tests=\"\(total)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\">\n")
        if let whole { out(xml(Case(classname: "manifest", name: "settings", findings: whole))) }
        try items { item in
            for test in cases(item, byItem[item.id] ?? []) { out(xml(test)) }
        }
        // Items only the baseline has: their findings, by id.
        for (id, findings) in baselineOnly { out(xml(Case(classname: id, name: "item", findings: findings))) }
        out("  </testsuite>\n</testsuites>\n")
    }

    /// The test cases of one item: one per output size; a finding about one
    /// output goes to its size, one about the item as a whole to its first.
    static func cases(_ item: ManifestItem, _ findings: [VerifyFinding]) -> [Case] {
        let sizes = item.outputs.map(\.size)
        guard !sizes.isEmpty else { return [Case(classname: item.id, name: "item", findings: findings)] }
        return item.outputs.enumerated().map { index, output in
            let own = findings.filter { finding in
                finding.size == output.size || finding.path == output.path
                    || (index == 0 && !sizes.contains { $0 == finding.size } && !item.outputs.contains { $0.path == finding.path })
            }
            return Case(classname: item.id, name: output.size, findings: own)
        }
    }

    static func xml(_ test: Case) -> String {
        var out = "    <testcase classname=\"\(attribute(test.classname))\" name=\"\(attribute(test.name))\""
        guard let first = test.findings.first else { return out + "/>\n" }
        let body = test.findings.map(\.line).joined(separator: "\n")
        out += ">\n      <failure message=\"\(attribute(VerifyFinding.oneLine(first.message)))\" type=\"\(first.kind.rawValue)\">"
            + text(body) + "</failure>\n    </testcase>\n"
        return out
    }

    /// Text for XML: the five special characters escaped, and characters
    /// XML 1.0 cannot hold at all (most controls) replaced by U+FFFD.
    static func text(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                let v = scalar.value
                out.unicodeScalars.append(v < 0x20 || (0xFFFE...0xFFFF).contains(v) ? "\u{FFFD}" : scalar)
            }
        }
        return out
    }

    static func attribute(_ value: String) -> String {
        text(value).replacingOccurrences(of: "\n", with: "&#10;").replacingOccurrences(of: "\r", with: "&#13;")
            .replacingOccurrences(of: "\t", with: "&#9;")
    }
}
