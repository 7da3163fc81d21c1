#pragma once
// Input text as it may appear in a message, and input files as they may be opened: what every reader
// needs so that hostile or mistaken input (binary junk, a directory, a file nested 100,000 deep) ends
// as a clear InputError, never as control characters on the terminal or a crash.
#include <string>
#include <string_view>

namespace dlsim {

/// `s` safe to print: valid UTF-8 and printable ASCII kept, newlines kept (messages span lines), every
/// other byte written as \t, \r or \xNN, so binary junk quoted into a message cannot drive the terminal.
std::string printable(std::string_view s);

/// Throws an InputError naming `path` when it cannot be read as a file: "is a directory, expected a
/// file", "no such file", "permission denied". Call before opening an input.
void check_input_file(const std::string& path);

/// A whole input file as bytes, after check_input_file.
std::string read_input_file(const std::string& path);

}  // namespace dlsim
