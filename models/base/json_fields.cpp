#include "models/base/json_fields.hpp"

#include "models/base/input_error.hpp"
#include "models/base/input_text.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <unordered_set>
#include <vector>

namespace dlsim::json_fields {

namespace {

/// Follows the parser's events to reject what nlohmann accepts silently: a key written twice in one
/// object (the last would win) and NUL characters ("\u0000") in keys and strings. It keeps the path of
/// the value being parsed, for the message.
class InputChecks {
public:
    explicit InputChecks(const std::string& origin) : origin_(origin) {}

    bool operator()(int /*depth*/, Json::parse_event_t event, Json& parsed) {
        using E = Json::parse_event_t;
        switch (event) {
            case E::object_start:
                push(false);
                break;
            case E::array_start:
                push(true);
                break;
            case E::key: {
                Frame& f = frames_[open_ - 1];
                const auto& key = parsed.get_ref<const std::string&>();
                if (key.find('\0') != std::string::npos)
                    fail(fmt::format("{}: NUL character in a key, expected text", path()));
                if (!f.keys.insert(key).second)
                    fail(fmt::format("{}: duplicate key \"{}\" (each key may appear once in an object)", path(),
                                     printable(key)));
                f.last_key = key;
                break;
            }
            case E::object_end:
            case E::array_end:
                --open_;
                element_done();
                break;
            case E::value:
                if (parsed.is_string() && parsed.get_ref<const std::string&>().find('\0') != std::string::npos)
                    fail(fmt::format("{}: NUL character in a string, expected text", path(true)));
                element_done();
                break;
        }
        return true;
    }

private:
    struct Frame {
        bool array = false;
        std::size_t index = 0;                 ///< elements finished so far (arrays)
        std::string last_key;                  ///< the key whose value is being parsed (objects)
        std::unordered_set<std::string> keys;  ///< keys seen (objects)
    };

    void push(bool array) {
        if (open_ == frames_.size()) frames_.emplace_back();
        Frame& f = frames_[open_++];
        f.array = array;
        f.index = 0;
        f.last_key.clear();
        f.keys.clear();  // frames are reused: the sets keep their buckets
    }

    void element_done() {
        if (open_ > 0 && frames_[open_ - 1].array) ++frames_[open_ - 1].index;
    }

public:
    /// "racks[2].node_type": the open containers, down to the innermost object (or its value).
    std::string path(bool with_value = false) const {
        std::string out;
        const std::size_t n = open_;
        for (std::size_t i = 0; i < n; ++i) {
            const bool last = i + 1 == n;
            // The innermost frame names its element only when a value inside it is at fault.
            if (last && !with_value) break;
            const Frame& f = frames_[i];
            if (f.array)
                out += fmt::format("[{}]", f.index);
            else
                out += (out.empty() ? "" : ".") + printable(f.last_key);
        }
        return out.empty() ? "(top level)" : out;
    }

private:
    [[noreturn]] void fail(const std::string& what) const { throw InputError(fmt::format("{}: {}", origin_, what)); }

    const std::string& origin_;
    std::vector<Frame> frames_;
    std::size_t open_ = 0;
};

/// 1-based line and column of byte `at` of `text`.
std::pair<std::size_t, std::size_t> line_col(std::string_view text, std::size_t at) {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < at && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return {line, col};
}

}  // namespace

void check_nesting(std::string_view text, const std::string& origin) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth) {
                const auto [line, col] = line_col(text, i);
                throw InputError(fmt::format("{}:{}:{}: nesting deeper than {} levels of arrays and objects", origin,
                                             line, col, kMaxJsonDepth));
            }
        } else if (c == ']' || c == '}') {
            if (depth > 0) --depth;
        }
    }
}

Json parse_text(const std::string& text, const std::string& origin) {
    check_nesting(text, origin);
    InputChecks checks(origin);
    try {
        return Json::parse(text, std::ref(checks));
    } catch (const Json::parse_error& e) {
        // Turn the byte offset into line:column, which is what a person looks for.
        const auto [line, col] = line_col(text, e.byte > 0 ? e.byte - 1 : 0);
        if (text.find_first_not_of(" \t\r\n") == std::string::npos)
            throw InputError(fmt::format("{}: empty file, expected a JSON object", origin));
        std::string what = e.what();
        auto pos = what.find("syntax error");
        throw InputError(fmt::format("{}:{}:{}: invalid JSON: {}", origin, line, col,
                                     printable(pos == std::string::npos ? what : what.substr(pos))));
    } catch (const Json::out_of_range& e) {
        // A number beyond a double's range (1e400): nlohmann gives no position, the parse path names the field.
        std::string what = e.what();
        auto pos = what.find("number overflow");
        throw InputError(fmt::format("{}: {}: {}, expected a number within +-1.8e308", origin, checks.path(true),
                                     printable(pos == std::string::npos ? what : what.substr(pos))));
    }
}

std::string read_file(const std::string& path) { return read_input_file(path); }

Json parse_file(const std::string& path) { return parse_text(read_file(path), path); }

void fail(const std::string& file, const std::string& path, std::string_view expected, const Json* got) {
    if (got == nullptr) throw InputError(fmt::format("{}: {}: expected {}", file, path, expected));
    // Values are at most kMaxJsonDepth deep (check_nesting), so dump's recursion is bounded.
    std::string shown = got->dump();
    if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
    shown = printable(shown);
    throw InputError(fmt::format("{}: {}: expected {}, got {}", file, path, expected, shown));
}

void check_keys(const Json& obj, const std::string& file, const std::string& path,
                std::initializer_list<std::string_view> allowed) {
    for (const auto& [key, value] : obj.items()) {
        bool known = false;
        for (auto a : allowed) known = known || a == key;
        if (!known) {
            std::string list;
            for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
            throw InputError(fmt::format("{}: {}: unknown field \"{}\" (expected one of: {})", file,
                                         path.empty() ? "(top level)" : path, printable(key), list));
        }
    }
}

const Json& require_object(const Json& v, const std::string& file, const std::string& path) {
    if (!v.is_object()) fail(file, path, "a JSON object", &v);
    return v;
}

double number(const Json& v, const std::string& file, const std::string& path, double min_value) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < min_value)
        fail(file, path, fmt::format("a number >= {}", min_value), &v);
    return v.get<double>();
}

long long integer(const Json& v, const std::string& file, const std::string& path, long long min_value,
                  long long max_value) {
    const bool bounded = max_value != std::numeric_limits<long long>::max();
    auto bad = [&] {
        fail(file, path,
             bounded ? fmt::format("an integer >= {} and <= {}", min_value, max_value)
                     : fmt::format("an integer >= {}", min_value),
             &v);
    };
    if (!v.is_number_integer()) bad();
    // Unsigned values above the long long range would wrap to negative numbers when read as long long.
    if (v.is_number_unsigned() &&
        v.get<unsigned long long>() > static_cast<unsigned long long>(std::numeric_limits<long long>::max()))
        bad();
    const long long x = v.get<long long>();
    if (x < min_value || x > max_value) bad();
    return x;
}

std::string string(const Json& v, const std::string& file, const std::string& path) {
    if (!v.is_string() || v.get<std::string>().empty()) fail(file, path, "a non-empty string", &v);
    return v.get<std::string>();
}

std::string string_member(const Json& obj, std::string_view key, std::string_view fallback) {
    if (!obj.is_object()) return std::string(fallback);
    const auto it = obj.find(key);
    return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
}

}  // namespace dlsim::json_fields
