// The Gavel trace reader: hand-made fixtures in both published forms, malformed rows, and the real
// msr and physical_cluster traces from ../shared/data (GPU-count mix, work, and a run on Gavel's cluster).
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <set>

#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"
#include "traces/readers/trace_format.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::gavel_tests {

namespace {

const std::string kDir = std::string(DLSIM_TEST_DATA) + "/traces/gavel/";

/// Checks one record field by field (gavel has no gpu type, user, vc or status).
void check_job(const Trace& t, std::size_t i, const std::string& id, double submit, int gpus, double work,
               const std::string& model, double priority, std::uint32_t line) {
    INFO("job " << i);
    const JobRecord& j = t.jobs.at(i);
    CHECK(j.id == id);
    CHECK(j.submit_time == submit);
    CHECK(j.num_gpus == gpus);
    CHECK(j.work == work);
    CHECK(j.duration == work);  // placeholder: 1 iteration/s
    CHECK(t.strings[j.model] == model);
    CHECK(j.priority == priority);
    CHECK(j.gpu_type == 0);
    CHECK(j.allowed_gpu_types == 0);
    CHECK(j.gpu_fraction == 1);
    CHECK(j.user == 0);
    CHECK(j.vc == 0);
    CHECK(j.status == 0);
    CHECK(j.outcome == JobOutcome::Unknown);
    CHECK(j.line == line);
}

/// A one-line 7-field msr trace with the given fields (for malformed-row tests).
std::string msr_line(const std::string& type, const std::string& dir, const std::string& steps,
                     const std::string& arrival, const std::string& sf) {
    return fmt::format("{}\tpython3 main.py\t--num_steps\t{}\t{}\t{}\t{}\n", type, dir, steps, arrival, sf);
}

/// Splits a line on tabs (the test's own reading of the files, independent of the reader).

std::vector<std::string> files_in(const std::string& dir) {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".trace") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("gavel: the 7-field msr form, field by field", "[traces]") {
    const Trace t = read_gavel_trace(kDir + "msr_small.trace", {});
    CHECK(t.format == "gavel");
    CHECK(t.path == kDir + "msr_small.trace");
    CHECK_FALSE(t.wall_clock);
    REQUIRE(t.jobs.size() == 4);
    // Arrivals 130, 10, 47.5, 3610: shifted so the first job is at 0.
    CHECK(t.time_origin == 10);
    check_job(t, 0, "L1", 120, 1, 5000, "ResNet-50 (batch size 64)", 0, 1);
    check_job(t, 1, "L2", 0, 4, 95121, "Transformer (batch size 128)", 0, 2);
    // Line 3 is blank; line 4's command holds an unbalanced quote, which Gavel does not treat as quoting.
    check_job(t, 2, "L4", 37.5, 2, 2000, "A3C", 0, 4);
    check_job(t, 3, "L5", 3600, 32, 1234567, "LM (batch size 20)", 0, 5);
    CHECK(t.report.rows_read == 4);
    CHECK(t.report.kept == 4);
    CHECK(t.report.dropped.empty());
    CHECK(t.report.repaired.empty());
    CHECK(t.report.assumptions.size() == 8);
    CHECK_THAT(t.report.assumptions.front(), Catch::Contains("7-field msr form"));
}

TEST_CASE("gavel: the 10-field physical_cluster form (CRLF), field by field", "[traces]") {
    const Trace t = read_gavel_trace(kDir + "physical_small.trace", {});
    REQUIRE(t.jobs.size() == 3);
    CHECK(t.time_origin == 0);
    check_job(t, 0, "L1", 0, 1, 36030, "ResNet-18 (batch size 128)", 1, 1);
    check_job(t, 1, "L2", 600.5, 2, 11005, "Transformer (batch size 16)", 5, 2);
    check_job(t, 2, "L3", 1800, 4, 14775, "Recommendation (batch size 8192)", 1, 3);
    CHECK(t.report.rows_read == 3);
    CHECK(t.report.kept == 3);
    CHECK(t.report.dropped.empty());
    CHECK_THAT(t.report.assumptions.front(), Catch::Contains("10-field physical_cluster form"));
}

TEST_CASE("gavel: --time-unit scales arrival_time only", "[traces]") {
    ReadOptions o;
    o.time_unit = 60;
    const Trace t = read_gavel_trace(kDir + "msr_small.trace", o);
    CHECK(t.jobs[0].submit_time == 120 * 60);
    CHECK(t.jobs[3].submit_time == 3600 * 60);
    CHECK(t.jobs[3].work == 1234567);
    CHECK(t.jobs[3].duration == 1234567);
}

TEST_CASE("gavel: detection by file name or by 6 or 9 tabs on the first line", "[traces]") {
    CHECK(detect_gavel("x/0e4a51.trace", ""));
    CHECK(detect_gavel("jobs.txt", "A3C\tcmd\t-n\t1\t100\t0.0\t1"));
    CHECK(detect_gavel("jobs.txt", "A3C\tcmd\tdir\t-n\t1\t100\t1\t1\t-1\t0"));
    CHECK_FALSE(detect_gavel("jobs.txt", "A3C\tcmd\t-n\t1\t100\t0.0"));
    CHECK_FALSE(detect_gavel("trace.csv", "job_id,submit_time,num_gpus,duration"));
    CHECK_FALSE(detect_gavel("60_job.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval"));
    CHECK_FALSE(detect_gavel("trace.tracex", "a,b"));
    // Through the registry, with auto-detection, a .trace file is read as gavel.
    CHECK(read_trace(kDir + "physical_small.trace", "auto", {}).format == "gavel");
    CHECK(read_trace(kDir + "msr_small.trace", "gavel", {}).jobs.size() == 4);
}

TEST_CASE("gavel: malformed rows name file:line and the column", "[traces]") {
    struct Case {
        std::string text, expect;
    };
    const std::string ok = msr_line("A3C", "1", "100", "0", "1");
    const std::vector<Case> cases = {
        {ok + "A3C\tpython3\t-n\t1\t100\t5\n", ":2: expected 7 tab-separated fields (msr form, as on line 1"},
        {"A3C\tpython3\t-n\t1\t100\t5\t1\t1\n", ":1: expected 7 tab-separated fields (msr form: job_type"},
        {ok + msr_line("A3C", "1", "12.5", "0", "1"),
         ":2: column 'total_steps': expected an integer number of steps >= 1 (at most 1e12) "
         "(field 5 of 7, msr form), got '12.5'"},
        {ok + msr_line("A3C", "1", "0", "0", "1"), ":2: column 'total_steps'"},
        {ok + msr_line("A3C", "1", "100", "0", "0"),
         ":2: column 'scale_factor': expected an integer number of GPUs >= 1"},
        {ok + msr_line("A3C", "1", "100", "0", "x"), ":2: column 'scale_factor'"},
        {ok + msr_line("A3C", "1", "100", "-1", "1"), ":2: column 'arrival_time': expected a time in seconds >= 0"},
        {ok + msr_line("A3C", "1", "100", "nan", "1"), ":2: column 'arrival_time'"},
        {ok + msr_line(" ", "1", "100", "0", "1"), ":2: column 'job_type': expected a job type"},
        {ok + msr_line("A3C", "yes", "100", "0", "1"), ":2: column 'needs_data_dir': expected 0 or 1"},
        {"A3C\tcmd\tdir\t-n\t1\t100\t1\t0\t-1\t0\n",
         ":1: column 'priority_weight': expected a priority weight > 0 "
         "(field 8 of 10, physical_cluster form), got '0'"},
        {"A3C\tcmd\tdir\t-n\t1\t100\t1\t1\t0\t0\n", ":1: column 'SLO': expected an SLO > 0 or -1 (none)"},
        {"A3C\tcmd\tdir\t-n\t1\t100\t1\t1\t-1\tsoon\n", ":1: column 'arrival_time'"},
    };
    int n = 0;
    for (const auto& c : cases) {
        const std::string path = write_temp(fmt::format("gavel-bad-{}.trace", n++), c.text);
        INFO(c.text);
        CHECK_THROWS_WITH(read_gavel_trace(path, {}), Catch::Contains(path + c.expect));
    }
    CHECK_THROWS_WITH(read_gavel_trace(kDir + "no-such.trace", {}), Catch::Contains("no-such.trace: cannot open file"));
    CHECK_THROWS_WITH(read_gavel_trace(write_temp("gavel-empty.trace", "\n\n"), {}), Catch::Contains("no job rows"));
}

TEST_CASE("gavel: malformed rows are skipped and counted by reason", "[traces]") {
    const Trace t = read_gavel_trace(kDir + "malformed.trace", skip_bad());
    REQUIRE(t.jobs.size() == 2);
    CHECK(t.jobs[0].id == "L1");
    CHECK(t.jobs[1].id == "L10");
    CHECK(t.report.rows_read == 10);
    CHECK(t.report.kept == 2);
    const std::map<std::string, std::uint64_t> expected = {{"wrong number of fields", 2}, {"bad total_steps", 2},
                                                           {"bad scale_factor", 1},       {"bad arrival_time", 1},
                                                           {"bad job_type", 1},           {"bad needs_data_dir", 1}};
    CHECK(t.report.dropped == expected);
    REQUIRE(t.report.first_errors.size() == 5);
    CHECK_THAT(t.report.first_errors[0], Catch::Contains("malformed.trace:2: expected 7 tab-separated fields"));
    // Under the default policy the first bad row stops the read.
    CHECK_THROWS_WITH(read_gavel_trace(kDir + "malformed.trace", {}), Catch::Contains("malformed.trace:2:"));
}

TEST_CASE("gavel: every shared msr and physical_cluster trace loads and matches the file", "[traces][shared-data]") {
    const std::string root = std::string(DLSIM_SHARED_DATA) + "/traces/gavel";
    if (!shared_data_present(root + "/msr/seed=0")) return;
    const ProfileSet profiles = load_profiles(std::string(DLSIM_SOURCE_DIR) + "/models/profiles/gavel.json");
    std::size_t files = 0, jobs = 0;
    for (const auto& dir : {root + "/msr/seed=0", root + "/physical_cluster"}) {
        const bool msr = dir.ends_with("seed=0");
        for (const auto& path : files_in(dir)) {
            INFO(path);
            const auto rows = read_rows(path, '\t');
            const Trace t = read_gavel_trace(path, {});
            REQUIRE(t.jobs.size() == rows.size());
            CHECK(t.report.rows_read == rows.size());
            CHECK(t.report.dropped.empty());
            // The GPU-count mix, the work and the model names, from the file's own columns.
            const std::size_t sf = 6, steps = msr ? 4 : 5, arrival = msr ? 5 : 9;
            std::map<int, std::size_t> file_mix, read_mix;
            double file_steps = 0, read_work = 0, first_arrival = 1e300;
            for (const auto& r : rows) {
                REQUIRE(r.size() == (msr ? 7u : 10u));
                ++file_mix[std::stoi(r[sf])];
                file_steps += std::stod(r[steps]);
                first_arrival = std::min(first_arrival, std::stod(r[arrival]));
            }
            for (std::size_t i = 0; i < t.jobs.size(); ++i) {
                const auto& j = t.jobs[i];
                ++read_mix[j.num_gpus];
                read_work += j.work;
                CHECK(t.strings[j.model] == rows[i][0]);
                CHECK(j.submit_time == std::stod(rows[i][arrival]) - first_arrival);
                CHECK(profiles.find_model(t.strings[j.model]).has_value());
            }
            CHECK(read_mix == file_mix);
            CHECK(read_work == file_steps);
            ++files;
            jobs += t.jobs.size();
        }
    }
    CHECK(files == 20);  // 12 msr VCs + 8 physical_cluster traces (PROVENANCE.txt)
    CHECK(jobs > 10000);
}

TEST_CASE("gavel: every shared msr trace runs with fifo on Gavel's 36:36:36 cluster", "[traces][shared-data]") {
    const std::string root = std::string(DLSIM_SHARED_DATA) + "/traces/gavel/msr/seed=0";
    if (!shared_data_present(root)) return;
    RunInputs base;
    base.cluster = parse_cluster(slurp(std::string(DLSIM_SOURCE_DIR) + "/models/clusters/gavel_simulated.json"),
                                 "gavel_simulated.json");
    base.profiles = load_profiles(std::string(DLSIM_SOURCE_DIR) + "/models/profiles/gavel.json");
    std::size_t total_rejected = 0;
    for (const auto& path : files_in(root)) {
        INFO(path);
        std::size_t wider = 0;  // jobs wider than the 36 GPUs of any one type
        for (const auto& r : read_rows(path, '\t')) wider += std::stoi(r.at(6)) > 36;
        RunInputs in = base;
        in.trace = read_gavel_trace(path, {});
        RunConfig config;
        config.policy = "fifo";
        config.out.clear();
        const RunOutcome o = simulate(in, config);
        CHECK(o.summary.jobs == in.trace.jobs.size());
        CHECK(o.summary.finished + o.summary.rejected == in.trace.jobs.size());
        CHECK(o.summary.unfinished == 0);
        CHECK(o.summary.rejected == wider);
        CHECK(o.rejected.size() == wider);
        for (const auto& [job, why] : o.rejected) {
            CHECK(in.trace.jobs[job].num_gpus > 36);
            CHECK_THAT(why, Catch::Contains("largest GPU type it may use has 36"));
        }
        total_rejected += wider;
    }
    CHECK(total_rejected == 1);  // one 64-GPU job in seed=0 (the file's scale_factor column)
}

}  // namespace dlsim::test::gavel_tests
