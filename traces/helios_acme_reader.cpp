// STUB: to be written.
#include "models/input_error.hpp"
#include "traces/trace_format.hpp"

namespace dlsim {

Trace read_helios_trace(const std::string& path, const ReadOptions&) {
    throw InputError(path + ": the helios reader is not written yet");
}

bool detect_helios(std::string_view, std::string_view) { return false; }

Trace read_acme_trace(const std::string& path, const ReadOptions&) {
    throw InputError(path + ": the acme reader is not written yet");
}

bool detect_acme(std::string_view, std::string_view) { return false; }

}  // namespace dlsim
