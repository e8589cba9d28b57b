/// Makes the first bytes of a progressive JPEG (up to the end of its DC
/// scans, `ProgressiveScanWatch`) a complete, valid JPEG, so that every
/// decoder reads it as it reads any file: the 1/8 DC path gives exactly
/// the DC image of the whole file (less any DC refinement bit not sent),
/// and libvips, if it gets the file, decodes it without a warning.
///
/// The tail it appends, after the prefix:
/// - `DRI 0`: the scans below have no restart markers;
/// - a comment naming the cut and the whole file's size, so that two
///   partial downloads hash alike only when their received bytes and their
///   whole sizes are equal (duplicates, PRODUCT.md);
/// - for each component whose DC came with a point transform Al > 0 and no
///   refinement yet: refinement scans (Al → 0) whose bits alternate 0 and 1
///   from block to block (a checkerboard): each block is still off by at
///   most one step of the bit, as when the bits are all 0, but the error no
///   longer leans one way (all 0 made the bench's photos 0.2 to 0.8 levels
///   darker), and the resize to the box averages neighbouring blocks, so
///   the thumbnail gets the bit's expected value, a half;
/// - for each component without AC data among coefficients 1...9: one AC
///   scan saying every block's coefficients are 0 (end-of-band runs), so
///   that libjpeg does not smooth its DC (jdcoefct.c), and the DC decode,
///   which refuses such files for that reason, takes it;
/// - EOI.
struct JPEGPrefixCompletion: Equatable, Sendable {
    struct Component: Equatable, Sendable {
        var id: UInt8
        var h: Int
        var v: Int
    }

    struct Frame: Equatable, Sendable {
        var width: Int
        var height: Int
        var components: [Component]

        /// Blocks of component `index` that hold pixels: what a scan of it
        /// alone covers (ITU T.81 A.2.2).
        func blocks(_ index: Int) -> Int {
            let grid = blockGrid(index)
            return grid.columns * grid.rows
        }

        func blockGrid(_ index: Int) -> (columns: Int, rows: Int) {
            let hmax = components.map(\.h).max() ?? 1, vmax = components.map(\.v).max() ?? 1
            let c = components[index]
            let w = (width * c.h + hmax - 1) / hmax, h = (height * c.v + vmax - 1) / vmax
            return ((w + 7) / 8, (h + 7) / 8)
        }
    }

    var frame: Frame
    /// The DC point transform each component has so far.
    var dcShift: [Int]
    /// The AC coefficients each component has had (bit k: coefficient k).
    var acSeen: [UInt64]

    /// The AC Huffman table slot the end-of-band scans use (AC table 0,
    /// redefined: no scan of the file comes after them).
    private static let acTable: UInt8 = 0

    /// The bytes to append to the first `cut` bytes of a file of `size`.
    func tail(cut: Int, size: Int64?) -> [UInt8] {
        var out: [UInt8] = []
        func segment(_ marker: UInt8, _ body: [UInt8]) {
            out += [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        segment(0xDD, [0, 0])
        let note = "thumbs: the first \(cut) bytes of \(size.map(String.init) ?? "unknown") (a partial download); the scans after them are all zero"
        segment(0xFE, Array(note.utf8))
        for (index, component) in frame.components.enumerated() where dcShift[index] > 0 {
            for ah in stride(from: dcShift[index], to: 0, by: -1) {
                segment(0xDA, [1, component.id, 0x00, 0, 0, UInt8(ah << 4 | (ah - 1))])
                var bits = BitWriter()
                let grid = frame.blockGrid(index)
                for row in 0..<grid.rows {
                    for column in 0..<grid.columns { bits.put(UInt32((row + column) & 1), count: 1) }
                }
                out += bits.finish()
            }
        }
        let lowBand: UInt64 = 0b11_1111_1110  // coefficients 1...9
        let bare = frame.components.indices.filter { acSeen[$0] & lowBand == 0 }
        if !bare.isEmpty {
            // 15 codes of 4 bits, 0000...1110, for EOBn (n = 0...14): a run
            // of 2^n + n extra bits end-of-band blocks.
            var table: [UInt8] = [0x10 | Self.acTable]
            table += (1...16).map { $0 == 4 ? 15 : 0 }
            table += (0..<15).map { UInt8($0 << 4) }
            segment(0xC4, table)
        }
        for index in bare {
            // Up to the first coefficient a scan sent (none of 1...9).
            let firstSeen = acSeen[index] == 0 ? 64 : acSeen[index].trailingZeroBitCount
            let last = min(63, firstSeen - 1)
            segment(0xDA, [1, frame.components[index].id, Self.acTable, 1, UInt8(last), 0x00])
            var bits = BitWriter()
            var left = frame.blocks(index)
            while left > 0 {
                let run = min(left, 32767)
                let n = Int.bitWidth - 1 - run.leadingZeroBitCount
                bits.put(UInt32(n), count: 4)
                bits.put(UInt32(run - (1 << n)), count: n)
                left -= run
            }
            out += bits.finish()
        }
        out += [0xFF, 0xD9]
        return out
    }
}

/// Entropy-coded bits, most significant first, 0xFF bytes stuffed with
/// 0x00, the last byte padded with 1 bits (ITU T.81 F.1.2.3, B.1.1.5).
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var accumulator: UInt32 = 0
    private var count = 0

    mutating func put(_ value: UInt32, count bits: Int) {
        for i in stride(from: bits - 1, through: 0, by: -1) {
            accumulator = accumulator << 1 | (value >> UInt32(i) & 1)
            count += 1
            if count == 8 { emit() }
        }
    }

    private mutating func emit() {
        let byte = UInt8(accumulator & 0xFF)
        bytes.append(byte)
        if byte == 0xFF { bytes.append(0x00) }
        accumulator = 0
        count = 0
    }

    mutating func finish() -> [UInt8] {
        if count > 0 {
            let pad = 8 - count
            accumulator = accumulator << UInt32(pad) | ((1 << UInt32(pad)) - 1)
            count = 8
            emit()
        }
        return bytes
    }
}
