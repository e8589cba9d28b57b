import Foundation

/// `verify` on GitHub Actions (`GITHUB_ACTIONS=true`): each finding is also
/// an `::error file=…,title=…::message` workflow command, which GitHub shows
/// on the run and on the pull request's files; and with
/// `$GITHUB_STEP_SUMMARY` set, a Markdown summary is appended to that file.
public enum GitHubReport {
    /// One workflow command per finding. `file` is the output's path as the
    /// job sees it (the manifest's folder joined to the output's path).
    public static func annotations(_ result: VerifyResult) -> [String] {
        let folder = ManifestVerifier.folder(of: result.manifest)
        return result.findings.map { finding in
            var properties: [String] = []
            if let path = finding.path {
                properties.append("file=" + property(folder == "." ? path : folder + "/" + path))
            }
            properties.append("title=" + property("thumbs verify: " + finding.kind.rawValue))
            let subject = finding.id.isEmpty ? "" : finding.id + (finding.size.map { " " + $0 } ?? "") + ": "
            return "::error " + properties.joined(separator: ",") + "::" + data(subject + finding.message)
        }
    }

    /// A command's message: `%`, CR and LF escaped (GitHub's toolkit,
    /// `escapeData`).
    static func data(_ text: String) -> String {
        text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    /// A property's value: also `:` and `,` (`escapeProperty`).
    static func property(_ text: String) -> String {
        data(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
    }

    /// The step summary: the count line and a table of the findings (the
    /// first 200; the count says how many more).
    public static func summary(_ result: VerifyResult) -> String {
        var out = "### thumbs verify\n\n" + (result.isClean ? "✅ " : "❌ ") + cell(result.summary) + "\n\n"
        guard !result.isClean else { return out }
        out += "| finding | item | size | what |\n|---|---|---|---|\n"
        for finding in result.findings.prefix(200) {
            out += "| \(finding.kind.rawValue) | \(cell(finding.id)) | \(cell(finding.size ?? "")) | \(cell(finding.message)) |\n"
        }
        if result.findings.count > 200 { out += "\n…and \(result.findings.count - 200) more.\n" }
        return out + "\n"
    }

    /// Text for a Markdown table cell: one line, no `|`, no HTML.
    static func cell(_ text: String) -> String {
        VerifyFinding.oneLine(text).replacingOccurrences(of: "|", with: "\\|")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
