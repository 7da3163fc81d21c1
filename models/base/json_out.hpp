#pragma once
// Streaming JSON output helpers: results are written record by record, never built as one tree.
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <string_view>

namespace dlsim::json_out {

/// A JSON string literal with escapes.
inline std::string quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    out.push_back('"');
    for (char c : s) {
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<int>(c));
                else out.push_back(c);
        }
    }
    out.push_back('"');
    return out;
}

/// A number in its shortest round-trip form; non-finite values become null.
inline std::string number(double x) { return std::isfinite(x) ? fmt::format("{}", x) : std::string("null"); }

}  // namespace dlsim::json_out
