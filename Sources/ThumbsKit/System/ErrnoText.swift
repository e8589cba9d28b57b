#if canImport(Glibc)
import Glibc
#endif

/// The system's words for an error number (`strerror`), for messages.
func errnoText(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}
