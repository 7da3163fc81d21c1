#include "sim/app/file_hash.hpp"

#include "models/base/input_error.hpp"

#include <openssl/evp.h>

#include <array>
#include <fstream>
#include <memory>

namespace dlsim {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) throw InternalError("SHA-256 init failed");
}

void Sha256::update(const void* data, std::size_t n) {
    if (EVP_DigestUpdate(ctx_.get(), data, n) != 1) throw InternalError("SHA-256 update failed");
}

std::string Sha256::hex() {
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), md.data(), &len) != 1) throw InternalError("SHA-256 final failed");
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < len; ++i) {
        out.push_back(kDigits[md[i] >> 4]);
        out.push_back(kDigits[md[i] & 15]);
    }
    return out;
}

std::string sha256_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot open file");
    Sha256 h;
    std::array<char, 1 << 16> buf;
    while (in.read(buf.data(), buf.size()) || in.gcount() > 0)
        h.update(buf.data(), static_cast<std::size_t>(in.gcount()));
    return h.hex();
}

std::string sha256_text(std::string_view text) {
    Sha256 h;
    h.update(text.data(), text.size());
    return h.hex();
}

}  // namespace dlsim
