// STUB: to be written.
#include "models/input_error.hpp"
#include "traces/trace_format.hpp"

namespace dlsim {

Trace read_philly_trace(const std::string& path, const ReadOptions&) {
    throw InputError(path + ": the philly reader is not written yet");
}

bool detect_philly(std::string_view, std::string_view) { return false; }

}  // namespace dlsim
