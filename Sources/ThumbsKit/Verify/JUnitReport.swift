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

    /// The XML for the items of `manifest` and `result`'s findings.
    public static func xml(_ result: VerifyResult, manifest: Manifest) -> String {
        var byItem: [String: [VerifyFinding]] = [:]
        for finding in result.findings { byItem[finding.id, default: []].append(finding) }
        var cases: [Case] = []
        if let whole = byItem.removeValue(forKey: "") {
            cases.append(Case(classname: "manifest", name: "settings", findings: whole))
        }
        for item in manifest.items {
            let findings = byItem.removeValue(forKey: item.id) ?? []
            let sizes = item.outputs.map(\.size)
            guard !sizes.isEmpty else {
                cases.append(Case(classname: item.id, name: "item", findings: findings))
                continue
            }
            // A finding about one output goes to its size; one about the
            // item as a whole to its first size.
            for (index, output) in item.outputs.enumerated() {
                let own = findings.filter { finding in
                    finding.size == output.size || finding.path == output.path
                        || (index == 0 && !sizes.contains { $0 == finding.size } && !item.outputs.contains { $0.path == finding.path })
                }
                cases.append(Case(classname: item.id, name: output.size, findings: own))
            }
        }
        // Items only the baseline has: their findings, by id.
        for (id, findings) in byItem.sorted(by: { $0.key < $1.key }) {
            cases.append(Case(classname: id, name: "item", findings: findings))
        }
        let failures = cases.filter { !$0.findings.isEmpty }.count
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        out += "<testsuites name=\"thumbs verify\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\">\n"
        out += "  <testsuite name=\"\(attribute(result.manifest))\" tests=\"\(cases.count)\" failures=\"\(failures)\" errors=\"0\" skipped=\"0\">\n"
        for test in cases {
            out += "    <testcase classname=\"\(attribute(test.classname))\" name=\"\(attribute(test.name))\""
            guard !test.findings.isEmpty else {
                out += "/>\n"
                continue
            }
            out += ">\n"
            let first = test.findings[0]
            let body = test.findings.map(\.line).joined(separator: "\n")
            out += "      <failure message=\"\(attribute(VerifyFinding.oneLine(first.message)))\" type=\"\(first.kind.rawValue)\">"
                + text(body) + "</failure>\n"
            out += "    </testcase>\n"
        }
        out += "  </testsuite>\n</testsuites>\n"
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
