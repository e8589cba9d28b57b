/// The DC decode at 1/8 (`jpeg_dc.c`): a baseline file's DC coefficients
/// with its AC coefficients skipped, or a progressive file's DC scans alone.
struct JPEGDCDecoder: ImageDecoder {
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        try JPEGPlanning.plan(input, paths: [.jpegDC, .jpegDCProgressive])
    }
}
