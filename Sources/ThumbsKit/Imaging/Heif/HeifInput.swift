import CHeifShim

/// libheif's input for a source (`shim_heif_input`): bytes in memory as
/// they are, a file through its descriptor, read by `pread` as libheif asks
/// (`heif_input.c`). libheif takes the boxes it parses and the coded data
/// of the image it decodes, never the whole file: a motion photo's video or
/// an image it does not decode stays on disk.
enum HeifInput {
    /// `body` with the input of `source`. For a file, what libheif read
    /// through the descriptor during `body` is counted on it as held
    /// (`SourceFile.hold`): libheif cannot hold more of the file than it
    /// read, so that count bounds it.
    static func with<R>(_ source: ImageSource, _ body: (inout shim_heif_input) throws(ItemError) -> R) throws(ItemError) -> R {
        switch source {
        case .memory(let bytes):
            var input = shim_heif_input(buf: bytes.baseAddress, len: bytes.count, fd: -1, position: 0, bytes_read: 0)
            return try body(&input)
        case .file(let file):
            let size = file.size
            let result: Result<R, ItemError> = file.withDescriptor { fd in
                var input = shim_heif_input(buf: nil, len: size, fd: fd, position: 0, bytes_read: 0)
                defer {
                    file.hold(input.bytes_read)
                    file.letGo(input.bytes_read)
                }
                do throws(ItemError) {
                    return .success(try body(&input))
                } catch {
                    return .failure(error)
                }
            }
            return try result.get()
        }
    }
}
