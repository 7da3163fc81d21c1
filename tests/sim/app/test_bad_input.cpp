// Bad input: every malformed cluster, profile or trace file under tests/data/bad/ makes the dlsim
// binary exit with code 2 and one line naming the file, the line or field path, and the column or
// field at fault -- never a crash (this file also runs under the sanitizer build).
#include "models/base/json_fields.hpp"
#include "models/base/parse.hpp"
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

using namespace dlsim::test;

namespace dlsim::test::bad_input_tests {

namespace {

const std::string kBad = std::string(DLSIM_TEST_DATA) + "/bad/";
const std::string kCluster = std::string(DLSIM_SOURCE_DIR) + "/models/clusters/gavel_simulated.json";
const std::string kMinimalCluster = std::string(DLSIM_SOURCE_DIR) + "/models/clusters/minimal.json";
const std::string kProfile = std::string(DLSIM_SOURCE_DIR) + "/models/profiles/gavel.json";
const std::string kGoodTrace = kBad + "good_trace.csv";

/// Single-quotes for the shell (no path here holds a single quote).
std::string q(const std::string& s) { return "'" + s + "'"; }

/// `dlsim run` on the given files, writing its result to `out`.
std::string run_args(const std::string& trace, const std::string& cluster, const std::string& profiles,
                     const std::string& out, const std::string& extra = "") {
    return "run --trace " + q(trace) + " --cluster " + q(cluster) + " --profiles " + q(profiles) + " --out " + q(out) +
           (extra.empty() ? "" : " " + extra);
}

/// The common shape of every bad-input failure: exit 2, one line "dlsim: error: ...", no sanitizer report.
void check_input_error(const CliResult& r) {
    INFO("stderr: " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("dlsim: error: ", 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.err.find("Sanitizer") == std::string::npos);
    CHECK(r.err.find("runtime error") == std::string::npos);
}

/// run_cli with dlsim's memory bounded, for inputs that make it allocate without bound: the address
/// space under a plain build, the largest allocation under AddressSanitizer (which needs a huge address space).
CliResult run_cli_bounded(const std::string& args) {
    constexpr std::size_t kLimitMb = 768;
#if defined(__SANITIZE_ADDRESS__)
    const char* old = std::getenv("ASAN_OPTIONS");
    const std::string saved = old ? old : "";
    const std::string opts = saved + (saved.empty() ? "" : ":") + "max_allocation_size_mb=" + std::to_string(kLimitMb);
    ::setenv("ASAN_OPTIONS", opts.c_str(), 1);
    CliResult r = run_cli(args);
    if (old)
        ::setenv("ASAN_OPTIONS", saved.c_str(), 1);
    else
        ::unsetenv("ASAN_OPTIONS");
#else
    rlimit old{};
    ::getrlimit(RLIMIT_AS, &old);
    rlimit bounded = old;
    bounded.rlim_cur = std::min<rlim_t>(old.rlim_max, rlim_t{kLimitMb} << 20);
    ::setrlimit(RLIMIT_AS, &bounded);  // inherited by the shell and dlsim that run_cli starts
    CliResult r = run_cli(args);
    ::setrlimit(RLIMIT_AS, &old);
#endif
    return r;
}

enum class Role { Trace, Cluster, Profile };

struct BadFile {
    const char* file;  ///< under tests/data/bad/
    Role role;         ///< which input of `dlsim run` it is given as (the others are valid)
    /// Text that must follow the file's path directly: ":<line>: column '<col>'..." for a trace,
    /// ": <json.path>: ..." for a JSON file, ":<line>:<col>: invalid JSON" for a syntax error.
    const char* where;
    std::vector<const char*> also;  ///< further substrings of the message
    bool self_contained;            ///< `dlsim validate FILE` sees the error too (no cross-reference needed)
};

const std::vector<BadFile>& bad_files() {
    static const std::vector<BadFile> files = {
        // --- traces (run against the Gavel cluster and profile) ---
        {"trace_missing_column.csv", Role::Trace, ":1: missing required column 'duration'", {}, true},
        {"trace_unknown_column.csv", Role::Trace, ":1: unknown column 'modle'", {"expected columns: job_id"}, true},
        {"trace_zero_duration.csv",
         Role::Trace,
         ":3: column 'duration': expected a duration in seconds > 0",
         {"got '0'"},
         true},
        {"trace_negative_duration.csv",
         Role::Trace,
         ":4: column 'duration': expected a duration in seconds > 0",
         {"got '-5'"},
         true},
        {"trace_zero_gpus.csv",
         Role::Trace,
         ":2: column 'num_gpus': expected an integer number of GPUs >= 1",
         {"got '0'"},
         true},
        {"trace_non_numeric_submit_time.csv",
         Role::Trace,
         ":3: column 'submit_time': expected a time in seconds",
         {"got 'abc'"},
         true},
        {"trace_bad_gpu_fraction.csv",
         Role::Trace,
         ":3: column 'gpu_fraction': expected a fraction in (0, 1]",
         {"got '1.5'"},
         true},
        {"trace_unknown_gpu_type.csv",
         Role::Trace,
         ":3: column 'gpu_type': GPU type 'tpu-v9'",
         {"known neither to the cluster nor to the profile"},
         false},
        {"trace_unknown_model.csv",
         Role::Trace,
         ":4: column 'model': model 'NoSuchNet (batch size 1)'",
         {"not in the throughput profile"},
         false},
        {"trace_duplicate_job_id.csv", Role::Trace, ":4: column 'job_id': duplicate id 'a'", {"first on line 2"}, true},
        {"trace_empty.csv", Role::Trace, ": empty file", {"job_id,submit_time,num_gpus,duration"}, true},
        {"trace_header_only.csv", Role::Trace, ": no job rows after the header", {}, true},
        {"trace_wrong_field_count.csv", Role::Trace, ":3: expected 5 fields as in the header, got 4", {}, true},
        {"trace_unterminated_quote.csv", Role::Trace, ":3: unterminated quoted field", {}, true},
        {"trace_nul_in_job_id.csv", Role::Trace, ":3:2: NUL byte", {"expected text without NUL characters"}, true},
        {"trace_min_num_gpus_above_num_gpus.csv",
         Role::Trace,
         ":3: column 'min_num_gpus': expected an integer number of GPUs in 1..num_gpus (4)",
         {"got '5'"},
         true},
        {"trace_max_num_gpus_below_num_gpus.csv",
         Role::Trace,
         ":3: column 'max_num_gpus': expected an integer number of GPUs in num_gpus (4)..1000000",
         {"got '3'"},
         true},
        {"trace_min_num_gpus_not_integer.csv",
         Role::Trace,
         ":3: column 'min_num_gpus': expected an integer",
         {"got '1.5'"},
         true},
        // --- clusters (run with a valid trace and the Gavel profile) ---
        {"cluster_racks_empty.json", Role::Cluster, ": racks: expected a non-empty array of racks", {"got []"}, true},
        {"cluster_zero_nodes.json", Role::Cluster, ": racks[0].nodes: expected an integer >= 1", {"got 0"}, true},
        {"cluster_zero_gpus_per_node.json",
         Role::Cluster,
         ": node_types.n.gpus: expected an integer >= 1",
         {"got 0"},
         true},
        {"cluster_unknown_gpu_type.json",
         Role::Cluster,
         ": node_types.a100x8.gpu_type: expected the name of a GPU type in gpu_types",
         {"got \"a100\""},
         true},
        {"cluster_unknown_node_type.json",
         Role::Cluster,
         ": racks[1].node_type: expected the name of a node type in node_types",
         {"got \"v100x8\""},
         true},
        {"cluster_typo_field.json", Role::Cluster, ": node_types.v100x4: unknown field \"gpu\"", {"gpus"}, true},
        {"cluster_syntax_error.json", Role::Cluster, ":3:", {"invalid JSON: syntax error"}, true},
        {"cluster_empty.json", Role::Cluster, ": empty file, expected a JSON object", {}, true},
        // 4294967297 = 2^32 + 1 was read as 1 GPU per node (narrowed to int before the range check).
        {"cluster_gpus_wraps_int.json",
         Role::Cluster,
         ": node_types.n.gpus: expected at most 4096 GPUs per node",
         {"got 4294967297"},
         true},
        {"cluster_cpus_wraps_int.json",
         Role::Cluster,
         ": node_types.n.cpus: expected an integer >= 0 and <= 2147483647",
         {"got 4294967296"},
         true},
        {"cluster_duplicate_key.json", Role::Cluster, ": racks[1]: duplicate key \"nodes\"", {}, true},
        // --- profiles (run with a valid trace on the Gavel cluster) ---
        {"profile_no_throughput.json",
         Role::Profile,
         ": models.ResNet-50 (batch size 64).throughput: expected an object of single-GPU iterations/s",
         {},
         true},
        {"profile_all_zero_throughput.json",
         Role::Profile,
         ": models.ResNet-50 (batch size 64).throughput: expected a positive throughput on at least one GPU type",
         {"\"v100\":0"},
         true},
        {"profile_negative_throughput.json",
         Role::Profile,
         ": models.ResNet-50 (batch size 64).throughput.p100: expected a number >= 0",
         {"got -2.62"},
         true},
        {"profile_fp64.json",
         Role::Profile,
         ": models.ResNet-50 (batch size 64).grad_dtype: expected one of fp32, fp16, bf16",
         {"got \"fp64\""},
         true},
        {"profile_syntax_error.json", Role::Profile, ":5:5: invalid JSON: syntax error", {}, true},
        {"profile_whitespace_only.json", Role::Profile, ": empty file, expected a JSON object", {}, true},
        {"profile_params_overflow.json",
         Role::Profile,
         ": models.ResNet-50 (batch size 64).params: expected an integer >= 1 and <= 1000000000000000",
         {"got 9000000000000000000"},
         true},
        {"profile_duplicate_model.json",
         Role::Profile,
         ": models: duplicate key \"ResNet-50 (batch size 64)\"",
         {},
         true},
    };
    return files;
}

}  // namespace

TEST_CASE("every malformed input file exits 2 naming the file and the line or field", "[bad-input]") {
    REQUIRE(bad_files().size() >= 12);
    for (const BadFile& b : bad_files()) {
        DYNAMIC_SECTION(b.file) {
            const std::string path = kBad + b.file;
            REQUIRE(std::filesystem::exists(path));
            const std::string trace = b.role == Role::Trace ? path : kGoodTrace;
            const std::string cluster = b.role == Role::Cluster ? path : kCluster;
            const std::string profiles = b.role == Role::Profile ? path : kProfile;
            const std::string out = temp_path(std::string(b.file) + ".result.json");
            std::filesystem::remove(out);
            const CliResult r = run_cli(run_args(trace, cluster, profiles, out));
            check_input_error(r);
            INFO("stderr: " << r.err);
            CHECK(r.err.find(path + b.where) != std::string::npos);
            for (const char* s : b.also) CHECK(r.err.find(s) != std::string::npos);
            CHECK_FALSE(std::filesystem::exists(out));  // no result, not even a partial one
        }
    }
}

TEST_CASE("a JSON syntax error points at the offending token", "[bad-input]") {
    // Line 3 is `  "node_types": {"v100x4": {"gpu_type": "v100" "gpus": 4}},` -- a comma is missing before
    // "gpus", which spans columns 48..53; the reported column must fall on that token.
    const std::string path = kBad + "cluster_syntax_error.json";
    const CliResult r = run_cli("validate " + q(path));
    check_input_error(r);
    const std::string prefix = "dlsim: error: " + path + ":3:";
    REQUIRE(r.err.rfind(prefix, 0) == 0);
    const int col = std::stoi(r.err.substr(prefix.size()));
    CHECK(col >= 48);
    CHECK(col <= 53);
}

TEST_CASE("dlsim validate reports the same errors in a single file", "[bad-input]") {
    for (const BadFile& b : bad_files()) {
        const std::string path = kBad + b.file;
        DYNAMIC_SECTION(b.file) {
            const CliResult r = run_cli("validate " + q(path));
            INFO("stderr: " << r.err << "stdout: " << r.out);
            if (b.self_contained) {
                check_input_error(r);
                CHECK(r.err.find(path + b.where) != std::string::npos);
            } else {
                // A model or GPU type unknown to the profile is only visible against the profile.
                CHECK(r.exit_code == 0);
                CHECK(r.out.find("valid trace") != std::string::npos);
            }
        }
    }
}

TEST_CASE("a missing input file exits 2 naming it", "[bad-input]") {
    const std::string missing = kBad + "no_such_file.csv";
    const CliResult r = run_cli(run_args(missing, kCluster, kProfile, temp_path("missing.json")));
    check_input_error(r);
    CHECK(r.err.find(missing + ": cannot open file") != std::string::npos);
}

TEST_CASE("--on-bad-line skip runs the good rows and reports the skipped ones", "[bad-input]") {
    const std::string trace = kBad + "trace_some_bad_rows.csv";
    const std::string out = temp_path("skip.json");
    std::filesystem::remove(out);

    SECTION("without it, the first bad row stops the run") {
        const CliResult r = run_cli(run_args(trace, kCluster, kProfile, out));
        check_input_error(r);
        CHECK(r.err.find(trace + ":3: column 'duration'") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(out));
    }
    SECTION("with it, the run goes on") {
        const CliResult r = run_cli(run_args(trace, kCluster, kProfile, out, "--on-bad-line skip"));
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        // Rows: ok1, zero (line 3), ok2, neg (line 5), nogpu (line 6), short (line 7), ok3.
        CHECK(r.err.find("dlsim: " + trace +
                         ": skipped 4 of 7 rows (2 bad duration, 1 bad num_gpus, 1 wrong number of fields)") !=
              std::string::npos);
        CHECK(r.err.find(trace + ":3: column 'duration'") != std::string::npos);
        CHECK(r.err.find(trace + ":5: column 'duration'") != std::string::npos);
        CHECK(r.err.find(trace + ":6: column 'num_gpus'") != std::string::npos);
        CHECK(r.err.find(trace + ":7: expected 5 fields") != std::string::npos);

        REQUIRE(std::filesystem::exists(out));
        const auto doc = nlohmann::json::parse(slurp(out));
        const auto& report = doc.at("config").at("trace").at("report");
        CHECK(report.at("rows_read") == 7);
        CHECK(report.at("kept") == 3);
        CHECK(report.at("dropped").at("bad duration") == 2);
        CHECK(report.at("dropped").at("bad num_gpus") == 1);
        CHECK(report.at("dropped").at("wrong number of fields") == 1);
        CHECK(doc.at("summary").at("jobs") == 3);
        CHECK(doc.at("summary").at("finished") == 3);
        REQUIRE(doc.at("jobs").size() == 3);
        CHECK(doc.at("jobs")[0].at("job_id") == "ok1");
        CHECK(doc.at("jobs")[1].at("job_id") == "ok2");
        CHECK(doc.at("jobs")[2].at("job_id") == "ok3");
    }
    SECTION("a duplicate job_id is skipped as well, naming both lines") {
        const std::string dup = kBad + "trace_duplicate_job_id.csv";
        const CliResult r = run_cli(run_args(dup, kCluster, kProfile, out, "--on-bad-line skip"));
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(r.err.find("skipped 1 of 3 rows (1 duplicate job_id)") != std::string::npos);
        CHECK(r.err.find(dup + ":4: column 'job_id': duplicate id 'a' (first on line 2)") != std::string::npos);
    }
    SECTION("a trace whose every row is bad is still an error") {
        const std::string all_bad = kBad + "trace_zero_gpus.csv";
        const CliResult r = run_cli(run_args(all_bad, kCluster, kProfile, out, "--on-bad-line skip"));
        check_input_error(r);
        CHECK(r.err.find(all_bad + ": every one of the 1 rows was malformed and skipped") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(out));
    }
    SECTION("an unknown --on-bad-line value is an error") {
        const CliResult r = run_cli(run_args(trace, kCluster, kProfile, out, "--on-bad-line maybe"));
        check_input_error(r);
        CHECK(r.err.find("--on-bad-line: expected error or skip, got 'maybe'") != std::string::npos);
    }
    std::filesystem::remove(out);
}

TEST_CASE("a job needing more GPUs than the cluster has: rejected, or exit 2 under --strict", "[bad-input]") {
    // The Gavel cluster has 36 GPUs of each type; job 'huge' (line 3) asks for 64.
    const std::string trace = kBad + "trace_too_many_gpus.csv";
    const std::string out = temp_path("strict.json");
    std::filesystem::remove(out);

    SECTION("--strict: an input error") {
        const CliResult r = run_cli(run_args(trace, kCluster, kProfile, out, "--strict"));
        check_input_error(r);
        CHECK(r.err.find(trace + ":3: job 'huge' can never run on this cluster (--strict)") != std::string::npos);
        CHECK(r.err.find("needs 64 GPUs but the largest GPU type it may use has 36") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(out));
    }
    SECTION("without --strict: the job is rejected and the run goes on") {
        const CliResult r = run_cli(run_args(trace, kCluster, kProfile, out));
        INFO("stderr: " << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(r.err.find("1 jobs can never run on this cluster") != std::string::npos);
        REQUIRE(std::filesystem::exists(out));
        const auto doc = nlohmann::json::parse(slurp(out));
        CHECK(doc.at("summary").at("jobs") == 2);
        CHECK(doc.at("summary").at("finished") == 1);
        CHECK(doc.at("summary").at("rejected") == 1);
        const auto& jobs = doc.at("jobs");
        REQUIRE(jobs.size() == 2);
        CHECK(jobs[0].at("job_id") == "small");
        CHECK(jobs[0].at("state") == "finished");
        CHECK_FALSE(jobs[0].contains("reason"));
        CHECK(jobs[1].at("job_id") == "huge");
        CHECK(jobs[1].at("state") == "rejected");
        REQUIRE(jobs[1].contains("reason"));
        CHECK(jobs[1].at("reason").get<std::string>().find("needs 64 GPUs") != std::string::npos);
        CHECK(jobs[1].at("start_time").is_null());
        CHECK(jobs[1].at("finish_time").is_null());
    }
    std::filesystem::remove(out);
}

TEST_CASE("unknown policies and parameters exit 2 listing the valid ones", "[bad-input]") {
    const std::string out = temp_path("policy.json");
    std::filesystem::remove(out);
    auto run = [&](const std::string& extra) {
        return run_cli(run_args(kGoodTrace, kMinimalCluster, kProfile, out, extra));
    };

    SECTION("the good inputs run") {
        const CliResult r = run("");
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == 0);
        CHECK(std::filesystem::exists(out));
    }
    SECTION("--policy nosuch") {
        const CliResult r = run("--policy nosuch");
        check_input_error(r);
        CHECK(r.err.find("unknown policy 'nosuch'") != std::string::npos);
        CHECK(r.err.find("fifo") != std::string::npos);
        CHECK(r.err.find("srtf") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(out));
    }
    SECTION("--param nosuch=1") {
        const CliResult r = run("--param nosuch=1");
        check_input_error(r);
        CHECK(r.err.find("unknown parameter 'nosuch'") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(out));
    }
    SECTION("--param without '='") {
        const CliResult r = run("--param nosuch");
        check_input_error(r);
        CHECK(r.err.find("--param: expected k=v, got 'nosuch'") != std::string::npos);
    }
    SECTION("an unknown flag") {
        const CliResult r = run("--polcy fifo");
        check_input_error(r);
        CHECK(r.err.find("polcy") != std::string::npos);
    }
    std::filesystem::remove(out);
}

// ---------------------------------------------------------------------------------------------------
// Inputs each within the loaders' per-field limits that would still break the run (engine time,
// memory): they must be input errors naming the file, never an internal error or a crash.

TEST_CASE("a run whose simulated time would overflow is an input error, not an internal error", "[bad-input]") {
    // Engine time is int64 microseconds (about 9.2e12 s). Each row is within the reader's limits
    // (duration <= 1e12 s, work <= 1e18), yet the finish time does not fit.
    const std::string out = temp_path("overflow.json");
    std::filesystem::remove(out);
    SECTION("one job: work 1e18 iterations at 4.39 iterations/s") {
        const std::string trace = kBad + "trace_work_overflows_time.csv";
        const CliResult r = run_cli(run_args(trace, kCluster, kProfile, out));
        check_input_error(r);
        CHECK(r.err.find(trace + ":3:") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(out));
    }
    SECTION("ten jobs of 1e12 s one after another on one GPU") {
        const std::string trace = kBad + "trace_total_time_overflow.csv";
        const CliResult r = run_cli(run_args(trace, kMinimalCluster, kProfile, out));
        check_input_error(r);
        CHECK(r.err.find(trace) != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(out));
    }
}

TEST_CASE("cluster sizes beyond the limits are refused before anything is allocated", "[bad-input]") {
    const std::string out = temp_path("huge.json");
    SECTION("nodes x count overflows 64 bits") {
        const std::string cluster = kBad + "cluster_node_count_overflow.json";
        const CliResult r = run_cli_bounded(run_args(kGoodTrace, cluster, kProfile, out));
        check_input_error(r);
        CHECK(r.err.find(cluster + ": racks[0]: expected at most 1,000,000 nodes per rack entry") != std::string::npos);
    }
    SECTION("4.1e9 GPUs (1,000,000 nodes of 4096)") {
        const std::string cluster = kBad + "cluster_too_many_gpus.json";
        const CliResult r = run_cli_bounded(run_args(kGoodTrace, cluster, kProfile, out));
        check_input_error(r);
        CHECK(r.err.find(cluster + ": racks") != std::string::npos);
        CHECK(r.err.find("at most 10,000,000 GPUs") != std::string::npos);
    }
}

TEST_CASE("a --restart-cost too large for engine time is an input error", "[bad-input]") {
    // Under srtf, 'short' preempts 'long' at t=1 s; the restart delay of 'long' is to_time(restart cost),
    // which overflows for 1e30 s or inf (both pass the current ">= 0" check).
    const std::string trace =
        write_temp("preempting.csv", "job_id,submit_time,num_gpus,duration\nlong,0,1,100\nshort,1,1,5\n");
    const std::string out = temp_path("restart.json");
    std::filesystem::remove(out);
    SECTION("a moderate restart cost runs") {
        const CliResult r = run_cli(run_args(trace, kMinimalCluster, kProfile, out, "--policy srtf --restart-cost 10"));
        INFO("stderr: " << r.err);
        CHECK(r.exit_code == 0);
        std::filesystem::remove(out);
    }
    for (const char* cost : {"1e30", "inf"}) {
        DYNAMIC_SECTION("--restart-cost " << cost) {
            const CliResult r = run_cli(
                run_args(trace, kMinimalCluster, kProfile, out, std::string("--policy srtf --restart-cost ") + cost));
            check_input_error(r);
            CHECK(r.err.find("--restart-cost") != std::string::npos);
            CHECK_FALSE(std::filesystem::exists(out));
        }
    }
}

TEST_CASE("run flags with impossible values exit 2 naming the flag", "[bad-input]") {
    for (const char* args : {"run --seed -1", "run --on-bad-line maybe", "trace generate --jobs 3 --seed x"}) {
        INFO(args);
        const CliResult r = run_cli(args);
        CHECK(r.exit_code == 2);
        CHECK(r.err.find(std::string(args).find("seed") != std::string::npos ? "--seed" : "--on-bad-line") !=
              std::string::npos);
    }
}

TEST_CASE("a profile naming one GPU type twice (case-insensitively) is an input error", "[bad-input]") {
    const std::string profile =
        write_temp("dup-type.json", R"({"models": {"m": {"throughput": {"V100": 1, "v100": 2}}}})");
    const CliResult r = run_cli("validate " + profile);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(profile + ": models.m.throughput.v100: expected each GPU type once") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------------
// Trace transforms and time units that would put submit times outside engine time.

TEST_CASE("transforms that push submit times past engine time exit 2 naming the flag", "[bad-input]") {
    const std::string out = temp_path("transform-range.json");
    std::filesystem::remove(out);
    auto run = [&](const std::string& trace, const std::string& extra) {
        return run_cli(run_args(trace, kMinimalCluster, kProfile, out, extra));
    };
    SECTION("moderate factors still run") {
        CHECK(run(kGoodTrace, "--load-scale 0.5").exit_code == 0);
        CHECK(run(kGoodTrace, "--resample-rate 0.01 --resample-jobs 3").exit_code == 0);
        std::filesystem::remove(out);
    }
    SECTION("--load-scale 1e-300 stretches 5 s of arrivals to 5e300 s") {
        const CliResult r = run(kGoodTrace, "--load-scale 1e-300");
        check_input_error(r);
        CHECK(r.err.find("--load-scale: 1e-300 stretches") != std::string::npos);
        CHECK(r.err.find("expected a factor >= 5e-12") != std::string::npos);
    }
    SECTION("--resample-rate 1e-300 puts the second arrival ~1e303 s out") {
        const CliResult r = run(kGoodTrace, "--resample-rate 1e-300");
        check_input_error(r);
        CHECK(r.err.find("--resample-rate: 1e-300 jobs/hour puts arrival 2 of 2") != std::string::npos);
        CHECK(r.err.find("expected a rate of") != std::string::npos);
    }
    SECTION("--resample-jobs beyond what fits in memory") {
        const CliResult r = run(kGoodTrace, "--resample-rate 1 --resample-jobs 18446744073709551615");
        check_input_error(r);
        CHECK(r.err.find("--resample-jobs: expected an integer in [1, 100000000]") != std::string::npos);
    }
    SECTION("a --time-unit that scales a reader's times past 1e12 s") {
        // Each time is within the openb reader's limit (1e12 in the file's unit); x100 s is not.
        const std::string trace =
            write_temp("openb-far.csv",
                       "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
                       "scheduled_time\n"
                       "p0,1,1,1,1000,,LS,Succeeded,0,10,0\n"
                       "p1,1,1,1,1000,,LS,Succeeded,900000000000,900000000010,900000000000\n");
        const CliResult r = run(trace, "--trace-format alibaba-openb --time-unit 100");
        check_input_error(r);
        CHECK(r.err.find(trace + ":3: job 'p1' is submitted at 9e+13 s, expected a time in 0..1e12 s") !=
              std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(out));
}

// ---------------------------------------------------------------------------------------------------
// Duplicate keys and NUL characters in the JSON inputs (one check in json_fields covers them all).

TEST_CASE("a key written twice in any JSON input exits 2 naming the file, the object and the key", "[bad-input]") {
    const std::string out = temp_path("dup.json");
    std::filesystem::remove(out);
    SECTION("run config") {
        const std::string cfg = write_temp("dup-config.json", R"({"policy": "fifo", "seed": 1, "policy": "srtf"})");
        const CliResult r = run_cli("run --config " + q(cfg) + " --out " + q(out));
        check_input_error(r);
        CHECK(r.err.find(cfg + ": (top level): duplicate key \"policy\"") != std::string::npos);
    }
    SECTION("run config, nested") {
        const std::string cfg = write_temp("dup-params.json", R"({"policy": "srtf", "params": {"a": 1, "a": 2}})");
        const CliResult r = run_cli("run --config " + q(cfg) + " --out " + q(out));
        check_input_error(r);
        CHECK(r.err.find(cfg + ": params: duplicate key \"a\"") != std::string::npos);
    }
    SECTION("sweep spec") {
        const std::string spec = write_temp(
            "dup-sweep.json", R"({"base": {"trace": "x.csv"}, "grid": {"seed": [1, 2]}, "grid": {"seed": [3]}})");
        const CliResult r = run_cli("sweep " + q(spec) + " --out " + q(temp_path("dup-sweep-out")));
        check_input_error(r);
        CHECK(r.err.find(spec + ": (top level): duplicate key \"grid\"") != std::string::npos);
    }
    SECTION("cluster, deep inside an array") {
        const std::string cluster = write_temp("dup-alias.json", R"({"gpu_types": {"g": {"aliases": ["x"]}},
                "node_types": {"n": {"gpu_type": "g", "gpus": 1}},
                "racks": [{"node_type": "n", "nodes": 1}, [{"a": 1}, {"b": 1, "b": 2}]]})");
        const CliResult r = run_cli("validate " + q(cluster));
        check_input_error(r);
        CHECK(r.err.find(cluster + ": racks[1][1]: duplicate key \"b\"") != std::string::npos);
    }
    SECTION("the same key in sibling objects is fine") {
        const std::string cluster = write_temp(
            "sibling-keys.json", R"({"gpu_types": {"g": {}}, "node_types": {"n": {"gpu_type": "g", "gpus": 1}},
                "racks": [{"node_type": "n", "nodes": 1}, {"node_type": "n", "nodes": 2}]})");
        CHECK(run_cli("validate " + q(cluster)).exit_code == 0);
    }
    SECTION("a NUL character in a JSON string or key") {
        const std::string cluster = write_temp("nul-name.json", R"({"name": "a\u0000b", "gpu_types": {"g": {}},
                "node_types": {"n": {"gpu_type": "g", "gpus": 1}}, "racks": [{"node_type": "n", "nodes": 1}]})");
        const CliResult r = run_cli("validate " + q(cluster));
        check_input_error(r);
        CHECK(r.err.find(cluster + ": name: NUL character in a string") != std::string::npos);
        const std::string profile = write_temp("nul-key.json", R"({"models": {"m\u0000": {"throughput": {"g": 1}}}})");
        const CliResult k = run_cli("validate " + q(profile));
        check_input_error(k);
        CHECK(k.err.find(profile + ": models: NUL character in a key") != std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(out));
}

}  // namespace dlsim::test::bad_input_tests

namespace dlsim::test::bad_input_tests {

namespace {

/// 100,000 nested arrays (200 KB): deep enough that anything walking the value recursively overflows the stack.
std::string deep_arrays() { return std::string(100'000, '[') + std::string(100'000, ']'); }

/// True when `s` holds a byte a terminal would act on (control characters other than the newline).
bool has_control_bytes(const std::string& s) {
    return std::any_of(s.begin(), s.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return (u < 0x20 && u != '\n') || u == 0x7f;
    });
}

}  // namespace

TEST_CASE("a JSON input nested deeper than 128 levels exits 2 naming the position, in every JSON reader",
          "[bad-input]") {
    const std::string deep = write_temp("deep.json", deep_arrays());
    const std::string out = temp_path("deep-out.json");
    const std::string expected = deep + ":1:129: nesting deeper than 128 levels";
    auto check = [&](const std::string& args) {
        const CliResult r = run_cli(args);
        check_input_error(r);
        CHECK(r.err.find(expected) != std::string::npos);
    };
    SECTION("cluster") { check(run_args(kGoodTrace, deep, kProfile, out)); }
    SECTION("profiles") { check(run_args(kGoodTrace, kMinimalCluster, deep, out)); }
    SECTION("run config") { check("run --config " + q(deep) + " --out " + q(out)); }
    SECTION("Philly JSON trace") {
        const std::string trace = write_temp("cluster_job_log", deep_arrays());
        const CliResult r = run_cli("run --trace-format philly --trace " + q(trace) + " --out " + q(out));
        check_input_error(r);
        CHECK(r.err.find(trace + ":1:129: nesting deeper than 128 levels") != std::string::npos);
    }
    SECTION("sweep spec") { check("sweep " + q(deep) + " --out " + q(temp_path("deep-sweep"))); }
    SECTION("validate") { check("validate " + q(deep)); }
    SECTION("128 levels are accepted by the parser (the cluster check then names the field)") {
        const std::string ok = write_temp("deep128.json", std::string(128, '[') + std::string(128, ']'));
        const CliResult r = run_cli("validate " + q(ok));
        check_input_error(r);
        CHECK(r.err.find("nesting deeper") == std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("a number beyond a double's range exits 2 naming the file and the field", "[bad-input]") {
    SECTION("cluster") {
        const std::string cluster = write_temp("overflow-cluster.json", R"({"gpu_types": {"g": {"nic_gbps": 1e400}},
            "node_types": {"n": {"gpu_type": "g", "gpus": 1}}, "racks": [{"node_type": "n", "nodes": 1}]})");
        const CliResult r = run_cli("validate " + q(cluster));
        check_input_error(r);
        CHECK(r.err.find(cluster + ": gpu_types.g.nic_gbps: number overflow parsing '1e400', expected a number within "
                                   "+-1.8e308") != std::string::npos);
    }
    SECTION("run config seed") {
        const std::string cfg = write_temp("overflow-seed.json", R"({"policy": "fifo", "seed": 1e400})");
        const CliResult r = run_cli("run --config " + q(cfg) + " --out " + q(temp_path("overflow.json")));
        check_input_error(r);
        CHECK(r.err.find(cfg + ": seed: number overflow parsing '1e400'") != std::string::npos);
    }
    SECTION("sweep grid value") {
        const std::string spec =
            write_temp("overflow-sweep.json", R"({"base": {"policy": "fifo"}, "grid": {"load_scale": [1, -1e999]}})");
        const CliResult r = run_cli("sweep " + q(spec) + " --out " + q(temp_path("overflow-sweep")));
        check_input_error(r);
        CHECK(r.err.find(spec + ": grid.load_scale[1]: number overflow parsing '-1e999'") != std::string::npos);
    }
}

TEST_CASE("trace generate --jobs beyond 1e8 exits 2 naming the flag, the limit and the value", "[bad-input]") {
    for (const char* extra : {"", " --gavel-paper"}) {
        INFO(extra);
        const CliResult r = run_cli_bounded(std::string("trace generate --jobs 100000000000") + extra + " --out " +
                                            q(temp_path("huge.csv")));
        check_input_error(r);
        CHECK(r.err.find("--jobs: expected 1 to 100000000 jobs, got 100000000000") != std::string::npos);
    }
    CHECK(run_cli("trace generate --jobs 3 --out " + q(temp_path("three.csv"))).exit_code == 0);
}

TEST_CASE("input text quoted in a message has its control bytes escaped", "[bad-input]") {
    SECTION("the first line of a file whose format cannot be told") {
        const std::string junk = write_temp("junk.bin", "\x1b[2J\x1b]0;owned\x07\x01\x02\xff\xfe,x\nmore\n");
        const CliResult r = run_cli("run --trace " + q(junk) + " --out " + q(temp_path("junk.json")));
        check_input_error(r);
        CHECK_FALSE(has_control_bytes(r.err));
        CHECK(r.err.find("'\\x1b[2J\\x1b]0;owned\\x07\\x01\\x02\\xff\\xfe,x'") != std::string::npos);
    }
    SECTION("a field of a canonical trace") {
        const std::string trace =
            write_temp("junk-field.csv", "job_id,submit_time,num_gpus,duration\n1,0\x1b[31m,1,10\n");
        const CliResult r = run_cli("run --trace " + q(trace) + " --out " + q(temp_path("junk.json")));
        check_input_error(r);
        CHECK_FALSE(has_control_bytes(r.err));
        CHECK(r.err.find("got '0\\x1b[31m'") != std::string::npos);
    }
    SECTION("valid UTF-8 is kept") {
        const std::string trace =
            write_temp("utf8-field.csv", "job_id,submit_time,num_gpus,duration\n1,\xe4\xbd\xa0,1,10\n");
        const CliResult r = run_cli("run --trace " + q(trace) + " --out " + q(temp_path("junk.json")));
        check_input_error(r);
        CHECK(r.err.find("got '\xe4\xbd\xa0'") != std::string::npos);
    }
}

TEST_CASE("a directory where a file is expected, and an output that cannot be written, say so", "[bad-input]") {
    const std::string dir = temp_path("a-folder");
    std::filesystem::create_directories(dir);
    const std::string out = temp_path("dir-out.json");
    for (const std::string& args :
         {run_args(dir, kCluster, kProfile, out), run_args(kGoodTrace, dir, kProfile, out),
          run_args(kGoodTrace, kCluster, dir, out), "run --config " + q(dir) + " --out " + q(out), "validate " + q(dir),
          "trace stats " + q(dir)}) {
        INFO(args);
        const CliResult r = run_cli(args);
        check_input_error(r);
        CHECK(r.err.find(dir + ": is a directory, expected a file") != std::string::npos);
    }
    SECTION("--out DIR") {
        const CliResult r = run_cli(run_args(kGoodTrace, kCluster, kProfile, dir));
        check_input_error(r);
        CHECK(r.err.find(dir + ": is a directory, expected an output file name") != std::string::npos);
    }
    SECTION("--out under a regular file") {
        const std::string file = write_temp("a-file", "x");
        const CliResult r = run_cli(run_args(kGoodTrace, kCluster, kProfile, file + "/sub/out.json"));
        check_input_error(r);
        CHECK(r.err.find(file + "/sub/out.json: cannot create the folder " + file + "/sub") != std::string::npos);
    }
    CHECK_FALSE(std::filesystem::exists(out));
}

}  // namespace dlsim::test::bad_input_tests

namespace dlsim::test::bad_input_tests {

TEST_CASE("a zone offset shorter than HH:MM or HHMM is refused without reading past the text", "[bad-input]") {
    // Found by the trace_helios and trace_acme fuzzers (ASan: heap-buffer-overflow in parse_datetime).
    CHECK_FALSE(parse_datetime("2020-03-31 23:59:50+1:2").has_value());
    CHECK_FALSE(parse_datetime("2020-03-31 23:59:50-12").has_value());
    CHECK_FALSE(parse_datetime("2020-03-31 23:59:50+0 :00").has_value());
    CHECK(parse_datetime("2020-03-31 23:59:50+08:00") == parse_datetime("2020-03-31 15:59:50Z"));
    CHECK(parse_datetime("2020-03-31 23:59:50-0130") == parse_datetime("2020-04-01 01:29:50"));
}

}  // namespace dlsim::test::bad_input_tests

namespace dlsim::test::bad_input_tests {

TEST_CASE("dlsim validate on JSON whose schema or error member is not a string names the file", "[bad-input]") {
    // Found by the validate fuzzer: the kind of a JSON file was told by Json::value("schema", ""), which
    // throws a type error (an internal error, exit 1) when "schema" is an object.
    const std::string path = write_temp("schema-object.json", R"({"schema": {"m": {"throughput": {"v100": 1}}}})");
    const CliResult r = run_cli("validate " + q(path));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(path) != std::string::npos);
    CHECK(r.err.find("internal error") == std::string::npos);
    CHECK(json_fields::string_member(json_fields::Json::parse(R"({"schema": 3})"), "schema", "none") == "none");
    CHECK(json_fields::string_member(json_fields::Json::parse(R"({"schema": "x"})"), "schema") == "x");
    CHECK(json_fields::string_member(json_fields::Json::parse("[1]"), "schema") == "");
}

}  // namespace dlsim::test::bad_input_tests
