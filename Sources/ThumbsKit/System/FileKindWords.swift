extension FileInfo.Kind {
    /// The kind in a person's words, with its article: "a folder", "a
    /// character device", for messages that say what a path is.
    var inWords: String {
        switch self {
        case .regular: "a file"
        case .directory: "a folder"
        case .symbolicLink: "a symbolic link"
        case .fifo: "a FIFO (named pipe)"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .socket: "a socket"
        case .other: "a special file"
        }
    }
}
