/// How a box is filled.
public enum Fit: String, Sendable, Codable, CaseIterable {
    /// Keep the aspect ratio and fit inside the box.
    case inside
    /// Fill the box and crop what overflows.
    case cover
}

/// Which part of the image `--fit cover` keeps.
public enum Crop: String, Sendable, Codable, CaseIterable {
    case centre, attention, entropy
}

/// The encoding of thumbnails.
public enum OutputFormat: String, Sendable, Codable, CaseIterable {
    case jpeg, webp, avif, png
    /// JPEG, or PNG for images with an alpha channel.
    case auto

    /// The file name extension of a concrete format.
    public var fileExtension: String {
        switch self {
        case .jpeg, .auto: "jpg"
        case .webp: "webp"
        case .avif: "avif"
        case .png: "png"
        }
    }
}

/// Everything that changes the thumbnails themselves. Two runs with equal
/// settings produce byte-identical outputs from identical sources, so a re-run
/// compares these with the previous manifest's before skipping anything.
public struct OutputSettings: Sendable, Hashable, Codable {
    public var sizes: [ThumbSize]
    public var fit: Fit
    public var crop: Crop
    public var enlarge: Bool
    public var format: OutputFormat
    public var quality: Int
    public var keepMetadata: Bool
    /// ThumbHash, BlurHash and average colour per item (`--no-placeholders`
    /// turns them off). The perceptual hash is always made.
    public var placeholders: Bool

    public init(
        sizes: [ThumbSize] = [ThumbSize(width: 256, height: 256)],
        fit: Fit = .inside,
        crop: Crop = .centre,
        enlarge: Bool = false,
        format: OutputFormat = .jpeg,
        quality: Int = 80,
        keepMetadata: Bool = false,
        placeholders: Bool = true
    ) {
        self.sizes = sizes
        self.fit = fit
        self.crop = crop
        self.enlarge = enlarge
        self.format = format
        self.quality = quality
        self.keepMetadata = keepMetadata
        self.placeholders = placeholders
    }

    private enum CodingKeys: String, CodingKey {
        case sizes, fit, crop, enlarge, format, quality, keepMetadata, placeholders
    }

    /// Manifests written before placeholders existed have no such key: they
    /// read as the default, so upgrading does not redo every image.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sizes = try c.decode([ThumbSize].self, forKey: .sizes)
        fit = try c.decode(Fit.self, forKey: .fit)
        crop = try c.decode(Crop.self, forKey: .crop)
        enlarge = try c.decode(Bool.self, forKey: .enlarge)
        format = try c.decode(OutputFormat.self, forKey: .format)
        quality = try c.decode(Int.self, forKey: .quality)
        keepMetadata = try c.decode(Bool.self, forKey: .keepMetadata)
        placeholders = try c.decodeIfPresent(Bool.self, forKey: .placeholders) ?? true
    }
}
