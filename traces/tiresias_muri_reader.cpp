// STUB: to be written.
#include "models/input_error.hpp"
#include "traces/trace_format.hpp"

namespace dlsim {

Trace read_tiresias_trace(const std::string& path, const ReadOptions&) {
    throw InputError(path + ": the tiresias reader is not written yet");
}

bool detect_tiresias(std::string_view, std::string_view) { return false; }

Trace read_muri_trace(const std::string& path, const ReadOptions&) {
    throw InputError(path + ": the muri reader is not written yet");
}

bool detect_muri(std::string_view, std::string_view) { return false; }

}  // namespace dlsim
