#pragma once
// SHA-256 of input files, for the provenance in every result, and of a result's own bytes, for its
// checksum (OpenSSL's libcrypto).
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace dlsim {

/// Lower-case hex SHA-256 of a file's bytes; an unreadable file is an InputError.
std::string sha256_file(const std::string& path);
/// Lower-case hex SHA-256 of a string.
std::string sha256_text(std::string_view text);

/// An incremental SHA-256: update() any number of times, then hex() once.
class Sha256 {
public:
    Sha256();
    void update(const void* data, std::size_t n);
    /// The lower-case hex digest of everything updated so far; the hash cannot be updated after it.
    std::string hex();

private:
    std::unique_ptr<evp_md_ctx_st, void (*)(evp_md_ctx_st*)> ctx_;
};

}  // namespace dlsim
