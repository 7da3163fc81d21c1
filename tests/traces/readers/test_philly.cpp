// The Philly reader (per-job CSV and raw cluster_job_log JSON) and the Philly cluster importer.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "models/base/input_error.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"
#include "traces/import/cluster_import.hpp"
#include "traces/readers/trace_format.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::philly_tests {

namespace {

const std::string kDir = std::string(DLSIM_TEST_DATA) + "/traces/philly/";

/// One job element of a cluster_job_log list, with `fields` spliced in verbatim before "attempts".
std::string json_job(const std::string& fields,
                     const std::string& attempts = R"([{"start_time": "2017-10-07 01:00:00", )"
                                                   R"("end_time": "2017-10-07 01:01:00", )"
                                                   R"("detail": [{"ip": "m1", "gpus": ["gpu0"]}]}])") {
    return "{" + fields + (fields.empty() ? "" : ", ") + "\"attempts\": " + attempts + "}";
}

/// A well-formed job element with id `id` (status, vc, user, submitted_time all valid).
std::string good_job(const std::string& id) {
    return json_job(R"("status": "Pass", "vc": "v", "user": "u", "submitted_time": "2017-10-07 00:59:00", "jobid": ")" +
                    id + "\"");
}

void check_job(const Trace& t, std::size_t i, const std::string& id, double submit, int gpus, double duration,
               const std::string& vc, const std::string& user, const std::string& status, JobOutcome outcome,
               std::uint32_t line) {
    INFO("job " << i << " " << id);
    const JobRecord& j = t.jobs.at(i);
    CHECK(j.id == id);
    CHECK(j.submit_time == submit);
    CHECK(j.num_gpus == gpus);
    CHECK(j.duration == duration);
    CHECK(t.strings[j.model].empty());
    CHECK(t.strings[j.allowed_gpu_types].empty());  // gpu_type: checked where a machine list gives it
    CHECK(j.gpu_fraction == 1);
    CHECK(j.work == 0);
    CHECK(t.strings[j.vc] == vc);
    CHECK(t.strings[j.user] == user);
    CHECK(t.strings[j.status] == status);
    CHECK(j.outcome == outcome);
    CHECK(j.line == line);
}

}  // namespace

TEST_CASE("philly CSV: exact records from the per-job fixture", "[traces]") {
    const std::string path = kDir + "philly_jobs.csv";
    const Trace t = read_philly_trace(path, {});
    CHECK(t.format == "philly");
    CHECK(t.path == path);
    CHECK(t.wall_clock);
    CHECK(t.time_origin == 1507529583);  // 2017-10-09 06:13:03 UTC, the earliest submit (line 3)
    CHECK(t.report.rows_read == 4);
    CHECK(t.report.kept == 4);
    CHECK(t.report.dropped.empty());
    CHECK(t.report.repaired.empty());
    CHECK(t.report.assumptions.size() == 5);
    REQUIRE(t.jobs.size() == 4);
    for (const JobRecord& r : t.jobs) CHECK(r.gpu_type == 0);  // the per-job CSV names no machine
    // File order is kept (unsorted); ids come from the line, the blank line 5 counts.
    check_job(t, 0, "L2", 2932, 1, 66, "11cb48", "", "", JobOutcome::Unknown, 2);
    check_job(t, 1, "L3", 0, 2, 2951, "6214e9", "", "", JobOutcome::Unknown, 3);
    check_job(t, 2, "L4", 33, 8, 0.5, "6214e9", "", "", JobOutcome::Unknown, 4);
    check_job(t, 3, "L6", 64017, 16, 100, "ee9e8c", "", "", JobOutcome::Unknown, 6);

    // --time-unit does not apply to wall-clock times and durations in seconds: it is ignored, and said so.
    ReadOptions ms;
    ms.time_unit = 0.001;
    const Trace u = read_philly_trace(path, ms);
    CHECK(u.report.assumptions.size() == 6);
    CHECK(u.jobs.at(1).duration == 2951);

    // Auto-detection picks the same reader.
    const Trace a = read_trace(path, "auto", {});
    CHECK(a.format == "philly");
    CHECK(a.jobs.size() == 4);
}

TEST_CASE("philly CSV: malformed rows name file:line and the column, or are skipped by reason", "[traces]") {
    const std::string header = "timestamp,duration,num_gpus,gpu_time,cluster\n";
    const std::string good = "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n";
    auto bad = [&](const std::string& row) { return write_temp("philly_bad_row.csv", header + good + row); };
    CHECK_THROWS_WITH(read_philly_trace(bad("2017-10-09 25:13:03,2951.0,2,5902.0,6214e9\n"), {}),
                      Catch::Contains("philly_bad_row.csv:3: column 'timestamp': expected a date-time"));
    CHECK_THROWS_WITH(read_philly_trace(bad("2017-10-09 06:13:36,0,8,0,6214e9\n"), {}),
                      Catch::Contains("philly_bad_row.csv:3: column 'duration': expected a duration in seconds > 0"));
    CHECK_THROWS_WITH(
        read_philly_trace(bad("2017-10-09 06:14:00,10.0,0,0.0,6214e9\n"), {}),
        Catch::Contains("philly_bad_row.csv:3: column 'num_gpus': expected an integer number of GPUs >= 1"));
    CHECK_THROWS_WITH(read_philly_trace(bad("2017-10-09 06:15:00,10.0,4,41.0,6214e9\n"), {}),
                      Catch::Contains("philly_bad_row.csv:3: column 'gpu_time': expected duration x num_gpus = 40, "
                                      "got '41.0'"));
    CHECK_THROWS_WITH(read_philly_trace(bad("2017-10-09 06:16:00,10.0,4,40.0\n"), {}),
                      Catch::Contains("philly_bad_row.csv:3: expected 5 fields as in the header, got 4"));
    CHECK_THROWS_WITH(
        read_philly_trace(write_temp("philly_bad_header.csv", "timestamp,duration,num_gpus,cluster\n" +
                                                                  std::string("2017-10-09 07:01:55,66.0,1,x\n")),
                          {}),
        Catch::Contains("philly_bad_header.csv:1: missing column 'gpu_time'"));

    const std::string path = kDir + "philly_bad.csv";
    CHECK_THROWS_WITH(read_philly_trace(path, {}), Catch::Contains("philly_bad.csv:3: column 'timestamp'"));
    const Trace t = read_philly_trace(path, skip_bad());
    CHECK(t.report.rows_read == 8);
    CHECK(t.report.kept == 2);
    const std::map<std::string, std::uint64_t> dropped = {{"bad timestamp", 1},
                                                          {"bad duration", 2},
                                                          {"bad num_gpus", 1},
                                                          {"bad gpu_time", 1},
                                                          {"wrong number of fields", 1}};
    CHECK(t.report.dropped == dropped);
    REQUIRE(t.jobs.size() == 2);
    check_job(t, 0, "L2", 2635, 1, 66, "11cb48", "", "", JobOutcome::Unknown, 2);
    check_job(t, 1, "L9", 0, 2, 30, "103959", "", "", JobOutcome::Unknown, 9);
    REQUIRE(!t.report.first_errors.empty());
    CHECK_THAT(t.report.first_errors[0], Catch::Contains("philly_bad.csv:3: column 'timestamp'"));
}

TEST_CASE("philly JSON: exact records from a cluster_job_log fixture", "[traces]") {
    const std::string path = kDir + "cluster_job_log";
    const Trace t = read_philly_trace(path, {});
    CHECK(t.format == "philly");
    CHECK(t.wall_clock);
    CHECK(t.time_origin == 1507338270);  // 2017-10-07 01:04:30 UTC, job 14201's submit
    CHECK(t.report.rows_read == 10);
    CHECK(t.report.kept == 4);
    const std::map<std::string, std::uint64_t> dropped = {{"no attempts (never scheduled)", 1},
                                                          {"still running at trace end", 2},
                                                          {"no attempt with both start and end time", 1},
                                                          {"no GPUs in any attempt's detail", 1},
                                                          {"zero run time (start = end)", 1}};
    CHECK(t.report.dropped == dropped);
    const std::map<std::string, std::uint64_t> repaired = {
        {"attempts without start or end time ignored (logging errors)", 1}};
    CHECK(t.report.repaired == repaired);
    CHECK(t.report.assumptions.size() == 6);  // with the gpu_type rule: the folder has a machine list
    REQUIRE(t.jobs.size() == 4);
    // Only job 14201 ran on a listed machine (m3, 24 GB); the others' machines are not in the hand-made list.
    CHECK(t.strings[t.jobs[2].gpu_type] == "gpu24gb");
    for (std::size_t j : {0, 1, 3}) CHECK(t.strings[t.jobs[j].gpu_type].empty());
    // One attempt of 8 GPUs on one machine, 74 s.
    check_job(t, 0, "application_1506638472019_14199", 429, 8, 74, "ee9e8c", "ce2f4c", "Pass", JobOutcome::Completed,
              2);
    // Two attempts (2 GPUs, then 2 machines x 2 GPUs): run time 600 + 3630 s, the larger GPU count.
    check_job(t, 1, "application_1506638472019_14200", 3330, 4, 4230, "6214e9", "a1b2c3", "Killed", JobOutcome::Killed,
              30);
    check_job(t, 2, "application_1506638472019_14201", 0, 1, 42, "11cb48", "ce2f4c", "Failed", JobOutcome::Failed, 72);
    // The first attempt has no start_time (a logging error): only the second counts.
    check_job(t, 3, "application_1506638472019_14204", 118530, 4, 7200, "6214e9", "a1b2c3", "Pass",
              JobOutcome::Completed, 122);

    const Trace a = read_trace(path, "auto", {});
    CHECK(a.format == "philly");
    CHECK(a.jobs.size() == 4);
}

TEST_CASE("philly JSON: malformed jobs name file:line and the field, or are skipped by reason", "[traces]") {
    auto file = [](const std::vector<std::string>& jobs) {
        std::string text = "[\n";
        for (std::size_t i = 0; i < jobs.size(); ++i) text += jobs[i] + (i + 1 < jobs.size() ? ",\n" : "\n");
        return write_temp("cluster_job_log_bad", text + "]\n");
    };
    const std::string base = R"("vc": "v", "user": "u", "submitted_time": "2017-10-07 00:59:00")";
    // Each bad job is the second element, on line 3.
    CHECK_THROWS_WITH(
        read_philly_trace(file({good_job("a"), json_job(base + R"(, "status": "Running", "jobid": "b")")}), {}),
        Catch::Contains("cluster_job_log_bad:3: column 'status': expected one of Pass, Killed, Failed, "
                        "got '\"Running\"'"));
    CHECK_THROWS_WITH(read_philly_trace(file({good_job("a"), json_job(R"("status": "Pass", "jobid": "b")")}), {}),
                      Catch::Contains("cluster_job_log_bad:3: column 'submitted_time': expected a date-time"));
    CHECK_THROWS_WITH(
        read_philly_trace(
            file({good_job("a"),
                  json_job(R"("vc": "v", "status": "Pass", "jobid": "b", "submitted_time": "yesterday")")}),
            {}),
        Catch::Contains("cluster_job_log_bad:3: column 'submitted_time'"));
    CHECK_THROWS_WITH(read_philly_trace(file({good_job("a"), json_job(base + R"(, "status": "Pass")")}), {}),
                      Catch::Contains("cluster_job_log_bad:3: column 'jobid': expected a non-empty job id string"));
    CHECK_THROWS_WITH(read_philly_trace(file({good_job("a"), good_job("a")}), {}),
                      Catch::Contains("cluster_job_log_bad:3: column 'jobid': duplicate id 'a' (first on line 2)"));
    CHECK_THROWS_WITH(
        read_philly_trace(
            file({good_job("a"), json_job(base + R"(, "status": "Pass", "jobid": "b")",
                                          R"([{"start_time": "2017-10-07 01:00:00", "end_time": )"
                                          R"("2017-10-07 01:01:00", "detail": [{"ip": "m1", "gpus": 2}]}])")}),
            {}),
        Catch::Contains("cluster_job_log_bad:3: column 'attempts[0].detail[0].gpus': expected a list of GPU names"));
    CHECK_THROWS_WITH(
        read_philly_trace(file({good_job("a"), json_job(base + R"(, "status": "Pass", "jobid": "b")",
                                                        R"([{"start_time": "2017-10-07 01:00:00", "end_time": )"
                                                        R"("2017-10-07 00:01:00", "detail": []}])")}),
                          {}),
        Catch::Contains("cluster_job_log_bad:3: column 'attempts[0].end_time': expected a time at or after"));
    CHECK_THROWS_WITH(
        read_philly_trace(file({good_job("a"), json_job(base + R"(, "status": "Pass", "jobid": "b")", "{}")}), {}),
        Catch::Contains("cluster_job_log_bad:3: column 'attempts': expected a list of attempts"));
    CHECK_THROWS_WITH(read_philly_trace(file({good_job("a"), "42"}), {}),
                      Catch::Contains("cluster_job_log_bad:3: column 'job': expected a JSON object"));
    // Python's None written bare is not JSON: the message names the line inside the job where it is.
    CHECK_THROWS_WITH(read_philly_trace(file({good_job("a"), "{\"status\": \"Pass\",\n \"end_time\": None}"}), {}),
                      Catch::Contains("cluster_job_log_bad:4: expected a JSON job object"));
    CHECK_THROWS_WITH(read_philly_trace(write_temp("cluster_job_log_open", "[\n" + good_job("a") + ",\n"), {}),
                      Catch::Contains("cluster_job_log_open:3: the JSON list is not closed"));
    CHECK_THROWS_WITH(read_philly_trace(write_temp("cluster_job_log_tail", "[" + good_job("a") + "] x"), {}),
                      Catch::Contains("cluster_job_log_tail:1: text after the end of the JSON list"));

    // Skipped under --on-bad-line skip, counted by reason.
    const Trace t = read_philly_trace(file({good_job("a"), json_job(base + R"(, "status": "Running", "jobid": "b")"),
                                            good_job("a"), "42", "{\"status\": None}", good_job("c")}),
                                      skip_bad());
    CHECK(t.report.rows_read == 6);
    CHECK(t.report.kept == 2);
    const std::map<std::string, std::uint64_t> dropped = {
        {"bad status", 1}, {"duplicate jobid", 1}, {"bad job", 1}, {"invalid JSON", 1}};
    CHECK(t.report.dropped == dropped);
    REQUIRE(t.jobs.size() == 2);
    CHECK(t.jobs[0].id == "a");
    CHECK(t.jobs[1].id == "c");
    CHECK(t.jobs[1].line == 7);
    CHECK(t.jobs[1].duration == 60);
}

TEST_CASE("philly JSON: gpu_type from the machine list beside the log, for --type-choice original", "[traces]") {
    const std::filesystem::path dir = std::filesystem::path(temp_path("philly-types")) / "trace-data";
    std::filesystem::create_directories(dir);
    auto job = [](const char* id, const std::string& attempts) {
        return fmt::format(R"({{"status": "Pass", "vc": "v", "jobid": "{}", "user": "u",
            "submitted_time": "2017-10-07 00:00:00", "attempts": [{}]}})",
                           id, attempts);
    };
    auto attempt = [](const std::string& machines) {
        return fmt::format(R"({{"start_time": "2017-10-07 01:00:00", "end_time": "2017-10-07 02:00:00",
            "detail": [{}]}})",
                           machines);
    };
    const std::string m1 = R"({"ip": "m1", "gpus": ["gpu0"]})", m2 = R"({"ip": "m2", "gpus": ["gpu0"]})",
                      m9 = R"({"ip": "m9", "gpus": ["gpu0"]})";
    const std::string log = "[" + job("on-12", attempt(m1)) + ",\n" + job("on-24", attempt(m2)) + ",\n" +
                            job("moved", attempt(m1) + ", " + attempt(m2)) + ",\n" +
                            job("mixed", attempt(m1 + ", " + m2)) + ",\n" + job("unlisted", attempt(m9)) + "]\n";
    std::ofstream(dir / "cluster_job_log") << log;
    const Trace without = read_philly_trace((dir / "cluster_job_log").string(), {});
    REQUIRE(without.jobs.size() == 5);
    for (const JobRecord& r : without.jobs) CHECK(r.gpu_type == 0);  // no machine list: no type
    CHECK(without.report.assumptions.size() == 5);

    std::ofstream(dir / "cluster_machine_list")
        << "machineId, number of GPUs, single GPU mem\nm1,2, 12GB\nm2,8, 24GB\n";
    const Trace t = read_philly_trace((dir / "cluster_job_log").string(), {});
    REQUIRE(t.jobs.size() == 5);
    const std::vector<std::string> expected = {"gpu12gb", "gpu24gb", "gpu24gb", "", ""};  // moved: its last attempt
    for (std::size_t j = 0; j < 5; ++j) CHECK(t.strings[t.jobs[j].gpu_type] == expected[j]);

    std::ofstream(dir / "cluster_machine_list") << "machineId, number of GPUs, single GPU mem\nm1,2, 12 MB\n";
    CHECK_THROWS_WITH(read_philly_trace((dir / "cluster_job_log").string(), {}),
                      Catch::Contains("cluster_machine_list:2: column 'single GPU mem'") &&
                          Catch::Contains("a memory size like '12GB'"));
}

TEST_CASE("philly detection claims only Philly files", "[traces]") {
    CHECK(detect_philly("x.csv", "timestamp,duration,num_gpus,gpu_time,cluster"));
    CHECK(detect_philly("x.csv", "\xEF\xBB\xBFtimestamp,duration,num_gpus,gpu_time,cluster"));
    CHECK_FALSE(detect_philly("x.csv", "timestamp,duration,num_gpus,gpu_time,cluster,extra"));
    CHECK_FALSE(detect_philly("x.csv", "job_id,submit_time,num_gpus,duration"));
    CHECK_FALSE(detect_philly("x.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval"));
    CHECK(detect_philly("/data/philly/cluster_job_log", "["));
    CHECK(detect_philly("/data/jobs.json", R"([{"status": "Pass", "vc": "v", "jobid": "a"}])"));
    CHECK_FALSE(detect_philly("/data/jobs.json", "["));
    CHECK_FALSE(detect_philly("/data/cluster_job_log/other.json", "["));  // the name, not a folder, must match
    CHECK_FALSE(detect_philly("/data/cluster_job_log", "{\"jobid\": 1}"));
    // A blank first line: the first non-space character of the file decides.
    CHECK(detect_philly(write_temp("cluster_job_log_blank", "\n  [\n" + good_job("a") + "]\n"), ""));
    CHECK_FALSE(detect_philly(write_temp("cluster_job_log_blank2", "\n{}\n"), ""));
}

TEST_CASE("philly cluster_machine_list: one GPU type per memory size, exact spec", "[traces]") {
    const std::string text = cluster_from_philly_machines(kDir + "cluster_machine_list");
    const auto doc = nlohmann::json::parse(text);
    CHECK(doc["schema"] == "dlsim.cluster/1");
    CHECK(doc["reference_gpu_type"] == "gpu24gb");  // 28 GPUs against 4
    CHECK(doc["gpu_types"] == nlohmann::json::parse(R"({"gpu12gb": {"mem_gb": 12}, "gpu24gb": {"mem_gb": 24}})"));
    CHECK(doc["node_types"] == nlohmann::json::parse(R"({"gpu12gbx2": {"gpu_type": "gpu12gb", "gpus": 2},
        "gpu24gbx4": {"gpu_type": "gpu24gb", "gpus": 4}, "gpu24gbx8": {"gpu_type": "gpu24gb", "gpus": 8}})"));
    CHECK(doc["racks"] == nlohmann::json::parse(R"([{"node_type": "gpu12gbx2", "nodes": 2},
        {"node_type": "gpu24gbx4", "nodes": 1}, {"node_type": "gpu24gbx8", "nodes": 3}])"));
    const std::string description = doc["description"];
    CHECK_THAT(description, Catch::Contains("6 machines, 32 GPUs"));
    CHECK_THAT(description, Catch::Contains("only the memory size"));
    CHECK_THAT(description, Catch::Contains("no rack information"));

    const Cluster c = parse_cluster(text, "philly.json");
    CHECK(c.num_gpus() == 32);
    CHECK(c.nodes.size() == 6);
    REQUIRE(c.gpu_types.size() == 2);
    CHECK(c.gpu_types[c.reference_gpu_type].name == "gpu24gb");
    CHECK(c.gpus_of_type(0) == 4);
    CHECK(c.gpus_of_type(1) == 28);

    const std::string header = "machineId, number of GPUs, single GPU mem\nm0,2, 12GB\n";
    auto bad = [&](const std::string& row) { return write_temp("machines_bad", header + row); };
    CHECK_THROWS_WITH(cluster_from_philly_machines(bad("m1,two, 12GB\n")),
                      Catch::Contains("machines_bad:3: column 'number of GPUs': expected an integer number of GPUs"));
    CHECK_THROWS_WITH(cluster_from_philly_machines(bad("m1,0, 12GB\n")),
                      Catch::Contains("machines_bad:3: column 'number of GPUs'"));
    CHECK_THROWS_WITH(cluster_from_philly_machines(bad("m1,2, 12\n")),
                      Catch::Contains("machines_bad:3: column 'single GPU mem': expected a memory size like '12GB', "
                                      "got '12'"));
    CHECK_THROWS_WITH(cluster_from_philly_machines(bad("m1,2\n")),
                      Catch::Contains("machines_bad:3: expected 3 fields"));
    CHECK_THROWS_WITH(cluster_from_philly_machines(bad("m0,2, 12GB\n")),
                      Catch::Contains("machines_bad:3: column 'machineId': expected a machine id not listed before"));
    CHECK_THROWS_WITH(cluster_from_philly_machines(write_temp("machines_header", "machine, gpus, mem\nm0,2, 12GB\n")),
                      Catch::Contains("machines_header:1: header column 1 should be 'machineId'"));
    CHECK_THROWS_AS(cluster_from_philly_machines(kDir + "no_such_file"), InputError);
}

TEST_CASE("philly real data: pollux/philly.csv jobs and GPU-hours", "[traces][shared-data]") {
    const std::string path = std::string(DLSIM_SHARED_DATA) + "/traces/pollux/philly.csv";
    if (!shared_data_present(path)) return;
    const auto start = std::chrono::steady_clock::now();
    const Trace t = read_philly_trace(path, {});
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    WARN("reading pollux/philly.csv took " << seconds << " s");

    // Independently: count the data rows and sum the gpu_time column.
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    REQUIRE(line == "timestamp,duration,num_gpus,gpu_time,cluster");
    std::size_t rows = 0, short_rows = 0;
    double gpu_seconds = 0;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto f = split(line);
        ++rows;
        if (f.size() != 5)
            ++short_rows;
        else
            gpu_seconds += std::stod(f[3]);
    }
    CHECK(short_rows == 0);
    CHECK(rows == 82'247);
    CHECK(t.report.rows_read == rows);
    CHECK(t.jobs.size() == rows);
    CHECK(t.report.dropped.empty());
    double gpu_hours = 0;
    for (const auto& j : t.jobs) gpu_hours += j.num_gpus * j.duration / 3600;
    CHECK(gpu_hours == Approx(gpu_seconds / 3600).epsilon(1e-9));
}

TEST_CASE("philly real data: FIFO replays pollux/philly.csv on the Philly cluster and finishes every job",
          "[traces][shared-data]") {
    const std::string trace_path = std::string(DLSIM_SHARED_DATA) + "/traces/pollux/philly.csv";
    const std::string machines = std::string(DLSIM_SHARED_DATA) + "/traces/philly/cluster_machine_list";
    if (!shared_data_present(trace_path) || !shared_data_present(machines)) return;
    RunInputs in;
    in.cluster = parse_cluster(cluster_from_philly_machines(machines), "philly.json");
    in.profiles = parse_profiles(R"({"models": {"unused": {"throughput": {"gpu24gb": 1}}}})", "profile.json");
    in.trace = read_philly_trace(trace_path, {});

    // Independently from the files: machines and GPUs per memory size, and the largest job.
    std::map<std::string, long long> gpus_by_mem;
    long long machines_n = 0;
    {
        std::ifstream m(machines);
        std::string line;
        std::getline(m, line);
        while (std::getline(m, line)) {
            const auto f = split(line);
            if (f.size() != 3) continue;
            ++machines_n;
            gpus_by_mem[f[2]] += std::stoll(f[1]);
        }
    }
    long long largest_job = 0;
    {
        std::ifstream t(trace_path);
        std::string line;
        std::getline(t, line);
        while (std::getline(t, line))
            if (!line.empty()) largest_job = std::max(largest_job, std::stoll(split(line)[2]));
    }
    CHECK(static_cast<long long>(in.cluster.nodes.size()) == machines_n);
    REQUIRE(in.cluster.gpu_types.size() == gpus_by_mem.size());
    long long largest_type = 0;
    for (const auto& [mem, gpus] : gpus_by_mem) {
        const std::string digits = mem.substr(mem.find_first_not_of(' '), mem.find("GB") - mem.find_first_not_of(' '));
        auto idx = in.cluster.find_gpu_type("gpu" + digits + "gb");
        REQUIRE(idx);
        CHECK(in.cluster.gpus_of_type(*idx) == gpus);
        largest_type = std::max(largest_type, gpus);
    }
    // Every job fits in one GPU type (a gang never mixes types), so none can be rejected.
    REQUIRE(largest_job <= largest_type);

    RunConfig config;
    config.policy = "fifo";
    config.out.clear();
    const RunOutcome out = simulate(in, config);
    CHECK(out.summary.jobs == in.trace.jobs.size());
    CHECK(out.summary.rejected == 0);
    CHECK(out.summary.unfinished == 0);
    CHECK(out.summary.finished == 82'247);
}

}  // namespace dlsim::test::philly_tests
