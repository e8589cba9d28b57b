// libFuzzer harness for the partial download's parsers of untrusted bytes
// (issue 24): ProgressiveScanWatch, fed the input in chunks of a size the
// first byte picks (as a network hands a body over), and, when it finds a
// cut, JPEGPrefixCompletion's tail. Built by fuzz/swift/build.sh with
// swiftc -sanitize=fuzzer,address over those two source files alone.

/// What `acceptsHeader` is given in a run: Thumbnailer.plan, which refuses
/// a frame over --max-pixels. Here a smaller cap (4096 × 4096) keeps each
/// input fast: the tail's cost grows with the frame's blocks.
private func frameWithinCap(_ header: [UInt8]) -> Bool {
    var at = 2
    while at + 9 < header.count {
        guard header[at] == 0xFF else { return false }
        let marker = header[at + 1]
        let length = Int(header[at + 2]) << 8 | Int(header[at + 3])
        if marker == 0xC2 || marker == 0xC0 || marker == 0xC1 {
            let height = Int(header[at + 5]) << 8 | Int(header[at + 6])
            let width = Int(header[at + 7]) << 8 | Int(header[at + 8])
            return width * height <= 4096 * 4096
        }
        at += 2 + length
    }
    return false
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard let first = bytes.first else { return 0 }
    var watch = ProgressiveScanWatch(acceptsHeader: frameWithinCap)
    let step = Int(first) * 37 + 1
    var at = 1
    while at < bytes.count {
        let end = min(bytes.count, at + step)
        if case .enough(let cut, let completion) = watch.feed(bytes[at..<end]) {
            _ = completion.tail(cut: cut, size: Int64(bytes.count))
            break
        }
        if watch.verdict != .needMore { break }
        at = end
    }
    return 0
}
