/// How the libvips part of one item failed.
///
/// A libvips failure's text is read only where it is sure to be the item's
/// own (`VipsErrorBuffer`); until then the failure waits here with what it
/// will mean for the item.
enum ImagingError: Error {
    /// Known without libvips' messages: the pixel limit, an empty file, a
    /// damaged colour profile…
    case item(ItemError)
    /// A libvips call failed.
    case libvips(VipsFailure, Meaning)

    /// What a libvips failure means for the item.
    enum Meaning: Sendable {
        /// The header could not be read by `loader`, whose format thumbs
        /// calls `format`; `sniffed` is the everyday name the first bytes
        /// show (`LoaderErrors.formatName`).
        case header(loader: String, format: String, sniffed: String?)
        /// The pixels do not decode.
        case decode(format: String)
        /// The pixels decoded, but a resize or an encoder failed.
        case thumbnails
    }

    /// The item's error, when nothing is left to read from libvips; nil when
    /// a libvips message is still unread.
    var settled: ItemError? {
        switch self {
        case .item(let error): error
        case .libvips(let failure, let meaning): failure.message.map { meaning.error(operation: failure.operation, detail: $0) }
        }
    }

    /// The item's error, reading nothing more (in a diagnosis, where the
    /// message was read).
    var itemError: ItemError {
        switch self {
        case .item(let error): error
        case .libvips(let failure, let meaning):
            meaning.error(operation: failure.operation, detail: failure.message ?? "\(failure.operation) failed")
        }
    }
}

extension ImagingError.Meaning {
    func error(operation: String, detail: String) -> ItemError {
        switch self {
        case .header(let loader, let format, let sniffed):
            LoaderErrors.headerFailure(loader: loader, format: format, detail: detail, sniffedName: sniffed)
        case .decode(let format):
            .decode("cannot decode \(format) image: \(detail)")
        case .thumbnails:
            .encode("cannot make the thumbnails (\(operation)): \(detail)")
        }
    }
}

extension VipsFailure {
    /// This failure, with what it means for the item.
    func meaning(_ meaning: ImagingError.Meaning) -> ImagingError { .libvips(self, meaning) }
}
