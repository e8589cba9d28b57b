import CVips
import CVipsShim
import Foundation

/// How two images of the same size differ to the eye: SSIM on luma, and the
/// mean and 99th percentile of the CIEDE2000 colour difference
/// (`image_compare.c`, checked against scikit-image in
/// `PixelDifferenceTests`).
public struct PixelDifference: Sendable, Codable, Equatable {
    /// 1 for identical luma; structure lost (a flip, another photo) drives it
    /// towards 0.
    public var ssim: Double
    /// ΔE2000 per pixel: about 1 is the smallest difference a person sees
    /// side by side; 2 to 10 a colour cast; 50 and more another colour.
    public var meanDeltaE: Double
    public var p99DeltaE: Double

    public init(ssim: Double, meanDeltaE: Double, p99DeltaE: Double) {
        self.ssim = ssim
        self.meanDeltaE = meanDeltaE
        self.p99DeltaE = p99DeltaE
    }

    /// The measures of two decoded images of one size, and each pixel's ΔE
    /// when `keepMap` (for a diff image). Nil when the sizes differ.
    static func measure(_ a: SRGBPixels, _ b: SRGBPixels, keepMap: Bool = false) -> (PixelDifference, [Float]?)? {
        guard a.width == b.width, a.height == b.height, a.width > 0, a.height > 0 else { return nil }
        var result = shim_image_difference()
        var map: [Float]? = keepMap ? [Float](repeating: 0, count: a.width * a.height) : nil
        let status = a.bytes.withUnsafeBytes { pa in
            b.bytes.withUnsafeBytes { pb in
                let pa = pa.bindMemory(to: UInt8.self).baseAddress, pb = pb.bindMemory(to: UInt8.self).baseAddress
                if map != nil {
                    return map!.withUnsafeMutableBufferPointer { m in
                        shim_compare_srgb8(pa, pb, Int32(a.width), Int32(a.height), m.baseAddress, &result)
                    }
                }
                return shim_compare_srgb8(pa, pb, Int32(a.width), Int32(a.height), nil, &result)
            }
        }
        guard status == 0 else { return nil }
        return (PixelDifference(ssim: result.ssim, meanDeltaE: result.mean_delta_e, p99DeltaE: result.p99_delta_e), map)
    }
}

/// An image decoded by libvips to packed 8-bit sRGB, 3 bytes a pixel: its
/// profile applied, alpha flattened over white.
struct SRGBPixels: Sendable {
    var width: Int
    var height: Int
    var bytes: [UInt8]

    /// Decodes `data`; the failure says, in libvips' words where they can be
    /// this image's own (`VipsErrorBuffer`), why not.
    static func decode(_ data: Data) throws(ItemError) -> SRGBPixels {
        guard !data.isEmpty else { throw .decode("the file is empty (0 bytes)") }
        return try VipsErrorBuffer.attributed { () throws(ImagingError) -> SRGBPixels in
            var decoded = shim_srgb8()
            let status = data.withUnsafeBytes { shim_decode_srgb8($0.baseAddress, $0.count, &decoded) }
            guard status == 0, let pixels = decoded.pixels else {
                throw .libvips(VipsFailure(operation: "load"), .decode(format: "the"))
            }
            defer { shim_srgb8_free(&decoded) }
            let count = Int(decoded.width) * Int(decoded.height) * 3
            return SRGBPixels(width: Int(decoded.width), height: Int(decoded.height),
                              bytes: Array(UnsafeBufferPointer(start: pixels, count: count)))
        }
    }
}
