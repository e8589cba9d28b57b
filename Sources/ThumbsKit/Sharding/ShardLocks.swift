import Foundation

/// Shared locks on the shards' OUT folders for the time of a merge, taken
/// before any manifest is read.
///
/// A shard that is still running holds its OUT's lock (`.thumbs/lock`)
/// exclusively, so the merge refuses it instead of reading a manifest that is
/// about to change (or is being rewritten at that very moment); and while the
/// merge holds the shared locks, no shard can start writing again. A shard
/// without a lock file (an artifact downloaded without its hidden folder, a
/// read-only copy) is simply not locked.
final class ShardLocks: Sendable {
    private let descriptors: [Int32]

    init(_ shards: [ShardInput.Location]) throws(RunError) {
        var descriptors: [Int32] = []
        for shard in shards {
            guard let fd = try? FileDescriptor.open(shard.root + "/.thumbs/lock", .readOnly) else { continue }
            do {
                try FileLock.tryLock(fd, exclusive: false)
            } catch {
                try? FileDescriptor.close(fd)
                if error == .wouldBlock {
                    for descriptor in descriptors { try? FileDescriptor.close(descriptor) }
                    throw .fatal("\(shard.manifestPath) belongs to a run that is still going (its folder \(shard.root) is locked): "
                                 + "wait for that shard to finish, then merge")
                }
                continue  // a file system without locks: nothing to hold
            }
            descriptors.append(fd)
        }
        self.descriptors = descriptors
    }

    deinit {
        for fd in descriptors {
            FileLock.release(fd)
            try? FileDescriptor.close(fd)
        }
    }
}
