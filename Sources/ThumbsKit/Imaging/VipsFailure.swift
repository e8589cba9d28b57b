/// A libvips call failed.
struct VipsFailure: Error {
    /// What was being done: "load", "resize", "save"…
    var operation: String
    /// libvips' own text; nil when it was not read because other items may
    /// have written to the buffer too (`VipsErrorBuffer`).
    var message: String?

    /// Takes the message, if it can be the caller's own (`VipsErrorBuffer.read`);
    /// `fallback` when libvips gave none.
    init(operation: String, fallback: String? = nil) {
        self.operation = operation
        message = VipsErrorBuffer.read(fallback: fallback ?? "\(operation) failed")
    }

    /// A failure whose message is known without libvips' buffer.
    init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }
}
