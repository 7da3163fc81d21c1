#pragma once
// Writing CSV (RFC 4180): the one field quoter, shared by the canonical trace writer, the jobs CSV
// and the sweep index.
#include <string_view>

namespace dlsim::csv_out {

/// Appends `s` as one CSV field to `out` (a std::string or an fmt buffer): as it is, or quoted with its
/// quotes doubled when it holds a comma, a quote, CR or LF.
template <class Out>
void append_field(Out& out, std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
        out.append(s.data(), s.data() + s.size());
        return;
    }
    out.push_back('"');
    for (char c : s) {
        if (c == '"') out.push_back('"');
        out.push_back(c);
    }
    out.push_back('"');
}

}  // namespace dlsim::csv_out
