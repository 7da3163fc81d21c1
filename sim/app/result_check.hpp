#pragma once
// A result file's integrity. Its last member, inside `run`, is "checksum":"sha256:<64 hex digits>":
// the SHA-256 of every byte of the file before that member, written last, so a file changed after
// dlsim wrote it (by hand, by a tool, by a truncated copy) no longer matches.
#include <string>
#include <string_view>

namespace dlsim {

/// The text just before the checksum's hex digits, and the text that ends the file after them.
inline constexpr std::string_view kChecksumKey = "\"checksum\":\"sha256:";
inline constexpr std::string_view kChecksumEnd = "\"}}\n";

/// Whether a file starts as dlsim writes a result ({"schema":"dlsim.result/1", ...).
bool is_result_file(const std::string& path);

/// Empty when `text` ends with a checksum that matches the bytes before it; else what is wrong, in words.
std::string result_checksum_problem(std::string_view text);

/// Checks a result file: its checksum, then its schema and top-level members. Returns a one-line
/// description ("valid result, run <id>, N jobs"); what is wrong is an InputError naming the file.
std::string check_result_file(const std::string& path);

}  // namespace dlsim
