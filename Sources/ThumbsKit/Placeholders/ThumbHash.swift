import Foundation

/// A ThumbHash (evanw/thumbhash): a ~25-byte DCT summary of an image, with
/// its aspect ratio and alpha, from which a client renders a blurred
/// placeholder.
///
/// This is a port of the reference encoder `rgbaToThumbHash` in its
/// JavaScript form: double-precision arithmetic, and `Math.round`, which for
/// the non-negative values rounded here is `.toNearestOrAwayFromZero` (as
/// Rust's `round` too). The Python ports round halves to even instead, which
/// only matters for exact halves (see PlaceholderVectorTests).
public struct ThumbHash: Sendable, Hashable {
    /// The hash bytes, as the reference returns them.
    public let bytes: [UInt8]

    /// Standard base64 with padding, as the reference's demo page, Immich and
    /// the PyPI ports (`b64encode`) write it.
    public var base64: String { Data(bytes).base64EncodedString() }

    public enum EncodingError: Error, Equatable {
        /// The reference refuses images larger than 100×100: reduce first.
        case tooLarge(width: Int, height: Int)
    }

    /// The largest side the reference encoder accepts.
    public static let maximumSide = 100

    /// Encodes `pixels` (RGBA, RGB or grey; RGB and grey count as opaque).
    /// The image must fit in 100×100.
    public init(encoding pixels: PixelBuffer) throws {
        let w = pixels.width, h = pixels.height
        guard w <= Self.maximumSide, h <= Self.maximumSide else {
            throw EncodingError.tooLarge(width: w, height: h)
        }
        let n = w * h
        var red = [Double](repeating: 0, count: n)
        var green = [Double](repeating: 0, count: n)
        var blue = [Double](repeating: 0, count: n)
        var alpha = [Double](repeating: 1, count: n)
        Self.unpack(pixels, red: &red, green: &green, blue: &blue, alpha: &alpha)

        // The average colour, weighted by alpha.
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<n {
            let a = alpha[i]
            avgR += a / 255 * red[i]
            avgG += a / 255 * green[i]
            avgB += a / 255 * blue[i]
            avgA += a
        }
        if avgA > 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }

        let hasAlpha = avgA < Double(n)
        let lLimit = hasAlpha ? 5 : 7  // fewer luminance terms when alpha needs room
        let maxSide = Double(max(w, h))
        let lx = max(1, Int(Self.round(Double(lLimit * w) / maxSide)))
        let ly = max(1, Int(Self.round(Double(lLimit * h) / maxSide)))

        // RGBA -> LPQA, composited atop the average colour.
        var l = [Double](repeating: 0, count: n)  // luminance
        var p = [Double](repeating: 0, count: n)  // yellow - blue
        var q = [Double](repeating: 0, count: n)  // red - green
        for i in 0..<n {
            let a = alpha[i]
            let r = avgR * (1 - a) + a / 255 * red[i]
            let g = avgG * (1 - a) + a / 255 * green[i]
            let b = avgB * (1 - a) + a / 255 * blue[i]
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
        }

        let cosines = Cosines(width: w, height: h, frequencies: max(7, lx, ly))
        let lChannel = Self.encodeChannel(l, cosines, nx: max(3, lx), ny: max(3, ly))
        let pChannel = Self.encodeChannel(p, cosines, nx: 3, ny: 3)
        let qChannel = Self.encodeChannel(q, cosines, nx: 3, ny: 3)
        let aChannel = hasAlpha ? Self.encodeChannel(alpha, cosines, nx: 5, ny: 5) : nil

        let isLandscape = w > h
        let header24 = Int(Self.round(63 * lChannel.dc))
            | (Int(Self.round(31.5 + 31.5 * pChannel.dc)) << 6)
            | (Int(Self.round(31.5 + 31.5 * qChannel.dc)) << 12)
            | (Int(Self.round(31 * lChannel.scale)) << 18)
            | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx)
            | (Int(Self.round(63 * pChannel.scale)) << 3)
            | (Int(Self.round(63 * qChannel.scale)) << 9)
            | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8((header24 >> 16) & 255),
            UInt8(header16 & 255), UInt8((header16 >> 8) & 255),
        ]
        if let aChannel {
            hash.append(UInt8(Int(Self.round(15 * aChannel.dc)) | (Int(Self.round(15 * aChannel.scale)) << 4)))
        }
        // The AC terms, four bits each, low nibble first.
        var isOdd = false
        for ac in [lChannel.ac, pChannel.ac, qChannel.ac, aChannel?.ac ?? []] {
            for f in ac {
                let u = UInt8(Int(Self.round(15 * f)))
                if isOdd {
                    hash[hash.count - 1] |= u << 4
                } else {
                    hash.append(u)
                }
                isOdd.toggle()
            }
        }
        bytes = hash
    }

    /// `Math.round` for the non-negative values the encoder rounds.
    private static func round(_ x: Double) -> Double { x.rounded(.toNearestOrAwayFromZero) }

    private static func unpack(_ pixels: PixelBuffer, red: inout [Double], green: inout [Double],
                               blue: inout [Double], alpha: inout [Double]) {
        let c = pixels.layout.channels
        pixels.bytes.withUnsafeBufferPointer { px in
            for i in 0..<pixels.pixelCount {
                let o = i * c
                switch pixels.layout {
                case .grey:
                    red[i] = Double(px[o]); green[i] = red[i]; blue[i] = red[i]
                case .rgb, .rgba:
                    red[i] = Double(px[o]); green[i] = Double(px[o + 1]); blue[i] = Double(px[o + 2])
                    if c == 4 { alpha[i] = Double(px[o + 3]) / 255 }
                }
            }
        }
    }

    /// cos(π/w · cx · (x + 0.5)) and cos(π/h · cy · (y + 0.5)) for every
    /// frequency the channels use, computed once per image: the reference
    /// computes them again for each term of each channel (about 7,000 `cos`
    /// calls for a 100×75 image), with the same expressions, so the values
    /// are the same bits.
    struct Cosines {
        let width: Int, height: Int
        /// Row `cx`: the `width` values for horizontal frequency `cx`.
        let x: [Double]
        /// Row `cy`: the `height` values for vertical frequency `cy`.
        let y: [Double]

        init(width w: Int, height h: Int, frequencies n: Int) {
            width = w
            height = h
            var x = [Double](repeating: 0, count: n * w)
            var y = [Double](repeating: 0, count: n * h)
            for c in 0..<n {
                for i in 0..<w { x[c * w + i] = cos(Double.pi / Double(w) * Double(c) * (Double(i) + 0.5)) }
                for i in 0..<h { y[c * h + i] = cos(Double.pi / Double(h) * Double(c) * (Double(i) + 0.5)) }
            }
            self.x = x
            self.y = y
        }
    }

    /// The DCT of one channel into a DC term and AC terms normalised to 0...1
    /// by the largest magnitude (`scale`), in the reference's triangular order.
    /// Each term sums `channel · fx · fy` row by row in the reference's order;
    /// up to four terms of one vertical frequency are summed in one pass
    /// (`sumFour`).
    private static func encodeChannel(_ channel: [Double], _ cosines: Cosines,
                                      nx: Int, ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
        let w = cosines.width, h = cosines.height
        let terms = Self.terms(nx: nx, ny: ny)
        let sums = termSums(channel, cosines, terms: terms)
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0
        for (i, term) in terms.enumerated() {
            let f = sums[i] / Double(w * h)
            if term.cx > 0 || term.cy > 0 {
                ac.append(f)
                scale = max(scale, abs(f))
            } else {
                dc = f
            }
        }
        if scale > 0 {
            for i in ac.indices {
                ac[i] = 0.5 + 0.5 / scale * ac[i]
            }
        }
        return (dc, ac, scale)
    }

    /// A channel's terms (cx, cy) in the reference's triangular order: for
    /// each cy, cx from 0 while cx · ny < nx · (ny − cy).
    static func terms(nx: Int, ny: Int) -> [(cx: Int, cy: Int)] {
        var terms: [(cx: Int, cy: Int)] = []
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                terms.append((cx, cy))
                cx += 1
            }
        }
        return terms
    }

    /// Σ_y Σ_x channel · fx · fy of each term (cx, cy), in `terms`' order:
    /// up to four consecutive terms of one `cy` at a time (`sumFour`).
    static func termSums(_ channel: [Double], _ cosines: Cosines, terms: [(cx: Int, cy: Int)]) -> [Double] {
        var sums = [Double](repeating: 0, count: terms.count)
        var first = 0
        while first < terms.count {
            let cy = terms[first].cy
            var end = first
            while end < terms.count, end - first < 4, terms[end].cy == cy { end += 1 }
            let lanes = sumFour(channel, cosines, cy: cy, cx: terms[first..<end].map(\.cx))
            for i in first..<end { sums[i] = lanes[i - first] }
            first = end
        }
        return sums
    }

    /// The sums Σ_y Σ_x channel · fx · fy of up to four horizontal
    /// frequencies `cx` (one to four) at one vertical frequency `cy`, in one
    /// pass over the channel. Each lane adds its products in the reference's
    /// order (row by row, left to right) with the reference's expression, so
    /// each sum is the same bits as the reference's own loop; the four lanes
    /// are independent, so the processor overlaps their additions where one
    /// sum waits on its previous add (ThumbHash was ~3% of a camera JPEG's
    /// item, one term at a time). Lanes beyond `cx.count` repeat the first
    /// and are not returned.
    private static func sumFour(_ channel: [Double], _ cosines: Cosines, cy: Int, cx: [Int]) -> [Double] {
        let w = cosines.width, h = cosines.height
        var f0 = 0.0, f1 = 0.0, f2 = 0.0, f3 = 0.0
        channel.withUnsafeBufferPointer { channel in
            cosines.x.withUnsafeBufferPointer { cosX in
                cosines.y.withUnsafeBufferPointer { cosY in
                    let lane = { (k: Int) in cosX.baseAddress! + (k < cx.count ? cx[k] : cx[0]) * w }
                    let fx0 = lane(0), fx1 = lane(1), fx2 = lane(2), fx3 = lane(3)
                    for y in 0..<h {
                        let fy = cosY[cy * h + y]
                        let row = channel.baseAddress! + y * w
                        for x in 0..<w {
                            let v = row[x]
                            f0 += v * fx0[x] * fy
                            f1 += v * fx1[x] * fy
                            f2 += v * fx2[x] * fy
                            f3 += v * fx3[x] * fy
                        }
                    }
                }
            }
        }
        return Array([f0, f1, f2, f3].prefix(cx.count))
    }
}
