/// The compact decode of a progressive JPEG at 1/1, 1/2 or 1/4
/// (`jpeg_prog.c`): only the coefficients the reduced IDCT reads, or at 1/1
/// a band of rows at a time.
struct JPEGProgressiveDecoder: ImageDecoder {
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        try JPEGPlanning.plan(input, paths: [.jpegProgressive])
    }
}
