#pragma once
// Streaming JSON output helpers: results are written record by record, never built as one tree.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <string_view>

namespace dlsim::json_out {

/// Appends `s` as a JSON string literal with escapes to `out` (a std::string or an fmt buffer: anything
/// with push_back(char)). The one JSON string escaper: the result writer's fast path copies strings
/// that need no escape and hands the others here.
template <class Out>
void append_quoted(Out& out, std::string_view s) {
    constexpr const char* kHex = "0123456789abcdef";
    out.push_back('"');
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c != '"' && c != '\\' && u >= 0x20) {
            out.push_back(c);
            continue;
        }
        out.push_back('\\');
        switch (c) {
            case '"': out.push_back('"'); break;
            case '\\': out.push_back('\\'); break;
            case '\n': out.push_back('n'); break;
            case '\r': out.push_back('r'); break;
            case '\t': out.push_back('t'); break;
            default:
                for (char x : {'u', '0', '0', kHex[u >> 4], kHex[u & 15]}) out.push_back(x);
        }
    }
    out.push_back('"');
}

/// A JSON string literal with escapes.
inline std::string quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    append_quoted(out, s);
    return out;
}

/// A number's JSON text held without a heap string (for per-record loops).
struct NumberText {
    char digits[40];
    std::size_t size = 0;
    std::string_view view() const { return {digits, size}; }
};

/// A number in its shortest round-trip form; non-finite values become null.
inline NumberText number_text(double x) {
    NumberText t;
    const std::string_view null = "null";
    if (!std::isfinite(x)) {
        t.size = null.copy(t.digits, null.size());
        return t;
    }
    t.size = static_cast<std::size_t>(fmt::format_to_n(t.digits, sizeof t.digits, "{}", x).out - t.digits);
    return t;
}

/// The same as a string.
inline std::string number(double x) { return std::string(number_text(x).view()); }

}  // namespace dlsim::json_out
