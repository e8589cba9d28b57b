import Foundation

/// An earlier journal opened for `PreviousIndex`: its descriptor and where
/// its first record starts, when its header names the run's settings (a
/// journal of other settings is discarded: `open` gives nil).
struct JournalRecords {
    var descriptor: Int32
    var firstLineEnd: Int

    static func open(path: String, settings: OutputSettings) -> JournalRecords? {
        guard FileInfo.of(pathBytes: Array(path.utf8), followLinks: false)?.kind == .regular,
              let fd = try? FileDescriptor.open(path, .readOnly, [.noFollow, .nonBlocking])
        else { return nil }
        let lines = FileLines(fd: fd, from: 0)
        if let first = try? lines.next(),
           let header = try? JSONDecoder().decode(Journal.Header.self, from: Data(first)), header.settings == settings {
            return JournalRecords(descriptor: fd, firstLineEnd: lines.offset)
        }
        try? FileDescriptor.close(fd)
        return nil
    }
}
