import Crypto
import Foundation

/// Lower-case hex SHA-256, as the manifest records sources and outputs.
enum SHA256Hex {
    static func of(_ bytes: UnsafeRawBufferPointer) -> String {
        digest(bytes).hex
    }

    /// The digest of bytes all in memory.
    static func digest(_ bytes: UnsafeRawBufferPointer) -> Digest {
        var stream = Stream()
        stream.update(bytes)
        return stream.finish()
    }

    static func of(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    /// The SHA-256 of bytes that were all hashed: `Stream.finish` is the only
    /// way to make one, so a hash that failed (a read that stopped half way)
    /// can never stand for a file's bytes, in the duplicate registry or in
    /// the manifest.
    struct Digest: Sendable, Hashable, CustomStringConvertible {
        /// 64 lower-case hex digits.
        let hex: String

        fileprivate init(hex: String) { self.hex = hex }

        var description: String { hex }
    }

    /// A hash fed in pieces, as a file is read chunk by chunk: the whole file
    /// never needs to be in one buffer to be hashed.
    struct Stream {
        private var hasher = SHA256()

        init() {}

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            hasher.update(bufferPointer: bytes)
        }

        /// The digest of everything given to `update`.
        consuming func finish() -> Digest {
            Digest(hex: SHA256Hex.hex(hasher.finalize()))
        }
    }

    fileprivate static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
