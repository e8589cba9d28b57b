import Foundation

/// BlurHash (woltapp/blurhash): a short base-83 string of DCT components from
/// which a client renders a blurred placeholder.
///
/// A port of the reference C encoder (`blurHashForPixels` in C/encode.c and
/// common.h, which woltapp's Python package `blurhash-python` wraps), keeping
/// its single-precision arithmetic step by step: `Float` accumulators, `cosf`
/// of a double-precision angle, `powf`, and the same double/float conversions
/// at each C expression, so that the strings agree character for character.
/// Alpha is ignored, as in the reference (RGBA reads as RGB).
public enum BlurHash {
    /// The component grid the manifest uses: 4 across, 3 down.
    public static let defaultComponents = (x: 4, y: 3)

    /// Encodes `pixels` (RGB, RGBA or grey) with `xComponents` × `yComponents`
    /// components, each 1...9. Any size works; the pipeline passes a reduction
    /// that fits in 100×100 because the cost is proportional to the pixels.
    public static func encode(_ pixels: PixelBuffer, xComponents: Int = 4, yComponents: Int = 3) -> String {
        precondition((1...9).contains(xComponents) && (1...9).contains(yComponents), "BlurHash components are 1...9")
        let w = pixels.width, h = pixels.height
        let linear = linearChannels(pixels)

        // C: cosf(M_PI * xComponent * x / width): the angle in double, then
        // cosf. The reference computes them per component; once per image
        // gives the same values.
        let cosX = (0..<xComponents).map { xc in (0..<w).map { x in cosf(Float(Double.pi * Double(xc) * Double(x) / Double(w))) } }
        let cosY = (0..<yComponents).map { yc in (0..<h).map { y in cosf(Float(Double.pi * Double(yc) * Double(y) / Double(h))) } }
        var factors: [(r: Float, g: Float, b: Float)] = []
        for yc in 0..<yComponents {
            var xc = 0
            while xc < xComponents {
                let count = min(4, xComponents - xc)
                factors += multiplyBasisFunctions(Array(xc..<(xc + count)), yc, cosX: cosX, cosY: cosY[yc], linear: linear)
                xc += count
            }
        }

        var hash = ""
        hash += base83(xComponents - 1 + (yComponents - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        let maximumValue: Float
        if !ac.isEmpty {
            var actualMaximum: Float = 0
            for f in ac {
                actualMaximum = fmaxf(fabsf(f.r), actualMaximum)
                actualMaximum = fmaxf(fabsf(f.g), actualMaximum)
                actualMaximum = fmaxf(fabsf(f.b), actualMaximum)
            }
            // C: floorf((float)(actualMaximum * 166 - 0.5)): the float product, the double subtraction.
            let quantised = Int(fmaxf(0, fminf(82, floorf(Float(Double(actualMaximum * 166) - 0.5)))))
            maximumValue = (Float(quantised) + 1) / 166
            hash += base83(quantised, length: 1)
        } else {
            maximumValue = 1
            hash += base83(0, length: 1)
        }
        let dc = factors[0]
        hash += base83((linearToSRGB(dc.r) << 16) + (linearToSRGB(dc.g) << 8) + linearToSRGB(dc.b), length: 4)
        for f in ac {
            let value = quantiseAC(f.r, maximumValue) * 19 * 19 + quantiseAC(f.g, maximumValue) * 19 + quantiseAC(f.b, maximumValue)
            hash += base83(value, length: 2)
        }
        return hash
    }

    /// The reference's sRGB decode, `sRGBToLinear` in common.h, in float.
    public static func sRGBToLinear(_ value: UInt8) -> Float { linearTable[Int(value)] }

    /// The reference's sRGB encode, `linearTosRGB` in common.h: clamps, then
    /// truncates `x * 255 + 0.5` computed in double.
    public static func linearToSRGB(_ value: Float) -> Int {
        let v = fmaxf(0, fminf(1, value))
        if Double(v) <= 0.0031308 { return Int(Double(v) * 12.92 * 255 + 0.5) }
        return Int((1.055 * Double(powf(v, Float(1 / 2.4))) - 0.055) * 255 + 0.5)
    }

    private static let linearTable: [Float] = (0...255).map { value in
        let v = Float(value) / 255
        if Double(v) <= 0.04045 { return Float(Double(v) / 12.92) }
        return powf(Float((Double(v) + 0.055) / 1.055), 2.4)
    }

    /// Linear-light R, G and B planes.
    private static func linearChannels(_ pixels: PixelBuffer) -> (r: [Float], g: [Float], b: [Float]) {
        let n = pixels.pixelCount, c = pixels.layout.channels
        var r = [Float](repeating: 0, count: n), g = r, b = r
        // The table held once: a static's every use checks its lazy start.
        let table = linearTable
        table.withUnsafeBufferPointer { table in
            pixels.bytes.withUnsafeBufferPointer { px in
                for i in 0..<n {
                    let o = i * c
                    if c == 1 {
                        r[i] = table[Int(px[o])]; g[i] = r[i]; b[i] = r[i]
                    } else {
                        r[i] = table[Int(px[o])]
                        g[i] = table[Int(px[o + 1])]
                        b[i] = table[Int(px[o + 2])]
                    }
                }
            }
        }
        return (r, g, b)
    }

    /// Up to four components of one row `yc` (the `xcs`, one to four): the
    /// image projected on cos(πx·xc/w)·cos(πy·yc/h), summed in float row by
    /// row as the C code does, all four in one pass over the pixels as the
    /// lanes of SIMD4s. Each lane takes its products in the C code's order
    /// with its expressions (`basis = cosX · cosY`, then `sum += basis ·
    /// linear`), element by element (IEEE, no fused multiply-add), so the
    /// sums are the same bits as one component at a time
    /// (PlaceholderSumsTests). Lanes beyond `xcs.count` repeat the first and
    /// are not returned.
    static func multiplyBasisFunctions(_ xcs: [Int], _ yc: Int, cosX: [[Float]], cosY: [Float],
                                       linear: (r: [Float], g: [Float], b: [Float])) -> [(r: Float, g: Float, b: Float)] {
        let w = cosX[0].count, h = cosY.count
        // The four lanes' cosines side by side, x by x.
        var lanes = [SIMD4<Float>](repeating: .zero, count: w)
        for k in 0..<4 {
            let c = cosX[k < xcs.count ? xcs[k] : xcs[0]]
            for x in 0..<w { lanes[x][k] = c[x] }
        }
        var r = SIMD4<Float>.zero, g = SIMD4<Float>.zero, b = SIMD4<Float>.zero
        lanes.withUnsafeBufferPointer { lanes in
            linear.r.withUnsafeBufferPointer { lr in
                linear.g.withUnsafeBufferPointer { lg in
                    linear.b.withUnsafeBufferPointer { lb in
                        for y in 0..<h {
                            let row = y * w, fy = SIMD4<Float>(repeating: cosY[y])
                            for x in 0..<w {
                                let basis = lanes[x] * fy
                                r += basis * SIMD4<Float>(repeating: lr[row + x])
                                g += basis * SIMD4<Float>(repeating: lg[row + x])
                                b += basis * SIMD4<Float>(repeating: lb[row + x])
                            }
                        }
                    }
                }
            }
        }
        return xcs.indices.map { k in
            let normalisation: Float = (xcs[k] == 0 && yc == 0) ? 1 : 2
            let scale = normalisation / Float(w * h)
            return (r[k] * scale, g[k] * scale, b[k] * scale)
        }
    }

    /// C: floorf((float)(signPow(v / max, 0.5) * 9 + 9.5)), clamped to 0...18.
    private static func quantiseAC(_ value: Float, _ maximumValue: Float) -> Int {
        let scaled = value / maximumValue
        let signPow = copysignf(powf(fabsf(scaled), 0.5), scaled)
        return Int(fmaxf(0, fminf(18, floorf(Float(Double(signPow * 9) + 9.5)))))
    }

    static let base83Characters = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    static func base83(_ value: Int, length: Int) -> String {
        var divisor = 1
        for _ in 0..<(length - 1) { divisor *= 83 }
        var out = ""
        for _ in 0..<length {
            out.append(base83Characters[(value / divisor) % 83])
            divisor /= 83
        }
        return out
    }
}
