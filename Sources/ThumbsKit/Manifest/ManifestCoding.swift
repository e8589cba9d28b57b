import Foundation

/// Reading and writing manifest and stats JSON.
public enum ManifestCoding {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        var data = try encoder().encode(value)
        data.append(0x0A)
        return data
    }

    /// Reads a manifest, with a message a person understands when it cannot.
    public static func readManifest(at path: String) throws(RunError) -> Manifest {
        guard FileManager.default.fileExists(atPath: path) else {
            throw .usage("no manifest at \(path) (thumbs run writes OUT/manifest.json)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .usage("cannot read manifest \(path): \(error.localizedDescription)")
        }
        do {
            let manifest = try ManifestLineReader.decode(data) ?? JSONDecoder().decode(Manifest.self, from: data)
            guard manifest.schema == Manifest.schemaName else {
                throw RunError.usage("\(path) is not a thumbs manifest (schema \(manifest.schema))")
            }
            return manifest
        } catch let error as RunError {
            throw error
        } catch {
            throw .usage("\(path) is not a valid thumbs manifest: \(describe(error))")
        }
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing field \(path(context.codingPath + [key]))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "bad value at \(path(context.codingPath)): \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "bad value at \(path(context.codingPath))"
        default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }
}

/// ISO-8601 timestamps for the manifest.
enum Timestamp {
    static func now() -> String { string(Date()) }

    static func string(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
