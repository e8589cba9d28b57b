/// libjpeg itself, scaled on load to 1/1, 1/2, 1/4 or 1/8 (`jpeg_direct.c`):
/// what `JPEGPathRule` allows after the paths above, or instead of them.
struct LibjpegDecoder: ImageDecoder {
    func plan(_ input: DecoderInput) throws(ItemError) -> DecodePlan? {
        try JPEGPlanning.plan(input, paths: [.libjpeg])
    }
}
