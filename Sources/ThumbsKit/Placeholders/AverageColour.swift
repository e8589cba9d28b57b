import Foundation

/// The average colour of an image as `"#rrggbb"`, for the background a grid
/// shows before the thumbnail arrives.
///
/// Averaged in linear light, the way light mixes (averaging sRGB codes would
/// darken every edge between light and dark areas): each sRGB channel is
/// decoded with the exact IEC 61966-2-1 curve, the means are taken, and the
/// result is encoded back and rounded to the nearest code.
///
/// With alpha, each pixel counts in proportion to its alpha, so the colour is
/// that of the visible pixels (a transparent border, whatever RGB it stores,
/// does not tint the result). An image with no visible pixel at all falls back
/// to the unweighted mean.
public enum AverageColour {
    /// The average of `pixels` (RGB, RGBA or grey).
    public static func hex(of pixels: PixelBuffer) -> String {
        let (r, g, b) = average(of: pixels)
        return hex(red: r, green: g, blue: b)
    }

    /// The average as three sRGB codes.
    public static func average(of pixels: PixelBuffer) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let c = pixels.layout.channels
        var sums = (weighted: [Double](repeating: 0, count: 3), plain: [Double](repeating: 0, count: 3))
        var totalWeight = 0.0
        pixels.bytes.withUnsafeBufferPointer { px in
            for i in 0..<pixels.pixelCount {
                let o = i * c
                let weight = c == 4 ? Double(px[o + 3]) / 255 : 1
                totalWeight += weight
                for k in 0..<3 {
                    let value = linearTable[Int(px[o + (c == 1 ? 0 : k)])]
                    sums.weighted[k] += weight * value
                    sums.plain[k] += value
                }
            }
        }
        let means = totalWeight > 0
            ? sums.weighted.map { $0 / totalWeight }
            : sums.plain.map { $0 / Double(pixels.pixelCount) }
        return (encode(means[0]), encode(means[1]), encode(means[2]))
    }

    public static func hex(red: UInt8, green: UInt8, blue: UInt8) -> String {
        "#" + [red, green, blue].map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// sRGB code -> linear light, 0...1.
    public static func sRGBToLinear(_ code: UInt8) -> Double { linearTable[Int(code)] }

    /// Linear light -> the nearest sRGB code.
    public static func linearToSRGB(_ linear: Double) -> UInt8 { encode(linear) }

    private static let linearTable: [Double] = (0...255).map { code in
        let v = Double(code) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    private static func encode(_ linear: Double) -> UInt8 {
        let v = min(1, max(0, linear))
        let s = v <= 0.0031308 ? v * 12.92 : 1.055 * pow(v, 1 / 2.4) - 0.055
        return UInt8(min(255, max(0, (s * 255).rounded())))
    }
}
