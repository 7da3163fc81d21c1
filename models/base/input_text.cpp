#include "models/base/input_text.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace dlsim {

namespace {

/// Length of the valid UTF-8 sequence of a non-ASCII lead byte at s[i] (RFC 3629: no overlongs, no
/// surrogates, nothing above U+10FFFF), or 0.
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else
        return 0;
    if (i + n > s.size()) return 0;
    if (b(i + 1) < lo || b(i + 1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
    // C1 control characters (U+0080..U+009F) act on terminals too.
    if (n == 2 && c == 0xC2 && b(i + 1) < 0xA0) return 0;
    return n;
}

}  // namespace

std::string printable(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == '\n' || (c >= 0x20 && c < 0x7F)) {
            out += static_cast<char>(c);
            ++i;
        } else if (c == '\t') {
            out += "\\t";
            ++i;
        } else if (c == '\r') {
            out += "\\r";
            ++i;
        } else if (const std::size_t n = c >= 0x80 ? utf8_length(s, i) : 0; n > 0) {
            out.append(s.substr(i, n));
            i += n;
        } else {
            out += fmt::format("\\x{:02x}", c);
            ++i;
        }
    }
    return out;
}

void check_input_file(const std::string& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (std::filesystem::is_directory(status))
        throw InputError(fmt::format("{}: is a directory, expected a file", printable(path)));
    if (!std::filesystem::exists(status))
        throw InputError(fmt::format("{}: cannot open file: no such file", printable(path)));
}

std::string read_input_file(const std::string& path) {
    check_input_file(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot open file ({})", printable(path), std::strerror(errno)));
    std::string text;
    char buf[1 << 16];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (in.bad()) throw InputError(fmt::format("{}: cannot read file", printable(path)));
    return text;
}

}  // namespace dlsim
