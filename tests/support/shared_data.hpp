#pragma once
// Tests on the public data under DLSIM_SHARED_DATA (the published traces and profiles): where a file is
// missing they fail, unless the environment sets DLSIM_SKIP_SHARED_DATA=1; then the test case stops
// there and dlsim_tests exits with kSkippedExitCode once every other test has passed, which the
// `shared-data` CTest test maps to SKIPPED (SKIP_RETURN_CODE). A missing data set never passes.
// Such test cases carry the tag [shared-data]; the CTest tag groups leave them out.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace dlsim::test {

/// dlsim_tests' exit code when tests were skipped for missing shared data and none failed.
inline constexpr int kSkippedExitCode = 77;

/// Test cases that stopped because shared data was missing under DLSIM_SKIP_SHARED_DATA=1.
inline int shared_data_skips = 0;

inline bool skip_shared_data_requested() {
    const char* v = std::getenv("DLSIM_SKIP_SHARED_DATA");
    return v != nullptr && std::string(v) == "1";
}

/// True when `path` (a file or folder of the shared data) exists. Otherwise the test case fails, or,
/// under DLSIM_SKIP_SHARED_DATA=1, the skip is counted and false returned: the caller returns at once.
inline bool shared_data_present(const std::string& path) {
    if (std::filesystem::exists(path)) return true;
    if (!skip_shared_data_requested())
        FAIL("shared data missing: " << path
                                     << " (configure with -DDLSIM_SHARED_DATA=DIR, or set DLSIM_SKIP_SHARED_DATA=1 "
                                        "to report these tests as skipped)");
    ++shared_data_skips;
    WARN("skipped: " << path << " not found (DLSIM_SKIP_SHARED_DATA=1)");
    return false;
}

}  // namespace dlsim::test
