import CLibCrypto
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
        data.withUnsafeBytes { digest($0).hex }
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
        private let context = Context()

        init() {}

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
            guard EVP_DigestUpdate(context.pointer, base, bytes.count) == 1 else { context.failed() }
        }

        /// The digest of everything given to `update`.
        consuming func finish() -> Digest {
            var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            guard EVP_DigestFinal_ex(context.pointer, &digest, &length) == 1, length == 32 else { context.failed() }
            return Digest(hex: SHA256Hex.hex(digest.prefix(32)))
        }
    }

    /// libcrypto's digest state (`EVP_MD_CTX`), freed with its stream.
    private final class Context {
        /// SHA-256 fetched from libcrypto's default provider once, not by
        /// name at each `EVP_DigestInit_ex` (an output is hashed on its own).
        nonisolated(unsafe) private static let sha256: OpaquePointer? = EVP_MD_fetch(nil, "SHA256", nil)

        let pointer: OpaquePointer

        init() {
            guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, Self.sha256, nil) == 1 else {
                fatalError("libcrypto cannot make a SHA-256 context (out of memory, or no default provider)")
            }
            pointer = context
        }

        deinit { EVP_MD_CTX_free(pointer) }

        /// libcrypto's SHA-256 fails only when it cannot allocate: no digest
        /// may then stand for a file's bytes, and no run can go on.
        func failed() -> Never {
            fatalError("libcrypto's SHA-256 failed (out of memory)")
        }
    }

    fileprivate static func hex(_ digest: some Sequence<UInt8>) -> String {
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
