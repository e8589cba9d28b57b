// libFuzzer harness for thumbs' Swift parsers of untrusted bytes: the
// format sniffers (ImageSniffer, VideoSniffer, RawSniffer) and the TIFF
// directory walker RAWs are read with (TIFFDirectories). Built with
// `swiftc -sanitize=fuzzer,address` over those source files by
// fuzz/build.sh swift-run; not part of the package. Any trap (an index out
// of range, an overflow) is a crash libFuzzer reports.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let prefix = Array(bytes.prefix(4096))
    _ = ImageSniffer.format(of: prefix)
    _ = ImageSniffer.describe(prefix)
    _ = VideoSniffer.format(of: prefix)
    _ = RawSniffer.format(in: bytes)
    _ = RawSniffer.format(ofPrefix: prefix)
    if let tiff = TIFFDirectories(read: { offset, count in RawSniffer.slice(bytes, offset, count) }) {
        for directory in tiff.directories {
            for entry in directory.entries.values {
                _ = tiff.values(entry)
                _ = tiff.value(entry)
                _ = tiff.text(entry)
            }
        }
    }
    return 0
}
