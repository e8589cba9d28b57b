import CVips
import CVipsShim

/// Where libvips' loaders read a source: a buffer in memory, or a file
/// through thumbs' own descriptor (`shim_source_from_descriptor`: a
/// `VipsSourceCustom` whose reads are `pread`s), so that a 2 GB TIFF is read
/// strip by strip and a PNG's private chunks are skipped, never held.
///
/// A libvips image made from a file reads through the file's descriptor
/// while it lives: it must not outlive the `SourceFile`, and never does (the
/// libvips path renders within one call).
enum LibvipsInput {
    /// `shim_header_from_buffer` or `shim_header_from_source`.
    static func header(
        _ source: ImageSource, failOn: Int32,
        _ image: inout UnsafeMutablePointer<VipsImage>?, _ loader: inout UnsafePointer<CChar>?
    ) -> Int32 {
        switch source {
        case .memory(let bytes):
            return shim_header_from_buffer(bytes.baseAddress, bytes.count, failOn, &image, &loader)
        case .file(let file):
            return withSource(file) { shim_header_from_source($0, failOn, &image, &loader) }
        }
    }

    /// `shim_load_from_buffer` or `shim_load_from_source`.
    static func load(
        _ source: ImageSource, loader: String, shrink: Int32, scale: Double, failOn: Int32,
        _ out: inout UnsafeMutablePointer<VipsImage>?
    ) -> Int32 {
        switch source {
        case .memory(let bytes):
            return shim_load_from_buffer(bytes.baseAddress, bytes.count, loader, shrink, scale, failOn, &out)
        case .file(let file):
            return withSource(file) { shim_load_from_source($0, loader, shrink, scale, failOn, &out) }
        }
    }

    /// Whether one of libvips' loaders reads `file`'s format from a source.
    /// Not all do (OpenEXR's, ImageMagick's in libvips 8.14): such a file is
    /// read into memory whole, as its plan says. Leaves a message in libvips's
    /// error buffer when none does: call it inside `VipsErrorBuffer.attributed`.
    static func readsFromSource(_ file: SourceFile) -> Bool {
        withSource(file) { shim_source_has_loader($0) } == 1
    }

    /// `body` with a new source over the file's descriptor; the source is
    /// released after (an image made from it keeps its own reference).
    private static func withSource(_ file: SourceFile, _ body: (UnsafeMutablePointer<VipsSource>?) -> Int32) -> Int32 {
        file.withDescriptor { fd in
            guard let source = shim_source_from_descriptor(fd, gint64(file.size)) else { return -1 }
            defer { g_object_unref(source) }
            return body(source)
        }
    }
}
