// File-valued policy parameters (ParamType::File, policies/registry.hpp): the file's content joins the run
// identity next to its path, so a changed file under the same path gives a new run id (a resumed sweep
// runs it again), and a missing file is an input error naming the parameter before any run.
#include "models/base/input_error.hpp"
#include "sim/app/run.hpp"
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::file_params_tests {

namespace {

/// A file in the temporary folder whose content the test rewrites; removed at the end of the test.
struct ScratchFile {
    std::string path;
    ScratchFile() {
        const auto dir = std::filesystem::temp_directory_path() / "dlsim-tests";
        std::filesystem::create_directories(dir);
        path = (dir / ("file-param-" + std::to_string(::getpid()) + ".json")).string();
    }
    void write(const std::string& text) const { std::ofstream(path, std::ios::binary | std::ios::trunc) << text; }
    ~ScratchFile() { std::filesystem::remove(path); }
};

RunConfig vc_quota_with(const std::string& quotas) {
    RunConfig c;
    c.policy = "vc-quota";
    if (!quotas.empty()) add_param(c, "quotas=" + quotas);
    c.out.clear();
    return c;
}

const char* kVcTrace = "job_id,submit_time,num_gpus,duration,vc\na1,0,1,10,A\nb1,0,2,4,B\n";

}  // namespace

TEST_CASE("file parameters: the file's content joins the run id, not only its path", "[unit]") {
    const InputHashes hashes{"T", "C", "P"};
    const ScratchFile file;
    const RunConfig c = vc_quota_with(file.path);

    file.write(R"({"A": 1, "B": 3})");
    const std::string first = run_id(c, hashes);
    file.write(R"({"A": 2, "B": 2})");
    const std::string changed = run_id(c, hashes);
    CHECK(changed != first);  // same path, other quotas: a sweep must not reuse the first result
    file.write(R"({"A": 1, "B": 3})");
    CHECK(run_id(c, hashes) == first);  // same content again: the same run

    // Without the parameter the identity has no hash, and neither id above is the default's.
    const std::string by_default = run_id(vc_quota_with(""), hashes);
    CHECK(by_default != first);
    CHECK(by_default != changed);

    // The result echoes the path and the content's SHA-256 (`sha256sum` of the bytes written above).
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile, kVcTrace);
    const RunOutcome o = simulate(in, c);
    CHECK_THAT(
        o.config_json,
        Catch::Contains(R"("quotas":")" + file.path + "\"") &&
            Catch::Contains(R"("quotas_sha256":"edbdf6465f7f1de231bef7c17ab6af2106c0ff82b957c80f10ee87b148fb277d")"));
    CHECK_THAT(simulate(in, vc_quota_with("")).config_json,
               Catch::Contains(R"("quotas":"")") && !Catch::Contains("quotas_sha256"));
}

TEST_CASE("file parameters: a missing or unreadable file is an input error naming the parameter", "[unit]") {
    const InputHashes hashes{"T", "C", "P"};
    const std::string missing = (std::filesystem::temp_directory_path() / "dlsim-tests-no-such-quotas.json").string();
    std::filesystem::remove(missing);
    const std::string expected = "policy vc-quota: parameter quotas: cannot read file '" + missing + "'";
    CHECK_THROWS_AS(run_id(vc_quota_with(missing), hashes), InputError);
    CHECK_THROWS_WITH(run_id(vc_quota_with(missing), hashes), expected);
    // simulate checks it before the run starts.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile, kVcTrace);
    CHECK_THROWS_WITH(simulate(in, vc_quota_with(missing)), expected);
    // A folder is not a file.
    const std::string folder = std::filesystem::temp_directory_path().string();
    CHECK_THROWS_WITH(run_id(vc_quota_with(folder), hashes),
                      "policy vc-quota: parameter quotas: cannot read file '" + folder + "'");
}

TEST_CASE("file parameters: a relative path in a sweep spec is read from the spec's folder", "[sweep]") {
    // The spec, its trace, cluster and quota file sit in one folder; dlsim runs from elsewhere (the test's
    // working directory). The echo keeps the path as written, so the run id does not depend on where the
    // folder is.
    const auto dir = std::filesystem::temp_directory_path() / ("dlsim-tests-spec-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto put = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir / name, std::ios::binary) << text;
    };
    put("trace.csv", kVcTrace);
    put("cluster.json", homogeneous_cluster_json(1, 4));
    put("profile.json", kUnusedProfile);
    put("quotas.json", R"({"A": 1, "B": 3})");
    put("spec.json", R"({"name": "q", "base": {"trace": "trace.csv", "cluster": "cluster.json",
        "profiles": "profile.json", "policy": "vc-quota", "params": {"quotas": "quotas.json"}},
        "grid": {"seed": [1]}})");
    const auto out = dir / "out";
    const auto r = run_cli("sweep " + (dir / "spec.json").string() + " --out " + out.string());
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    std::string result;
    for (const auto& f : std::filesystem::directory_iterator(out / "runs")) result = slurp(f.path().string());
    CHECK_THAT(
        result,
        Catch::Contains(R"("quotas":"quotas.json")") &&
            Catch::Contains(R"("quotas_sha256":"edbdf6465f7f1de231bef7c17ab6af2106c0ff82b957c80f10ee87b148fb277d")"));
    std::filesystem::remove_all(dir);
}

}  // namespace dlsim::test::file_params_tests
