// OpenSSL's libcrypto (Debian's libssl-dev), exposed to Swift as the
// CLibCrypto module: SHA-256 of sources and outputs (Formats/SHA256Hex.swift)
// through the EVP interface, which uses the CPU's SHA instructions (SHA-NI,
// ARMv8 SHA2) as BoringSSL does. A system library, so that no copy of
// BoringSSL is compiled for hashing alone (swift-nio-ssl already compiles one
// for HTTPS).
#include <openssl/evp.h>
