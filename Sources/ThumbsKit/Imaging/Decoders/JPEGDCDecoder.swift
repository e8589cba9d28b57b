/// The DC decode at 1/8 (`jpeg_dc.c`): a baseline file's DC coefficients
/// with its AC coefficients skipped, or a progressive file's DC scans alone;
/// and a baseline file at 1/4 from each block's DC and three lowest AC
/// coefficients (a 2×2 inverse DCT), the rest skipped the same way.
struct JPEGDCDecoder: ImageDecoder {
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        try JPEGPlanning.plan(input, paths: [.jpegDC, .jpegDCProgressive])
    }
}
