#pragma once
// SHA-256 of input files, for the provenance in every result (OpenSSL's libcrypto).
#include <string>

namespace dlsim {

/// Lower-case hex SHA-256 of a file's bytes; an unreadable file is an InputError.
std::string sha256_file(const std::string& path);
/// Lower-case hex SHA-256 of a string.
std::string sha256_text(const std::string& text);

}  // namespace dlsim
