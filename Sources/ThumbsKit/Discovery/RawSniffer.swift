/// Tells camera RAWs by their content: the RAW's kind (`dng`, `cr2`, `nef`…)
/// or nil. Pure Swift over a byte-range reader, so that it works on a file's
/// prefix (`ImageSniffer`), on a file read by ranges (`SourceHeader`) and on
/// the bytes in memory (`Thumbnailer`).
///
/// Most RAWs are TIFFs. One is told from a plain TIFF by its first
/// directory (DNGVersion, Canon's "CR" after the header) or by sensor data
/// in some directory (CFA or LinearRaw photometric, a camera maker's
/// compression) together with the camera's Make, which names the kind. A
/// TIFF with none of these, a camera's own TIFF output included, stays
/// `tiff` and goes to libvips.
enum RawSniffer {
    /// The kinds thumbs recognises; their extensions are image names too.
    static let extensions: Set<String> = [
        "dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "sr2", "srf", "raf", "orf", "rw2", "rwl", "pef",
        "srw", "x3f", "3fr", "fff", "iiq", "mrw", "erf", "kdc", "dcr", "mos", "mef", "raw",
    ]

    /// The kind of the RAW in `bytes` (a whole file, or its first bytes).
    static func format(in bytes: UnsafeRawBufferPointer) -> String? {
        format(read: { offset, count in slice(bytes, offset, count) })
    }

    /// The kind read from the first bytes alone (what `ImageSniffer` sees).
    static func format(ofPrefix prefix: [UInt8]) -> String? {
        prefix.withUnsafeBytes { format(in: $0) }
    }

    /// The kind, reading through `read(offset, count)`, which returns fewer
    /// bytes (or none) where the file ends.
    static func format(read: @escaping (Int, Int) -> [UInt8]) -> String? {
        let head = read(0, 32)
        func ascii(_ text: String, at offset: Int = 0) -> Bool {
            let bytes = Array(text.utf8)
            return head.count >= offset + bytes.count && Array(head[offset..<offset + bytes.count]) == bytes
        }
        if ascii("FUJIFILMCCD-RAW") { return "raf" }
        if ascii("HEAPCCDR", at: 6) { return "crw" }
        if ascii("ftypcrx ", at: 4) { return "cr3" }
        if ascii("FOVb") { return "x3f" }
        if ascii("\u{0}MRM") { return "mrw" }
        if ascii("IIRO") || ascii("IIRS") || ascii("MMOR") { return "orf" }
        if ascii("IIU\u{0}") { return "rw2" }
        guard ascii("II*\u{0}") || ascii("MM\u{0}*") else { return nil }
        if ascii("CR", at: 8) { return "cr2" }
        if ascii("IIII", at: 8) { return "iiq" }  // Phase One
        guard let tiff = TIFFDirectories(read: read), let first = tiff.first else { return nil }
        if first.entry(TIFFDirectories.Tag.dngVersion) != nil { return "dng" }
        guard let make = tiff.text(first.entry(TIFFDirectories.Tag.make)), !make.isEmpty,
              tiff.directories.contains(where: { holdsSensorData($0, tiff) })
        else { return nil }
        return kind(make: make, model: tiff.text(first.entry(TIFFDirectories.Tag.model)) ?? "")
    }

    /// Compressions only camera makers use for sensor data: Nikon (34713),
    /// Sony (32767), Pentax (65535), Samsung (32769, 32770, 32772), Kodak
    /// (262, 65000), lossy DNG (34892).
    private static let rawCompressions: Set<Int> = [34713, 32767, 65535, 32769, 32770, 32772, 262, 65000, 34892]

    private static func holdsSensorData(_ directory: TIFFDirectories.Directory, _ tiff: TIFFDirectories) -> Bool {
        let photometric = tiff.value(directory.entry(TIFFDirectories.Tag.photometric))
        if photometric == 32803 || photometric == 34892 { return true }  // CFA, LinearRaw
        if let compression = tiff.value(directory.entry(TIFFDirectories.Tag.compression)),
           rawCompressions.contains(compression) { return true }
        return false
    }

    /// The kind a camera maker's TIFF-based RAW has.
    private static func kind(make: String, model: String) -> String {
        let make = make.uppercased(), model = model.uppercased()
        if make.hasPrefix("NIKON") { return model.hasPrefix("COOLPIX") ? "nrw" : "nef" }
        if make.hasPrefix("SONY") {
            if model == "DSC-F828" { return "srf" }
            return model == "DSC-R1" ? "sr2" : "arw"
        }
        if make.hasPrefix("PENTAX") || make.hasPrefix("RICOH") || make.hasPrefix("ASAHI") { return "pef" }
        if make.hasPrefix("SAMSUNG") { return "srw" }
        if make.hasPrefix("CANON") { return "cr2" }
        if make.hasPrefix("HASSELBLAD") { return "3fr" }
        if make.hasPrefix("PHASE ONE") { return "iiq" }
        if make.hasPrefix("LEAF") { return "mos" }
        if make.hasPrefix("EPSON") { return "erf" }
        if make.hasPrefix("MAMIYA") { return "mef" }
        if make.hasPrefix("KODAK") || make.hasPrefix("EASTMAN") { return "dcr" }
        return "raw"
    }

    /// Up to `count` bytes at `offset`, fewer where `bytes` ends.
    static func slice(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < bytes.count else { return [] }
        return Array(bytes[offset..<offset + min(count, bytes.count - offset)])
    }
}
