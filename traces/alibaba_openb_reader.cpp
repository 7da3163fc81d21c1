// STUB: to be written.
#include "models/input_error.hpp"
#include "traces/trace_format.hpp"

namespace dlsim {

Trace read_alibaba_openb_trace(const std::string& path, const ReadOptions&) {
    throw InputError(path + ": the alibaba_openb reader is not written yet");
}

bool detect_alibaba_openb(std::string_view, std::string_view) { return false; }

}  // namespace dlsim
