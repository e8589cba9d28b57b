/// Reads a JPEG's markers and scan headers while its download streams, and
/// says when every scan a 1/8-scale thumbnail needs has arrived: the first
/// DC pass of every component (issue 24).
///
/// A 1/8 decode (`jpeg-dc-progressive`) takes each block's DC coefficient
/// and nothing else; a progressive file sends those first (libjpeg's
/// standard script: one interleaved DC scan, about a sixth of the file;
/// mozjpeg-style files: one DC scan per component). A DC refinement scan
/// that comes only after AC scans (the standard script's seventh scan) is
/// not waited for: its bit is left 0 (`JPEGPrefixCompletion`), which moves
/// a pixel by at most quantiser/8 levels (measured in the tests and the
/// bench). Anything unusual makes the verdict `whole`: the file is then
/// downloaded whole, as before, and decoded as before.
///
/// Only markers and scan headers are parsed; entropy-coded data is searched
/// for the next marker, never decoded. Every read is bounded by `bytes`.
struct ProgressiveScanWatch {
    enum Verdict: Equatable {
        /// Keep feeding.
        case needMore
        /// The first `cut` bytes hold every scan the thumbnail needs: `tail`
        /// (`JPEGPrefixCompletion`) makes them a complete JPEG.
        case enough(cut: Int, completion: JPEGPrefixCompletion)
        /// Download it whole: not a progressive JPEG this path takes.
        case whole(reason: String)
        /// The file ended (EOI) before a cut: it arrived whole.
        case complete
    }

    /// Tells whether the thumbnails of a file with this header (the bytes up
    /// to and including the first SOS segment) come from the 1/8 DC decode.
    let acceptsHeader: ([UInt8]) -> Bool
    /// Bytes held at most while no verdict is reached.
    var limit = 48 << 20

    private(set) var verdict: Verdict = .needMore
    /// Everything received, until a verdict (then released).
    private var bytes: [UInt8] = []
    /// Where parsing resumes: a marker, or entropy-coded data.
    private var position = 0
    private var inEntropy = false
    private var frame: JPEGPrefixCompletion.Frame?
    /// Per component: the point transform of its DC coefficient so far
    /// (nil before its first DC pass), and the AC coefficients any scan
    /// sent (bit k for coefficient k).
    private var dcShift: [Int?] = []
    private var acSeen: [UInt64] = []
    private var headerChecked = false

    init(acceptsHeader: @escaping ([UInt8]) -> Bool) {
        self.acceptsHeader = acceptsHeader
    }

    /// Adds the next bytes of the body and returns the verdict so far; once
    /// it is not `needMore`, it stays as it is and bytes are not kept.
    @discardableResult
    mutating func feed(_ chunk: some Collection<UInt8>) -> Verdict {
        guard verdict == .needMore else { return verdict }
        bytes.append(contentsOf: chunk)
        verdict = parse()
        if verdict == .needMore, bytes.count > limit {
            verdict = .whole(reason: "no cut within the first \(limit >> 20) MiB")
        }
        if verdict != .needMore { bytes = [] }
        return verdict
    }

    // MARK: - Parsing

    private func u16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }

    private mutating func parse() -> Verdict {
        if position == 0 {
            guard bytes.count >= 2 else { return .needMore }
            guard bytes[0] == 0xFF, bytes[1] == 0xD8 else { return .whole(reason: "not a JPEG") }
            position = 2
        }
        while true {
            if inEntropy {
                guard let end = entropyEnd(from: position) else { return .needMore }
                inEntropy = false
                position = end
                if let frame, dcShift.allSatisfy({ $0 != nil }) {
                    return .enough(cut: end, completion: JPEGPrefixCompletion(
                        frame: frame, dcShift: dcShift.map { $0 ?? 0 }, acSeen: acSeen))
                }
                continue
            }
            // A marker: 0xFF, fill bytes 0xFF, then its code.
            var at = position
            guard at < bytes.count else { return .needMore }
            guard bytes[at] == 0xFF else { return .whole(reason: "no marker where one must be, at byte \(at)") }
            while at + 1 < bytes.count, bytes[at + 1] == 0xFF { at += 1 }
            guard at + 1 < bytes.count else { return .needMore }
            let marker = bytes[at + 1]
            if marker == 0xD9 { return .complete }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 || marker == 0xD8 || marker == 0x00 {
                return .whole(reason: "marker 0x\(String(marker, radix: 16)) out of place")
            }
            guard at + 4 <= bytes.count else { return .needMore }
            let length = u16(at + 2)
            guard length >= 2 else { return .whole(reason: "a segment of length \(length)") }
            let body = at + 4, end = at + 2 + length
            switch marker {
            case 0xC2:
                guard end <= bytes.count else { return .needMore }
                if let problem = readFrame(body, end) { return .whole(reason: problem) }
            case 0xC0, 0xC1, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                return .whole(reason: "not a progressive Huffman JPEG (SOF 0x\(String(marker, radix: 16)))")
            case 0xDA:
                guard end <= bytes.count else { return .needMore }
                if let problem = readScan(body, end) { return .whole(reason: problem) }
                if !headerChecked {
                    headerChecked = true
                    guard acceptsHeader(Array(bytes[0..<end])) else {
                        return .whole(reason: "its thumbnails need more than the DC scans")
                    }
                }
                inEntropy = true
            case 0xDC:
                return .whole(reason: "a DNL marker")
            default:
                break  // APPn, COM, DQT, DHT, DRI: skipped (the decoder reads them)
            }
            position = end
        }
    }

    /// The offset of the marker that ends entropy-coded data starting at
    /// `from` (0xFF not followed by 0x00 or RSTn), or nil before it arrived.
    /// Moves `position` past what was searched, so that each byte is
    /// searched once however the body is chunked.
    private mutating func entropyEnd(from: Int) -> Int? {
        var at = from
        while at < bytes.count {
            guard let index = bytes[at...].firstIndex(of: 0xFF) else { position = bytes.count; return nil }
            guard index + 1 < bytes.count else { position = index; return nil }
            let next = bytes[index + 1]
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                at = index + 2
                continue
            }
            return index
        }
        position = at
        return nil
    }

    private mutating func readFrame(_ body: Int, _ end: Int) -> String? {
        guard frame == nil else { return "a second frame header" }
        guard end - body >= 6, bytes[body] == 8 else { return "not 8-bit" }
        let height = u16(body + 1), width = u16(body + 3), count = Int(bytes[body + 5])
        guard width > 0, height > 0 else { return "no size in the frame header" }
        guard count == 1 || count == 3, end - body == 6 + 3 * count else { return "\(count) components" }
        var components: [JPEGPrefixCompletion.Component] = []
        for index in 0..<count {
            let at = body + 6 + 3 * index
            let h = Int(bytes[at + 1] >> 4), v = Int(bytes[at + 1] & 15)
            guard (1...4).contains(h), (1...4).contains(v) else { return "sampling factors \(h)x\(v)" }
            guard !components.contains(where: { $0.id == bytes[at] }) else { return "a component id twice" }
            components.append(.init(id: bytes[at], h: h, v: v))
        }
        frame = .init(width: width, height: height, components: components)
        dcShift = Array(repeating: nil, count: count)
        acSeen = Array(repeating: 0, count: count)
        return nil
    }

    /// One scan header, checked against the progression so far.
    private mutating func readScan(_ body: Int, _ end: Int) -> String? {
        guard let frame else { return "a scan before the frame header" }
        guard end - body >= 1 else { return "an empty scan header" }
        let count = Int(bytes[body])
        guard count >= 1, count <= frame.components.count, end - body == 4 + 2 * count else { return "a scan header of \(count) components" }
        var indices: [Int] = []
        for i in 0..<count {
            guard let index = frame.components.firstIndex(where: { $0.id == bytes[body + 1 + 2 * i] }),
                  !indices.contains(index) else { return "a scan of an unknown or repeated component" }
            indices.append(index)
        }
        let at = body + 1 + 2 * count
        let ss = Int(bytes[at]), se = Int(bytes[at + 1]), ah = Int(bytes[at + 2] >> 4), al = Int(bytes[at + 2] & 15)
        guard al <= 13 else { return "a point transform of \(al)" }
        if ss == 0 {
            guard se == 0 else { return "a scan of DC and AC together (Ss 0, Se \(se)) in a progressive file" }
            for index in indices {
                if ah == 0 {
                    guard dcShift[index] == nil else { return "a second first DC pass" }
                    dcShift[index] = al
                } else {
                    guard dcShift[index] == ah, al == ah - 1 else { return "a DC refinement out of order" }
                    dcShift[index] = al
                }
            }
        } else {
            guard count == 1, ss <= se, se <= 63 else { return "an AC scan of Ss \(ss), Se \(se) over \(count) components" }
            guard dcShift[indices[0]] != nil else { return "an AC scan before the component's DC" }
            let band: UInt64 = (se == 63 ? ~0 : (UInt64(1) << (se + 1)) - 1) & ~((UInt64(1) << ss) - 1)
            acSeen[indices[0]] |= band
        }
        return nil
    }
}
