#if canImport(Glibc)
import Glibc
#endif

extension SystemError {
    /// The path is longer than the system allows (`ENAMETOOLONG`, PATH_MAX).
    static let nameTooLong = SystemError(code: ENAMETOOLONG)
}
