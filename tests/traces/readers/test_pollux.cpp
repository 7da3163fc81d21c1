// The Pollux/Sia workload reader: a hand-made file field by field, detection, malformed rows naming
// file:line and column, the goodput message a run gives without goodput data, and every shared workload.
#include <catch2/catch.hpp>
#include <filesystem>

#include "models/base/input_error.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"
#include "traces/readers/trace_format.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::pollux_tests {

namespace {

const std::string kSmall = std::string(DLSIM_TEST_DATA) + "/traces/pollux/workload_small.csv";
const std::string kHeader = "name,time,application,num_replicas,batch_size";

std::string error_of(const std::string& text, const std::string& name = "bad_pollux.csv") {
    const std::string path = write_temp(name, text);
    try {
        (void)read_trace(path, "pollux", ReadOptions{});
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("pollux: a hand-made workload field by field", "[traces]") {
    const Trace t = read_trace(kSmall, "auto", ReadOptions{});
    CHECK(t.format == "pollux");
    REQUIRE(t.jobs.size() == 3);
    struct Want {
        const char* id;
        double submit;
        const char* model;
        int gpus, batch;
        std::uint32_t line;
    };
    // Submit times are kept as given: time 0 is the workload's start, where the artifacts' simulators tick.
    const Want want[] = {{"cifar10-0", 107, "cifar10", 6, 2048, 2},
                         {"ncf-1", 135.5, "ncf", 1, 32768, 3},
                         {"bert-2", 262.661893, "bert", 12, 384, 4}};
    for (std::size_t i = 0; i < 3; ++i) {
        INFO("job " << i);
        const JobRecord& j = t.jobs[i];
        CHECK(j.id == want[i].id);
        CHECK(j.submit_time == want[i].submit);
        CHECK(t.strings[j.model] == want[i].model);
        CHECK(j.num_gpus == want[i].gpus);
        CHECK(j.batch_size == want[i].batch);
        CHECK(j.line == want[i].line);
        CHECK(j.duration == 0);
        CHECK(j.work == 0);
        CHECK(j.min_num_gpus == 0);
        CHECK(j.max_num_gpus == 0);
        CHECK(j.gpu_type == 0);
        CHECK(j.outcome == JobOutcome::Unknown);
    }
    CHECK(t.time_origin == 0);
}

TEST_CASE("pollux: detection by the exact header, columns found by name", "[traces]") {
    CHECK(detect_pollux("w.csv", kHeader));
    CHECK(detect_pollux("w.csv", "\xEF\xBB\xBF" + kHeader + "\r"));
    CHECK_FALSE(detect_pollux("w.csv", kHeader + ",extra"));
    CHECK_FALSE(detect_pollux("w.csv", "job_id,submit_time,num_gpus,duration"));
    // No other format claims the header (auto picks this reader, not the canonical CSV's error).
    for (const auto& f : trace_formats())
        if (std::string(f.name) != "pollux") CHECK_FALSE(f.detect("w.csv", kHeader));

    const std::string path = write_temp(
        "pollux_reordered.csv", "batch_size,application,name,num_replicas,time,note\n64,imagenet,im-0,16,1e2,x\n");
    const Trace t = read_trace(path, "pollux", ReadOptions{});
    REQUIRE(t.jobs.size() == 1);
    CHECK(t.jobs[0].id == "im-0");
    CHECK(t.jobs[0].num_gpus == 16);
    CHECK(t.jobs[0].batch_size == 64);
    CHECK(t.jobs[0].submit_time == 100);
    CHECK(t.time_origin == 0);
}

TEST_CASE("pollux: malformed rows name file:line and the column", "[traces]") {
    const std::string h = kHeader + "\n";
    CHECK_THAT(error_of(h + "a,1,bert,2,384\n,1,bert,2,384\n"),
               Catch::Matchers::EndsWith("bad_pollux.csv:3: column 'name': expected a non-empty job name, got ''"));
    CHECK_THAT(error_of(h + "a,-1,bert,2,384\n"),
               Catch::Matchers::EndsWith(
                   "bad_pollux.csv:2: column 'time': expected a time in seconds >= 0 (at most 1e12 s), got '-1'"));
    CHECK_THAT(error_of(h + "a,1,bert,0,384\n"),
               Catch::Matchers::EndsWith(
                   "bad_pollux.csv:2: column 'num_replicas': expected an integer number of GPUs >= 1, got '0'"));
    CHECK_THAT(error_of(h + "a,1,bert,2,3.5\n"),
               Catch::Matchers::EndsWith(
                   "bad_pollux.csv:2: column 'batch_size': expected an integer batch size >= 1, got '3.5'"));
    CHECK_THAT(error_of(h + "a,1,,2,384\n"), Catch::Matchers::Contains("bad_pollux.csv:2: column 'application'"));
    CHECK_THAT(error_of(h + "a,1,bert,2,384\na,2,bert,2,384\n"),
               Catch::Matchers::EndsWith("bad_pollux.csv:3: column 'name': duplicate name 'a' (first on line 2)"));
    CHECK_THAT(error_of(h + "a,1,bert,2\n"), Catch::Matchers::Contains("bad_pollux.csv:2: expected 5 fields"));
    CHECK_THAT(error_of("name,time,application,num_replicas\n"),
               Catch::Matchers::Contains("bad_pollux.csv:1: missing required column 'batch_size'"));
    CHECK_THAT(error_of(""), Catch::Matchers::Contains("empty file, expected the pollux header"));

    // --on-bad-line skip keeps the good rows and counts the others by reason.
    const std::string path = write_temp("pollux_skip.csv", h + "a,1,bert,2,384\nb,x,bert,2,384\nc,3,bert,2,384\n");
    const Trace t = read_trace(path, "pollux", skip_bad());
    CHECK(t.jobs.size() == 2);
    CHECK(t.report.dropped.at("bad time") == 1);
}

TEST_CASE("pollux: a run without goodput data names the job's line and the profile to use", "[traces][cli]") {
    const CliResult r = run_cli("run --trace " + kSmall + " --out " + temp_path("pollux_no_goodput"));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Matchers::Contains(
                          "workload_small.csv:2: column 'model': model 'cifar10' has no goodput data in the profile"));
    CHECK_THAT(r.err, Catch::Matchers::Contains("models/profiles/pollux_elastic.json"));
}

TEST_CASE("pollux: with goodput data a workload runs, every job to its completion", "[traces][cli]") {
    const std::string src = std::string(DLSIM_SOURCE_DIR);
    const CliResult r =
        run_cli("run --trace " + kSmall + " --profile " + src + "/models/profiles/pollux_elastic.json --cluster " +
                src + "/models/clusters/pollux_16x4_t4.json --policy optimus --out " + temp_path("pollux_goodput_run"));
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Matchers::Contains("jobs         3 (3 finished, 0 rejected, 0 unfinished)"));
}

TEST_CASE("pollux: every shared Pollux and Sia workload loads", "[traces][shared-data]") {
    const std::string root = std::string(DLSIM_SHARED_DATA) + "/traces";
    if (!shared_data_present(root + "/pollux/workloads") || !shared_data_present(root + "/sia/workloads")) return;
    std::vector<std::filesystem::path> files;
    for (const char* dir : {"/pollux", "/sia/workloads"})
        for (const auto& e : std::filesystem::recursive_directory_iterator(root + dir))
            if (e.path().filename().string().rfind("workload-", 0) == 0) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    CHECK(files.size() == 168);  // find pollux sia/workloads -name 'workload-*.csv' | wc -l
    std::size_t jobs = 0;
    for (const auto& f : files) {
        INFO(f.string());
        const Trace t = read_trace(f.string(), "auto", ReadOptions{});
        CHECK(t.format == "pollux");
        CHECK(t.report.kept == t.report.rows_read);
        for (const auto& j : t.jobs) CHECK((j.batch_size > 0 && j.num_gpus > 0));
        jobs += t.jobs.size();
    }
    // Their non-blank data lines (find ... -exec tail -n +2 {} \; | grep -c .): 131,360 jobs.
    CHECK(jobs == 131360);
    // Pollux's workload-1 starts with cifar10-0 at 107 s on 6 GPUs, batch 2048.
    const Trace w1 = read_trace(root + "/pollux/workloads/workload-1.csv", "auto", ReadOptions{});
    CHECK(w1.jobs.size() == 160);
    CHECK(w1.jobs[0].id == "cifar10-0");
    CHECK(w1.jobs[0].submit_time == 107);
    CHECK(w1.time_origin == 0);
    CHECK(w1.jobs[0].num_gpus == 6);
    CHECK(w1.jobs[0].batch_size == 2048);
}

}  // namespace dlsim::test::pollux_tests
