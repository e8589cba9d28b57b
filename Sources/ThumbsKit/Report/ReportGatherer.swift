import Foundation

/// What the report needs from every item, gathered in one pass in memory
/// that does not grow with the items: the charts' counts and sketches, the
/// first look-alike groups with their first members' tiles, how many tiles
/// the grid has, and the rows of the failures' and the warnings' tables,
/// which go to a `ReportSpool` each
/// (a string for a run, a file for a merge of millions). A run gathers when
/// its report is written (`ReportWriter`); a merge gathers while it writes
/// its manifest (`MergedManifestWriter`), so its report needs no full pass.
final class ReportGatherer {
    var sizes = ReportCharts.SizeCounts()
    var megapixels = QuantileSketch()
    var times = QuantileSketch()
    /// Items with a tile in the grid.
    var shown = 0
    /// The first `lookalikeGroupLimit` groups by their first member.
    var groups: [String] = []
    var members: [String: (tiles: [String], shown: Int)] = [:]
    /// The rows of the failures table, in chunks (`ReportStyle.chunkSize`).
    let failureRows: ReportSpool
    private(set) var failures = 0
    /// The rows of the warnings table (an item made, with a warning each
    /// row), in chunks as the failures'.
    let warningRows: ReportSpool
    private(set) var warnings = 0

    init(spool: ReportSpool = ReportSpool(), warningSpool: ReportSpool = ReportSpool()) {
        failureRows = spool
        warningRows = warningSpool
    }

    func add(_ item: ManifestItem) {
        if item.status == .ok { times.add(item.ms) }
        if item.status == .failed {
            addFailure(item)
        } else {
            for warning in item.warnings ?? [] { addWarning(warning, of: item) }
            if !item.outputs.isEmpty { shown += 1 }
            if let w = item.width, let h = item.height {
                sizes.add(width: w, height: h)
                megapixels.add(Double(w) * Double(h) / 1_000_000)
            }
        }
        addToGroup(item)
    }

    /// The look-alike part of `add`, for an item whose `similarTo` is set
    /// after its other facts were gathered (a run groups once all its items
    /// are known: `RunResults`).
    func addToGroup(_ item: ManifestItem) {
        guard let first = item.similarTo?.id else { return }
        if members[first] == nil, groups.count < ReportStyle.lookalikeGroupLimit {
            groups.append(first)
            members[first] = ([], 0)
        }
        if members[first] != nil, !item.outputs.isEmpty {
            if members[first]!.shown < ReportStyle.lookalikeMemberLimit {
                var tile = ""
                ReportWriter.tile(item, asImage: true, distance: item.similarTo?.distance, into: &tile)
                members[first]!.tiles.append(tile)
            }
            members[first]!.shown += 1
        }
    }

    /// Whether `addToGroup` would make a tile of a member of the group
    /// that starts with `first` (else `countInGroup` does its part).
    func wantsTile(inGroupOf first: String) -> Bool {
        guard let group = members[first] else { return groups.count < ReportStyle.lookalikeGroupLimit }
        return group.shown < ReportStyle.lookalikeMemberLimit
    }

    /// `addToGroup` for a member that gets no tile.
    func countInGroup(of first: String, hasOutputs: Bool) {
        if members[first] != nil, hasOutputs { members[first]!.shown += 1 }
    }

    private func addFailure(_ item: ManifestItem) {
        var out = ""
        Self.openChunk(row: failures, code: "Code", message: "What went wrong", into: &out)
        failures += 1
        Self.row(item, code: item.error?.code ?? "unknown", message: item.error?.message ?? "no message recorded", into: &out)
        failureRows.append(out)
    }

    private func addWarning(_ warning: String, of item: ManifestItem) {
        var out = ""
        Self.openChunk(row: warnings, code: "Status", message: "What was done instead", into: &out)
        warnings += 1
        // The pill shows the item's status in that status's colour: a
        // warned item was made, so not in the failures' red.
        Self.row(item, code: item.status.rawValue, pill: item.status.rawValue, message: warning, into: &out)
        warningRows.append(out)
    }

    /// Starts a chunk of a table before its row number `row`, when one
    /// starts there (every `ReportStyle.chunkSize` rows).
    private static func openChunk(row: Int, code: String, message: String, into out: inout String) {
        guard row % ReportStyle.chunkSize == 0 else { return }
        if row > 0 { out += "</tbody></table></div>\n" }
        // The first chunk is usually on screen: only later ones skip layout.
        out += row == 0 ? "<div>" : "<div class=\"chunk rows\">"
        out += "<table><colgroup><col class=c1><col class=c2><col></colgroup>"
        if row == 0 { out += "<thead><tr><th>Image</th><th>\(code)</th><th>\(message)</th></tr></thead>" }
        out += "<tbody>\n"
    }

    /// One row: the item, a short code, a message. `pill` names the code's
    /// colour (ReportStyle's `.code.ok` and the like); none is the
    /// failures' red.
    private static func row(_ item: ManifestItem, code: String, pill: String? = nil, message: String, into out: inout String) {
        out += "<tr><td><code>"
        out.appendEscaped(item.id)
        out += "</code>"
        if item.source != item.id && !item.source.hasSuffix("/" + item.id) {
            out += "<small>"
            out.appendEscaped(item.source)
            out += "</small>"
        }
        if let pill {
            out += "</td><td><span class=\"code "
            out.appendEscaped(pill)
            out += "\">"
        } else {
            out += "</td><td><span class=code>"
        }
        out.appendEscaped(code)
        out += "</span></td><td>"
        out.appendEscaped(message)
        out += "</td></tr>\n"
    }

    /// Closes the last chunk of the failures and the warnings tables.
    func finish() {
        if failures > 0 { failureRows.append("</tbody></table></div>\n") }
        if warnings > 0 { warningRows.append("</tbody></table></div>\n") }
    }
}

/// Text written once and read back once, in order: in memory, or in a file
/// (`ReportSpool(file:)`) whose size does not count against memory.
final class ReportSpool {
    private var text = ""
    private let fd: Int32?
    private let path: String?
    private var pending = ""
    private(set) var failure: String?

    init() {
        fd = nil
        path = nil
    }

    /// A spool in a new file at `path`, removed when the spool goes.
    init(file path: String) throws(RunError) {
        do {
            fd = try FileDescriptor.open(path, .readWrite, [.create, .exclusive], permissions: 0o600)
        } catch {
            throw .fatal("cannot write \(path): \(error.text)")
        }
        self.path = path
    }

    deinit {
        if let fd { try? FileDescriptor.close(fd) }
        if let path { try? PathChanges.remove(path) }
    }

    func append(_ piece: String) {
        guard fd != nil else { text += piece; return }
        pending += piece
        if pending.utf8.count >= 1 << 18 { flush() }
    }

    private func flush() {
        guard let fd, failure == nil, !pending.isEmpty else { return }
        var piece = pending
        let error = piece.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
        if error != 0 { failure = "cannot write \(path ?? ""): \(errnoText(error))" }
        pending.removeAll(keepingCapacity: true)
    }

    /// Hands the text out in pieces of about `ReportWriter.pieceSize`.
    func replay(_ emit: (String) -> Void) {
        guard let fd else {
            if !text.isEmpty { emit(text) }
            return
        }
        flush()
        var offset = 0
        var buffer = [UInt8](repeating: 0, count: ReportWriter.pieceSize)
        while failure == nil {
            var n = 0
            buffer.withUnsafeMutableBytes { raw in
                do throws(SystemError) {
                    n = try FileDescriptor.read(fd, into: raw.baseAddress!, count: raw.count, at: offset)
                } catch {
                    failure = "cannot read \(path ?? ""): \(error.text)"
                }
            }
            if failure != nil { break }
            if n == 0 { break }
            // Pieces end on a whole UTF-8 character: a character cut by
            // the buffer's end starts the next piece.
            var end = n
            var lead = n - 1
            while lead > 0 && (buffer[lead] & 0xC0) == 0x80 { lead -= 1 }
            let byte = buffer[lead]
            let length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4
            if lead + length > n && lead > 0 { end = lead }
            emit(String(decoding: buffer[0..<end], as: UTF8.self))
            offset += end
        }
    }
}
