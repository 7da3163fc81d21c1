#pragma once
// Typed, path-named access to JSON input files. Every error names the file, the field path and
// what was expected. Include only from the few loaders that parse JSON (build time).
#include <nlohmann/json.hpp>

#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>

namespace dlsim::json_fields {

/// Objects keep the file's key order: "cluster order" of GPU types is the order they are written in.
using Json = nlohmann::ordered_json;

/// Deepest nesting of arrays and objects accepted in any JSON input. dlsim's own files nest at most 6
/// deep; 128 is the limit serde_json and Go's encoding/json-based tools settled on for untrusted input, far
/// above any real file and far below what would exhaust the stack of code that walks a value recursively
/// (nlohmann's dump and copy recurse once per level).
inline constexpr int kMaxJsonDepth = 128;

/// Throws an InputError "<origin>:<line>:<col>: nesting deeper than 128 levels" when `text` opens more
/// than kMaxJsonDepth arrays or objects at once (brackets inside strings do not count). Every JSON input
/// passes through this before it is parsed.
void check_nesting(std::string_view text, const std::string& origin);

/// A whole file as text; a missing file or a directory is an InputError.
std::string read_file(const std::string& path);

/// Parses a whole file; a syntax error becomes an InputError with file:line:column.
Json parse_file(const std::string& path);

/// Parses text that came from `origin` (a file name, for messages). Too deep a nesting, and a number
/// beyond a double's range (1e400), are InputErrors naming the position or the field.
Json parse_text(const std::string& text, const std::string& origin);

/// Throws an InputError "<file>: <path>: expected <what>, got <value>".
[[noreturn]] void fail(const std::string& file, const std::string& path, std::string_view expected,
                       const Json* got = nullptr);

/// Rejects keys outside `allowed` (catches typos such as "gpu" for "gpus").
void check_keys(const Json& obj, const std::string& file, const std::string& path,
                std::initializer_list<std::string_view> allowed);

const Json& require_object(const Json& v, const std::string& file, const std::string& path);
double number(const Json& v, const std::string& file, const std::string& path, double min_value);
/// An integer in [min_value, max_value], checked on the value as written (never after narrowing it):
/// callers that store it in a narrower type pass that type's bound as max_value.
long long integer(const Json& v, const std::string& file, const std::string& path, long long min_value,
                  long long max_value = std::numeric_limits<long long>::max());
std::string string(const Json& v, const std::string& file, const std::string& path);
/// obj[key] when obj is an object whose `key` is a string, else `fallback`: for sniffing a file's kind
/// (its "schema") before the loader that names every wrong field; Json::value throws on a non-string.
std::string string_member(const Json& obj, std::string_view key, std::string_view fallback = "");

}  // namespace dlsim::json_fields
