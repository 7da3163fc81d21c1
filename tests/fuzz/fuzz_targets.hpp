#pragma once
// The fuzz targets (tests/fuzz/README.md): each feeds one input to one parser of untrusted text. A target
// returns normally on success and on an InputError (bad input is the expected outcome); anything else that
// escapes — another exception, a crash, a sanitizer report, a leak, a hang — is a bug.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace dlsim::fuzz {

/// Every target's name, as the corpus folders tests/fuzz/corpus/<name>/ and the binaries fuzz_<name> use.
std::span<const std::string_view> target_names();

/// Runs target `name` on one input; false when no target has that name.
bool run_target(std::string_view name, const std::uint8_t* data, std::size_t size);

}  // namespace dlsim::fuzz
