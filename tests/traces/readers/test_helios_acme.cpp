// The helios and acme readers: hand-made fixtures in the published schemas (Helios cluster_log.csv, Acme
// trace_seren.csv and trace_kalos.csv), malformed rows, header variants, detection and a replay.
#include <catch2/catch.hpp>

#include "models/base/input_error.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"
#include "traces/readers/trace_format.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::helios_acme_tests {

namespace {

const std::string kFixtures = std::string(DLSIM_TEST_DATA) + "/traces";

/// One expected canonical record (fields the formats do not have keep their defaults).
struct Expected {
    const char* id;
    double submit_time;
    int num_gpus;
    double duration;
    const char* user;
    const char* vc;
    const char* status;
    JobOutcome outcome;
    std::uint32_t line;
};

void check_records(const Trace& t, const std::vector<Expected>& expected) {
    REQUIRE(t.jobs.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const JobRecord& j = t.jobs[i];
        const Expected& e = expected[i];
        INFO("job " << i << " (" << e.id << ")");
        CHECK(j.id == e.id);
        CHECK(j.submit_time == e.submit_time);
        CHECK(j.num_gpus == e.num_gpus);
        CHECK(j.duration == e.duration);
        CHECK(j.work == 0);
        CHECK(j.gpu_fraction == 1);
        CHECK(j.priority == 0);
        CHECK(t.strings[j.model].empty());
        CHECK(t.strings[j.gpu_type].empty());
        CHECK(t.strings[j.allowed_gpu_types].empty());
        CHECK(t.strings[j.user] == e.user);
        CHECK(t.strings[j.vc] == e.vc);
        CHECK(t.strings[j.status] == e.status);
        CHECK(j.outcome == e.outcome);
        CHECK(j.line == e.line);
    }
}

bool has_assumption(const Trace& t, const std::string& text) {
    for (const auto& a : t.report.assumptions)
        if (a.find(text) != std::string::npos) return true;
    return false;
}

std::string first_line_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
}

constexpr auto C = JobOutcome::Completed;
constexpr auto F = JobOutcome::Failed;
constexpr auto K = JobOutcome::Killed;

const char* kHeliosHeader =
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";
const char* kHeliosRow =
    "1,u1,vc1,8,32,1,COMPLETED,2020-04-01 00:00:00,2020-04-01 00:00:10,2020-04-01 00:10:10,600,10\n";
const char* kSerenHeader =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n";
const char* kSerenRow =
    "7,u7,1,8,128,Other,COMPLETED,2023-03-01 08:00:00+08:00,2023-03-01 08:00:10+08:00,"
    "2023-03-01 08:10:10+08:00,600,10,4800.0\n";

}  // namespace

TEST_CASE("helios: cluster_log.csv fixture gives exact canonical records and report", "[traces]") {
    const Trace t = read_helios_trace(kFixtures + "/helios/cluster_log.csv", {});
    CHECK(t.format == "helios");
    CHECK(t.path == kFixtures + "/helios/cluster_log.csv");
    CHECK(t.wall_clock);
    CHECK(t.time_origin == 1585699190);  // 2020-03-31 23:59:50 (zone-less, read as UTC): job 1009, line 10
    // File order is kept; submit times are seconds after the earliest submit.
    check_records(t, {
                         {"1001", 20, 8, 3600, "uA1", "vcEwI", "COMPLETED", C, 2},
                         {"1003", 130, 16, 1800, "uA1", "vcEwI", "CANCELLED", K, 4},
                         {"1004", 220, 1, 15, "uB7", "vcHvQ", "FAILED", F, 5},
                         {"1005", 250, 2, 86400, "uB7", "vcHvQ", "TIMEOUT", F, 6},
                         {"1006", 610, 8, 7200, "uC3", "vc8Gr", "NODE_FAIL", F, 7},
                         {"1009", 0, 1, 60, "uA1", "vcEwI", "COMPLETED", C, 10},
                         {"1012", 2110, 8, 600, "uD4", "vcKeu", "COMPLETED", C, 13},  // duration column 601: within 1 s
                     });
    const ReadReport& r = t.report;
    CHECK(r.rows_read == 12);
    CHECK(r.kept == 7);
    CHECK(r.dropped == std::map<std::string, std::uint64_t>{{"cpu-only", 2},
                                                            {"never started (no start_time)", 1},
                                                            {"not finished (no end_time)", 1},
                                                            {"zero run time (end_time = start_time)", 1}});
    CHECK(r.repaired.empty());
    CHECK(r.first_errors.empty());
    CHECK(has_assumption(t, "CANCELLED = killed"));
    CHECK(has_assumption(t, "TIMEOUT and NODE_FAIL = failed"));
    CHECK(has_assumption(t, "read as UTC"));
    CHECK(has_assumption(t, "columns not used: cpu_num, node_num, queue"));
    CHECK_FALSE(has_assumption(t, "unknown columns"));
}

TEST_CASE("acme: Seren fixture (+08:00 times) gives exact canonical records and report", "[traces]") {
    const Trace t = read_acme_trace(kFixtures + "/acme/trace_seren.csv", {});
    CHECK(t.format == "acme");
    CHECK(t.wall_clock);
    CHECK(t.time_origin == 1677628800);  // 2023-03-01 08:00:00+08:00 = 2023-03-01 00:00:00 UTC
    // Acme has no VC column: vc stays empty; `type` is not kept.
    check_records(t, {
                         {"6000001", 0, 8, 7200, "u100", "", "COMPLETED", C, 2},
                         {"6000003", 300, 16, 1800, "u100", "", "CANCELLED", K, 4},
                         {"6000004", 360, 1, 40, "u102", "", "FAILED", F, 5},
                         {"6000005", 360, 4, 600, "u103", "", "TIMEOUT", F, 6},
                         {"6000006", 600, 32, 14400, "u103", "", "NODE_FAIL", F, 7},
                     });
    // 6000004 is submitted at 00:06:00+00:00 and 6000005 at 08:06:00+08:00: the same instant.
    CHECK(t.jobs[2].submit_time == t.jobs[3].submit_time);
    const ReadReport& r = t.report;
    CHECK(r.rows_read == 8);
    CHECK(r.kept == 5);
    CHECK(r.dropped == std::map<std::string, std::uint64_t>{{"cpu-only", 1},
                                                            {"never started (no start_time)", 1},
                                                            {"zero run time (end_time = start_time)", 1}});
    CHECK(r.repaired.empty());
    CHECK(has_assumption(t, "type (the workload type"));
    CHECK(has_assumption(t, "columns not used: cpu_num, node_num, type, queue"));
    CHECK_FALSE(has_assumption(t, "includes the queue"));  // every Seren duration is end - start
}

TEST_CASE("acme: Kalos fixture (+00:00 times, memory/fail/stop columns, duration with queue)", "[traces]") {
    const Trace t = read_acme_trace(kFixtures + "/acme/trace_kalos.csv", {});
    CHECK(t.format == "acme");
    CHECK(t.time_origin == 1684321258);  // 2023-05-17 11:00:58+00:00
    // Run time is end - start even where the duration column is end - submit (lines 2 and 4).
    check_records(t, {
                         {"dlc0k1x9a7b3c5d2", 0, 64, 1800, "uf100", "", "FAILED", F, 2},
                         {"dlc0k2m4n6p8q0r1", 542, 8, 3600, "uf101", "", "COMPLETED", C, 3},
                         {"dlc0k3s5t7u9v1w2", 1142, 16, 300, "uf100", "", "CANCELLED", K, 4},
                         {"dlc0k6h1i3j5k7l9", 2342, 1, 600, "uf101", "", "COMPLETED", C, 7},
                     });
    const ReadReport& r = t.report;
    CHECK(r.rows_read == 7);
    CHECK(r.kept == 4);
    CHECK(r.dropped == std::map<std::string, std::uint64_t>{
                           {"cpu-only", 1}, {"never started (no start_time)", 1}, {"not finished (no end_time)", 1}});
    CHECK(has_assumption(t, "2 rows' duration is end_time - submit_time"));
    CHECK(has_assumption(t,
                         "columns not used: cpu_num, node_num, type, queue, mem_per_pod_GB, "
                         "shared_mem_per_pod, fail_time, stop_time"));
    CHECK_FALSE(has_assumption(t, "unknown columns"));
}

TEST_CASE("acme: one instant written in different zones gives one submit time", "[traces]") {
    const std::string rest = ",60,0,60.0\n";
    const std::string p = write_temp(
        "acme-zones.csv",
        std::string(kSerenHeader) +
            "a,u,1,1,1,Other,COMPLETED,2023-03-01 08:00:00+08:00,2023-03-01 08:00:00+08:00,2023-03-01 08:01:00+08:00" +
            rest +
            "b,u,1,1,1,Other,COMPLETED,2023-03-01 00:00:00+00:00,2023-03-01 00:00:00+00:00,2023-03-01 00:01:00+00:00" +
            rest +
            "c,u,1,1,1,Other,COMPLETED,2023-03-01T00:00:00Z,2023-03-01T08:00:00+0800,2023-03-01 08:01:00.000+08:00" +
            rest +
            "d,u,1,1,1,Other,COMPLETED,2023-02-28 23:00:00-01:00,2023-03-01 00:00:00+00:00,2023-03-01 00:01:00+00:00" +
            rest);
    const Trace t = read_acme_trace(p, {});
    REQUIRE(t.jobs.size() == 4);
    CHECK(t.time_origin == 1677628800);
    for (const auto& j : t.jobs) {
        INFO(j.id);
        CHECK(j.submit_time == 0);
        CHECK(j.duration == 60);
    }
}

TEST_CASE("helios/acme: detection claims each format's own headers only", "[traces]") {
    const std::string helios = first_line_of(kFixtures + "/helios/cluster_log.csv");
    const std::string seren = first_line_of(kFixtures + "/acme/trace_seren.csv");
    const std::string kalos = first_line_of(kFixtures + "/acme/trace_kalos.csv");
    CHECK(detect_helios("cluster_log.csv", helios));
    CHECK(detect_helios("x.csv", "\xEF\xBB\xBF" + helios));
    CHECK_FALSE(detect_helios("trace_seren.csv", seren));
    CHECK_FALSE(detect_helios("trace_kalos.csv", kalos));
    CHECK(detect_acme("trace_seren.csv", seren));
    CHECK(detect_acme("trace_kalos.csv", kalos));
    CHECK(detect_acme("x.csv", "\xEF\xBB\xBF" + kalos));
    CHECK_FALSE(detect_acme("cluster_log.csv", helios));
    // Neither claims the other readers' headers, the canonical CSV or near misses.
    for (const char* line : {"job_id,submit_time,num_gpus,duration", "timestamp,duration,num_gpus,gpu_time,cluster",
                             "job_id,num_gpu,submit_time,iterations,model_name,duration,interval",
                             "job_id,user,node_num,gpu_num,cpu_num,state,submit_time,duration",  // no type/gpu_time
                             "job_id,user,vc,gpu_num,cpu_num,node_num,state", ""}) {
        INFO(line);
        CHECK_FALSE(detect_helios("f.csv", line));
        CHECK_FALSE(detect_acme("f.csv", line));
    }
    // Both are registered under their names.
    CHECK(std::string(find_trace_format("helios").name) == "helios");
    CHECK(std::string(find_trace_format("acme").name) == "acme");
    CHECK(find_trace_format("helios").read(kFixtures + "/helios/cluster_log.csv", {}).jobs.size() == 7);
    CHECK(find_trace_format("acme").read(kFixtures + "/acme/trace_kalos.csv", {}).jobs.size() == 4);
}

TEST_CASE("helios/acme: detection claims no file of the shared data (summaries, not job logs)",
          "[traces][shared-data]") {
    const std::string root = std::string(DLSIM_SHARED_DATA) + "/traces";
    if (!shared_data_present(root)) return;
    // The Helios and Acme folders hold capacity tables and per-cluster summaries: no reader of ours applies.
    for (const char* f : {"helios/helios_cluster_summary.csv", "helios/Venus_cluster_gpu_number.csv",
                          "helios/Earth_cluster_gpu_number.csv", "helios/Venus_cluster_throughput.csv",
                          "helios/Venus_vc_config_lucid.csv", "acme/cluster_summary.csv"}) {
        const std::string path = root + "/" + f;
        INFO(path);
        REQUIRE(std::filesystem::exists(path));
        const std::string line = first_line_of(path);
        REQUIRE(!line.empty());
        CHECK_FALSE(detect_helios(path, line));
        CHECK_FALSE(detect_acme(path, line));
    }
    // Nor any other file there: none of them is a Helios or Acme job log.
    std::size_t files = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file()) continue;
        ++files;
        const std::string path = entry.path().string();
        const std::string line = first_line_of(path);
        INFO(path);
        CHECK_FALSE(detect_helios(path, line));
        CHECK_FALSE(detect_acme(path, line));
    }
    CHECK(files >= 6);
}

TEST_CASE("helios/acme: malformed rows are rejected with file:line and the column", "[traces]") {
    auto helios = [](const std::string& name, const std::string& row) {
        return write_temp(name, std::string(kHeliosHeader) + kHeliosRow + row);
    };
    auto acme = [](const std::string& name, const std::string& row) {
        return write_temp(name, std::string(kSerenHeader) + kSerenRow + row);
    };
    CHECK_THROWS_WITH(read_helios_trace(helios("h-date.csv",
                                               "2,u,v,1,1,1,FAILED,2020-13-01 00:00:00,"
                                               "2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n"),
                                        {}),
                      Catch::Contains("h-date.csv:3: column 'submit_time': expected a date-time") &&
                          Catch::Contains("got '2020-13-01 00:00:00'"));
    CHECK_THROWS_WITH(read_helios_trace(helios("h-gpus.csv",
                                               "2,u,v,eight,1,1,FAILED,2020-04-01 00:00:00,"
                                               "2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n"),
                                        {}),
                      Catch::Contains("h-gpus.csv:3: column 'gpu_num': expected an integer number of GPUs >= 0, "
                                      "got 'eight'"));
    CHECK_THROWS_WITH(read_helios_trace(helios("h-neg.csv",
                                               "2,u,v,-2,1,1,FAILED,2020-04-01 00:00:00,"
                                               "2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n"),
                                        {}),
                      Catch::Contains("h-neg.csv:3: column 'gpu_num'"));
    CHECK_THROWS_WITH(read_helios_trace(helios("h-dur.csv",
                                               "2,u,v,1,1,1,FAILED,2020-04-01 00:00:00,"
                                               "2020-04-01 00:00:00,2020-04-01 00:01:00,62,0\n"),
                                        {}),
                      Catch::Contains("h-dur.csv:3: column 'duration': expected end_time - start_time = 60 s "
                                      "(within 1 s), got '62'"));
    CHECK_THROWS_WITH(read_helios_trace(helios("h-durnan.csv",
                                               "2,u,v,1,1,1,FAILED,2020-04-01 00:00:00,"
                                               "2020-04-01 00:00:00,2020-04-01 00:01:00,,0\n"),
                                        {}),
                      Catch::Contains("h-durnan.csv:3: column 'duration': expected a number of seconds"));
    CHECK_THROWS_WITH(read_helios_trace(helios("h-end.csv",
                                               "2,u,v,1,1,1,FAILED,2020-04-01 00:00:00,"
                                               "2020-04-01 00:05:00,2020-04-01 00:01:00,-240,300\n"),
                                        {}),
                      Catch::Contains("h-end.csv:3: column 'end_time': expected a time at or after start_time"));
    CHECK_THROWS_WITH(read_helios_trace(helios("h-width.csv", "2,u,v,1,1,1,FAILED,2020-04-01 00:00:00\n"), {}),
                      Catch::Contains("h-width.csv:3: expected 12 fields as in the header, got 8"));
    CHECK_THROWS_WITH(read_helios_trace(helios("h-state.csv",
                                               "2,u,v,1,1,1,,2020-04-01 00:00:00,"
                                               "2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n"),
                                        {}),
                      Catch::Contains("h-state.csv:3: column 'state': expected a job state"));
    CHECK_THROWS_WITH(read_helios_trace(helios("h-id.csv",
                                               "1,u,v,1,1,1,FAILED,2020-04-01 00:00:00,"
                                               "2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n"),
                                        {}),
                      Catch::Contains("h-id.csv:3: column 'job_id': duplicate id '1' (first on line 2)"));
    CHECK_THROWS_WITH(read_acme_trace(acme("a-gputime.csv",
                                           "8,u,1,8,1,Other,FAILED,2023-03-01 08:00:00+08:00,"
                                           "2023-03-01 08:00:00+08:00,2023-03-01 08:01:00+08:00,"
                                           "60,0,60.0\n"),
                                      {}),
                      Catch::Contains("a-gputime.csv:3: column 'gpu_time': expected duration x gpu_num = 60 x 8 = "
                                      "480, got '60.0'"));
    CHECK_THROWS_WITH(read_acme_trace(acme("a-zone.csv",
                                           "8,u,1,8,1,Other,FAILED,2023-03-01 08:00:00+25:00,"
                                           "2023-03-01 08:00:00+08:00,2023-03-01 08:01:00+08:00,"
                                           "60,0,480.0\n"),
                                      {}),
                      Catch::Contains("a-zone.csv:3: column 'submit_time': expected a date-time"));
    CHECK_THROWS_WITH(read_acme_trace(acme("a-dur.csv",
                                           "8,u,1,8,1,Other,FAILED,2023-03-01 08:00:00+08:00,"
                                           "2023-03-01 08:00:10+08:00,2023-03-01 08:01:10+08:00,"
                                           "30,10,240.0\n"),
                                      {}),
                      Catch::Contains("a-dur.csv:3: column 'duration': expected end_time - start_time = 60 s or "
                                      "end_time - submit_time = 70 s (within 1 s), got '30'"));
    CHECK_THROWS_WITH(read_acme_trace(acme("a-gpus.csv",
                                           "8,u,1,1.5,1,Other,FAILED,2023-03-01 08:00:00+08:00,"
                                           "2023-03-01 08:00:00+08:00,2023-03-01 08:01:00+08:00,"
                                           "60,0,90.0\n"),
                                      {}),
                      Catch::Contains("a-gpus.csv:3: column 'gpu_num'"));
}

TEST_CASE("helios/acme: malformed rows are skipped under --on-bad-line skip and counted by reason", "[traces]") {
    const std::string p =
        write_temp("h-skip.csv",
                   std::string(kHeliosHeader) + kHeliosRow +                                          // 2 ok
                       "2,u,v,1,1,1,FAILED,yesterday,2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n"  // 3
                       "3,u,v,eight,1,1,FAILED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n"  // 4
                       "4,u,v,1,1,1,FAILED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,600,0\n"     // 5
                       "5,u,v,1,1,1,FAILED\n"                                                                       // 6
                       "6,u,v,1,1,1,FAILED,2020-04-01 00:00:00,2020-04-01 00:05:00,2020-04-01 00:01:00,0,300\n"     // 7
                       "7,u,v,2,1,1,FAILED,2020-04-01 00:30:00,2020-04-01 00:30:00,2020-04-01 00:31:00,60,0\n"  // 8 ok
                       "1,u,v,1,1,1,FAILED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n"  // 9 dup
                       "8,u,v,0,1,1,FAILED,not a date,,,,\n");  // 10 cpu
    ReadOptions skip;
    skip.on_bad_line = BadLinePolicy::Skip;
    const Trace t = read_helios_trace(p, skip);
    REQUIRE(t.jobs.size() == 2);
    CHECK(t.jobs[0].id == "1");
    CHECK(t.jobs[1].id == "7");
    CHECK(t.jobs[1].submit_time == 1800);
    CHECK(t.report.rows_read == 9);
    CHECK(t.report.kept == 2);
    CHECK(t.report.dropped == std::map<std::string, std::uint64_t>{{"bad submit_time", 1},
                                                                   {"bad gpu_num", 1},
                                                                   {"bad duration", 1},
                                                                   {"wrong number of fields", 1},
                                                                   {"bad end_time", 1},
                                                                   {"duplicate job_id", 1},
                                                                   {"cpu-only", 1}});
    REQUIRE(t.report.first_errors.size() == 5);  // the first five messages are kept
    CHECK_THAT(t.report.first_errors[0], Catch::Contains("h-skip.csv:3: column 'submit_time'"));
    CHECK_THAT(t.report.first_errors[4], Catch::Contains("h-skip.csv:7: column 'end_time'"));

    // Acme: gpu_time and zone problems skipped the same way.
    const std::string q =
        write_temp("a-skip.csv", std::string(kSerenHeader) + kSerenRow +
                                     "8,u,1,8,1,Other,FAILED,2023-03-01 08:00:00+08:00,2023-03-01 08:00:00+08:00,"
                                     "2023-03-01 08:01:00+08:00,60,0,60.0\n"
                                     "9,u,1,8,1,Other,FAILED,2023-03-01 08:00:00+0x:00,2023-03-01 08:00:00+08:00,"
                                     "2023-03-01 08:01:00+08:00,60,0,480.0\n");
    const Trace a = read_acme_trace(q, skip);
    CHECK(a.jobs.size() == 1);
    CHECK(a.report.rows_read == 3);
    CHECK(a.report.dropped == std::map<std::string, std::uint64_t>{{"bad gpu_time", 1}, {"bad submit_time", 1}});
}

TEST_CASE("helios/acme: header problems are input errors naming file:line and the column", "[traces]") {
    // A required column missing.
    const std::string no_duration =
        write_temp("h-nodur.csv",
                   "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,queue\n"
                   "1,u,v,1,1,1,FAILED,2020-04-01 00:00:00,2020-04-01 00:00:00,2020-04-01 00:01:00,0\n");
    CHECK_THROWS_AS(read_helios_trace(no_duration, {}), InputError);
    CHECK_THROWS_WITH(read_helios_trace(no_duration, {}),
                      Catch::Contains("h-nodur.csv:1: missing required column 'duration'") &&
                          Catch::Contains("job_id,user,vc,gpu_num"));
    const std::string no_gpu_time =
        write_temp("a-nogt.csv",
                   "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue\n"
                   "1,u,1,1,1,Other,FAILED,2023-03-01 08:00:00+08:00,2023-03-01 08:00:00+08:00,"
                   "2023-03-01 08:01:00+08:00,60,0\n");
    CHECK_THROWS_WITH(read_acme_trace(no_gpu_time, {}), Catch::Contains("a-nogt.csv:1: missing required column "
                                                                        "'gpu_time'"));
    // Even under skip: header errors are never skipped.
    ReadOptions skip;
    skip.on_bad_line = BadLinePolicy::Skip;
    CHECK_THROWS_AS(read_acme_trace(no_gpu_time, skip), InputError);
    // A column twice.
    const std::string twice = write_temp("h-twice.csv", std::string("job_id,gpu_num,state,submit_time,start_time,"
                                                                    "end_time,duration,gpu_num\n"));
    CHECK_THROWS_WITH(read_helios_trace(twice, {}), Catch::Contains("h-twice.csv:1: column 'gpu_num' appears twice"));
    // Empty file, header only, every row dropped.
    CHECK_THROWS_WITH(read_helios_trace(write_temp("h-empty.csv", ""), {}),
                      Catch::Contains("h-empty.csv: empty file, expected the helios header job_id,user,vc"));
    CHECK_THROWS_WITH(read_acme_trace(write_temp("a-empty.csv", "\n"), {}),
                      Catch::Contains("a-empty.csv: empty file, expected the acme header job_id,user,node_num"));
    CHECK_THROWS_WITH(read_helios_trace(write_temp("h-header.csv", kHeliosHeader), {}),
                      Catch::Contains("h-header.csv: no job rows"));
    CHECK_THROWS_WITH(
        read_helios_trace(
            write_temp("h-cpu.csv", std::string(kHeliosHeader) + "1,u,v,0,8,1,COMPLETED,2020-04-01 00:00:00,"
                                                                 "2020-04-01 00:00:00,2020-04-01 00:01:00,60,0\n"),
            {}),
        Catch::Contains("h-cpu.csv: none of the 1 rows is a job dlsim can use") && Catch::Contains("cpu-only"));
    CHECK_THROWS_WITH(read_helios_trace(write_temp("h-missing-file.csv", "") + ".nope", {}),
                      Catch::Contains("cannot open file"));
}

TEST_CASE("helios/acme: columns are read by name (reordered, extra and optional columns)", "[traces]") {
    // Helios with its columns shuffled, CRLF line ends, a BOM, an unknown column and no user/vc.
    const std::string h =
        write_temp("h-variant.csv",
                   "\xEF\xBB\xBF"
                   "duration,end_time,start_time,submit_time,state,gpu_num,job_id,comment\r\n"
                   "60,2020-04-01 00:01:00,2020-04-01 00:00:00,2020-04-01 00:00:00,COMPLETED,4,x1,hello\r\n"
                   "30,2020-04-01 00:10:30,2020-04-01 00:10:00,2020-04-01 00:09:00,PREEMPTED,2,x2,\r\n");
    const Trace t = read_helios_trace(h, {});
    REQUIRE(t.jobs.size() == 2);
    CHECK(t.jobs[1].id == "x2");
    CHECK(t.jobs[1].submit_time == 540);
    CHECK(t.jobs[1].duration == 30);
    CHECK(t.jobs[1].num_gpus == 2);
    CHECK(t.jobs[1].user == 0);
    CHECK(t.jobs[1].vc == 0);
    CHECK(t.strings[t.jobs[1].status] == "PREEMPTED");
    CHECK(t.jobs[1].outcome == JobOutcome::Unknown);
    CHECK(has_assumption(t, "unknown columns ignored: 'comment'"));
    CHECK(has_assumption(t, "outcome unknown: PREEMPTED (1)"));
    CHECK_FALSE(has_assumption(t, "columns not used"));

    // Acme (Kalos order) with a vc column added and one extra column; an empty gpu_time is not checked.
    const std::string a = write_temp(
        "a-variant.csv",
        "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,start_time,"
        "end_time,fail_time,stop_time,duration,queue,gpu_time,vc,priority\n"
        "k1,uf1,1,8,96,100,10.0,SFT,COMPLETED,2023-05-17 11:00:00+00:00,2023-05-17 11:00:00+00:00,"
        "2023-05-17 12:00:00+00:00,,2023-05-17 12:00:00+00:00,3600,0.0,,vcA,3\n");
    const Trace k = read_acme_trace(a, {});
    REQUIRE(k.jobs.size() == 1);
    CHECK(k.strings[k.jobs[0].vc] == "vcA");
    CHECK(k.strings[k.jobs[0].user] == "uf1");
    CHECK(k.jobs[0].duration == 3600);
    CHECK(has_assumption(k, "unknown columns ignored: 'priority'"));
    CHECK(has_assumption(k, "1 rows have an empty gpu_time"));

    // --time-unit does not apply: noted, not applied.
    ReadOptions ms;
    ms.time_unit = 0.001;
    const Trace u = read_helios_trace(kFixtures + "/helios/cluster_log.csv", ms);
    CHECK(u.jobs[0].duration == 3600);
    CHECK(has_assumption(u, "--time-unit ignored"));
}

TEST_CASE("helios/acme: the fixtures replay exactly on a cluster big enough for all their jobs", "[traces]") {
    RunInputs in;
    in.cluster = parse_cluster(homogeneous_cluster_json(16, 8), "cluster.json");  // 128 GPUs; Kalos needs 89
    in.profiles = parse_profiles(kUnusedProfile, "profile.json");
    for (const std::string f : {"/helios/cluster_log.csv", "/acme/trace_seren.csv", "/acme/trace_kalos.csv"}) {
        INFO(f);
        in.trace = read_trace(kFixtures + f, f.starts_with("/helios") ? "helios" : "acme", {});
        const RunOutcome o = run_policy(in, "fifo");
        REQUIRE(o.summary.finished == in.trace.jobs.size());
        for (std::size_t j = 0; j < in.trace.jobs.size(); ++j) {
            INFO(in.trace.jobs[j].id);
            CHECK(o.jobs[j].submit == to_time(in.trace.jobs[j].submit_time));
            CHECK(o.jobs[j].first_start == o.jobs[j].submit);
            CHECK(o.jobs[j].finish - o.jobs[j].submit == to_time(in.trace.jobs[j].duration));
        }
    }
}

}  // namespace dlsim::test::helios_acme_tests
