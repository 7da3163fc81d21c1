// The Tiresias and Muri trace readers (one CSV schema family; seconds vs milliseconds): hand-made
// fixtures, --time-unit, malformed rows, and the real files from ../shared/data.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>

#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"
#include "traces/readers/trace_format.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::tiresias_muri_tests {

namespace {

const std::string kTiresiasDir = std::string(DLSIM_TEST_DATA) + "/traces/tiresias/";
const std::string kMuriDir = std::string(DLSIM_TEST_DATA) + "/traces/muri/";
const std::string kTiresiasHeader = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval";
const std::string kMuriHeader =
    "job_id,num_gpu,submit_time,iterations,model_name,batch_size,duration,interval,"
    "iteration_time,resource_time_0,resource_time_1,resource_time_2,priority";

/// Checks one record field by field (these formats have no GPU type, user, VC or status).
void check_job(const Trace& t, std::size_t i, const std::string& id, double submit, int gpus, double duration,
               const std::string& model, double priority, std::uint32_t line) {
    INFO("job " << i);
    const JobRecord& j = t.jobs.at(i);
    CHECK(j.id == id);
    CHECK(j.submit_time == submit);
    CHECK(j.num_gpus == gpus);
    CHECK(j.duration == duration);
    CHECK(j.work == 0);  // 'iterations' are not iterations of a profile model
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

/// The test's own CSV reading: header names -> column, then the data rows (CRLF and blank lines handled).
struct Csv {
    std::map<std::string, std::size_t> column;
    std::vector<std::vector<std::string>> rows;
    const std::string& at(std::size_t row, const std::string& name) const { return rows.at(row).at(column.at(name)); }
};

Csv read_csv(const std::string& path) {
    Csv csv;
    std::ifstream in(path);
    bool header = true;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        std::vector<std::string> fields;
        std::stringstream s(line);
        for (std::string f; std::getline(s, f, ',');) fields.push_back(f);
        if (header) {
            for (std::size_t i = 0; i < fields.size(); ++i) csv.column[fields[i]] = i;
            header = false;
        } else {
            csv.rows.push_back(std::move(fields));
        }
    }
    return csv;
}

std::string first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return line;
}

}  // namespace

TEST_CASE("tiresias: a 60_job.csv-style fixture (CRLF), field by field", "[traces]") {
    const Trace t = read_tiresias_trace(kTiresiasDir + "small_job.csv", {});
    CHECK(t.format == "tiresias");
    CHECK(t.path == kTiresiasDir + "small_job.csv");
    CHECK_FALSE(t.wall_clock);
    REQUIRE(t.jobs.size() == 4);
    CHECK(t.time_origin == 5);  // submit times 5, 35, 58, 5 shifted to start at 0
    check_job(t, 0, "0", 0, 1, 164, "vgg19", 0, 2);
    check_job(t, 1, "1", 30, 8, 147, "vgg11", 0, 3);
    check_job(t, 2, "2", 53, 2, 127.5, "inception4", 0, 5);  // line 4 is blank
    check_job(t, 3, "7", 0, 4, 3600, "resnet50", 0, 6);
    CHECK(t.report.rows_read == 4);
    CHECK(t.report.kept == 4);
    CHECK(t.report.dropped.empty());
    CHECK(t.report.repaired.empty());
    REQUIRE(t.report.assumptions.size() == 4);
    CHECK_THAT(t.report.assumptions[0], Catch::Contains("in seconds"));
    CHECK_THAT(t.report.assumptions[3], Catch::Contains("iterations, interval"));
}

TEST_CASE("muri: a fixture in milliseconds, field by field", "[traces]") {
    const Trace t = read_muri_trace(kMuriDir + "small_trace.csv", {});
    CHECK(t.format == "muri");
    REQUIRE(t.jobs.size() == 3);
    CHECK(t.time_origin == 0);
    check_job(t, 0, "0", 0, 4, 927475, "bert", 0, 2);
    check_job(t, 1, "1", 1456, 8, 281, "vgg16", 1, 3);
    check_job(t, 2, "2", 1500.5, 1, 1.5, "dqn", 0, 4);
    CHECK(t.report.rows_read == 3);
    CHECK(t.report.kept == 3);
    CHECK(t.report.dropped.empty());
    REQUIRE(t.report.assumptions.size() == 5);
    CHECK_THAT(t.report.assumptions[0], Catch::Contains("milliseconds"));
}

TEST_CASE("tiresias/muri: --time-unit overrides the format's unit", "[traces]") {
    ReadOptions o;
    o.time_unit = 1;
    const Trace m = read_muri_trace(kMuriDir + "small_trace.csv", o);
    CHECK(m.jobs[0].duration == 927475000);
    CHECK(m.jobs[2].submit_time == 1500500);
    CHECK_THAT(m.report.assumptions[0], Catch::Contains("units of 1 s (--time-unit)"));
    o.time_unit = 60;
    const Trace t = read_tiresias_trace(kTiresiasDir + "small_job.csv", o);
    CHECK(t.jobs[0].duration == 164 * 60);
    CHECK(t.jobs[2].submit_time == 53 * 60);
    CHECK(t.time_origin == 5 * 60);
    o.time_unit = 0.001;  // Tiresias's file read as milliseconds
    CHECK(read_tiresias_trace(kTiresiasDir + "small_job.csv", o).jobs[2].duration == 0.1275);
}

TEST_CASE("tiresias/muri: detection by the exact header prefix", "[traces]") {
    CHECK(detect_tiresias("60_job.csv", kTiresiasHeader));
    CHECK(detect_tiresias("x.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration"));
    CHECK(detect_tiresias("x.csv", "\xEF\xBB\xBF" + kTiresiasHeader));
    CHECK_FALSE(detect_tiresias("x.csv", kMuriHeader));
    CHECK_FALSE(detect_tiresias("x.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration_s"));
    CHECK_FALSE(detect_tiresias("x.csv", "job_id,submit_time,num_gpus,duration"));
    CHECK_FALSE(detect_tiresias("tf_job.csv", "job_id,num_gpu,submit_time,start_time,duration,model_size"));
    CHECK(detect_muri("trace1.csv", kMuriHeader));
    CHECK_FALSE(detect_muri("x.csv", kTiresiasHeader));
    CHECK_FALSE(detect_muri("x.csv", "job_id,submit_time,num_gpus,duration"));
    CHECK_FALSE(detect_muri("x.trace", "A3C\tcmd\t-n\t1\t100\t0.0\t1"));
    // Through the registry: detected from the header, or by name.
    CHECK(read_trace(kMuriDir + "small_trace.csv", "auto", {}).format == "muri");
    CHECK(read_trace(kTiresiasDir + "small_job.csv", "auto", {}).format == "tiresias");
    CHECK(read_trace(kMuriDir + "small_trace.csv", "muri", {}).jobs.size() == 3);
    CHECK(read_trace(kTiresiasDir + "small_job.csv", "tiresias", {}).jobs.size() == 4);
}

TEST_CASE("tiresias/muri: malformed rows name file:line and the column", "[traces]") {
    struct Case {
        std::string row, expect;
    };
    const std::vector<Case> cases = {
        {"1,8,35,133,vgg11,147", ":3: expected 7 fields as in the header, got 6"},
        {"1,0,35,133,vgg11,147,23", ":3: column 'num_gpu': expected an integer number of GPUs >= 1, got '0'"},
        {"1,1.5,35,133,vgg11,147,23", ":3: column 'num_gpu'"},
        {"1,1,-35,133,vgg11,147,23", ":3: column 'submit_time': expected a time >= 0"},
        {"1,1,soon,133,vgg11,147,23", ":3: column 'submit_time'"},
        {"1,1,35,133,vgg11,0,23", ":3: column 'duration': expected a duration in seconds > 0 (at least 1 us), got '0'"},
        {"1,1,35,133,vgg11,,23", ":3: column 'duration'"},
        {",1,35,133,vgg11,147,23", ":3: column 'job_id': expected a non-empty job id"},
        {"0,1,35,133,vgg11,147,23", ":3: column 'job_id': duplicate id '0' (first on line 2)"},
    };
    int n = 0;
    for (const auto& c : cases) {
        const std::string path = write_temp(fmt::format("tiresias-bad-{}.csv", n++),
                                            kTiresiasHeader + "\n0,1,0,10,vgg19,5,0\n" + c.row + "\n");
        INFO(c.row);
        CHECK_THROWS_WITH(read_tiresias_trace(path, {}), Catch::Contains(path + c.expect));
    }
    const std::string muri_bad =
        write_temp("muri-bad.csv", kMuriHeader + "\n0,4,0,48,bert,4,9000,0,190,0.5,163,18,high\n");
    CHECK_THROWS_WITH(read_muri_trace(muri_bad, {}),
                      Catch::Contains(muri_bad + ":2: column 'priority': expected a number"));
    const std::string muri_dur = write_temp("muri-dur.csv", kMuriHeader + "\n0,4,0,48,bert,4,-1,0,190,0.5,163,18,0\n");
    CHECK_THROWS_WITH(read_muri_trace(muri_dur, {}),
                      Catch::Contains(muri_dur + ":2: column 'duration': expected a duration > 0 in units of 0.001 s"));
}

TEST_CASE("tiresias/muri: header errors", "[traces]") {
    const std::string no_duration =
        write_temp("tiresias-nodur.csv", "job_id,num_gpu,submit_time,iterations\n0,1,0,5\n");
    CHECK_THROWS_WITH(read_tiresias_trace(no_duration, {}),
                      Catch::Contains(no_duration + ":1: missing required column 'duration'"));
    const std::string twice = write_temp("muri-twice.csv", "job_id,num_gpu,submit_time,duration,duration\n0,1,0,5,5\n");
    CHECK_THROWS_WITH(read_muri_trace(twice, {}), Catch::Contains(twice + ":1: column 'duration' appears twice"));
    const std::string empty = write_temp("tiresias-empty.csv", "");
    CHECK_THROWS_WITH(read_tiresias_trace(empty, {}),
                      Catch::Contains(empty + ": empty file, expected the tiresias header"));
    const std::string header_only = write_temp("muri-header-only.csv", kMuriHeader + "\n");
    CHECK_THROWS_WITH(read_muri_trace(header_only, {}), Catch::Contains("no job rows"));
    CHECK_THROWS_WITH(read_muri_trace(kMuriDir + "no-such.csv", {}), Catch::Contains("no-such.csv: cannot open file"));
}

TEST_CASE("tiresias/muri: malformed rows are skipped and counted by reason", "[traces]") {
    ReadOptions o;
    o.on_bad_line = BadLinePolicy::Skip;
    const Trace t = read_tiresias_trace(kTiresiasDir + "malformed_job.csv", o);
    REQUIRE(t.jobs.size() == 2);
    CHECK(t.jobs[0].id == "0");
    CHECK(t.jobs[1].id == "9");
    CHECK(t.jobs[1].line == 10);
    CHECK(t.report.rows_read == 9);
    CHECK(t.report.kept == 2);
    const std::map<std::string, std::uint64_t> expected = {
        {"wrong number of fields", 1}, {"bad num_gpu", 2}, {"bad submit_time", 1},
        {"bad duration", 1},           {"bad job_id", 1},  {"duplicate job_id", 1}};
    CHECK(t.report.dropped == expected);
    CHECK(t.report.first_errors.size() == 5);
    CHECK_THROWS_WITH(read_tiresias_trace(kTiresiasDir + "malformed_job.csv", {}),
                      Catch::Contains("malformed_job.csv:3: expected 7 fields"));
}

TEST_CASE("tiresias: the shared 60_job.csv matches the file", "[traces][shared-data]") {
    const std::string path = std::string(DLSIM_SHARED_DATA) + "/traces/tiresias/60_job.csv";
    if (!shared_data_present(path)) return;
    CHECK(detect_tiresias(path, first_line(path)));
    CHECK_FALSE(detect_muri(path, first_line(path)));
    const Csv csv = read_csv(path);
    const Trace t = read_tiresias_trace(path, {});
    REQUIRE(t.jobs.size() == csv.rows.size());
    CHECK(t.report.rows_read == csv.rows.size());
    double first = 1e300;
    for (std::size_t i = 0; i < csv.rows.size(); ++i) first = std::min(first, std::stod(csv.at(i, "submit_time")));
    for (std::size_t i = 0; i < csv.rows.size(); ++i) {
        INFO("row " << i);
        CHECK(t.jobs[i].id == csv.at(i, "job_id"));
        CHECK(t.jobs[i].num_gpus == std::stoi(csv.at(i, "num_gpu")));
        CHECK(t.jobs[i].submit_time == std::stod(csv.at(i, "submit_time")) - first);
        CHECK(t.jobs[i].duration == std::stod(csv.at(i, "duration")));
        CHECK(t.strings[t.jobs[i].model] == csv.at(i, "model_name"));
    }
}

TEST_CASE("muri: every shared Muri trace loads, durations are the file's ms / 1000", "[traces][shared-data]") {
    const std::string dir = std::string(DLSIM_SHARED_DATA) + "/traces/muri";
    if (!shared_data_present(dir)) return;
    std::vector<std::string> paths;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".csv") paths.push_back(e.path().string());
    std::sort(paths.begin(), paths.end());
    std::size_t traces = 0;
    for (const auto& path : paths) {
        INFO(path);
        CHECK(detect_muri(path, first_line(path)));
        CHECK_FALSE(detect_tiresias(path, first_line(path)));
        const Csv csv = read_csv(path);
        const Trace t = read_muri_trace(path, {});
        REQUIRE(t.jobs.size() == csv.rows.size());
        CHECK(t.report.rows_read == csv.rows.size());
        CHECK(t.report.dropped.empty());
        double first = 1e300;
        for (std::size_t i = 0; i < csv.rows.size(); ++i)
            first = std::min(first, std::stod(csv.at(i, "submit_time")) / 1000);
        const bool all_at_zero = path.ends_with("_pr.csv");
        std::size_t mismatches = 0;
        for (std::size_t i = 0; i < csv.rows.size(); ++i) {
            const JobRecord& j = t.jobs[i];
            mismatches += j.id != csv.at(i, "job_id") || j.num_gpus != std::stoi(csv.at(i, "num_gpu")) ||
                          j.duration != std::stod(csv.at(i, "duration")) / 1000 ||
                          j.submit_time != std::stod(csv.at(i, "submit_time")) / 1000 - first ||
                          j.priority != std::stod(csv.at(i, "priority")) ||
                          t.strings[j.model] != csv.at(i, "model_name") || (all_at_zero && j.submit_time != 0);
        }
        CHECK(mismatches == 0);
        // A few rows spelled out: the first, the middle and the last.
        for (std::size_t i : {std::size_t{0}, csv.rows.size() / 2, csv.rows.size() - 1}) {
            INFO("row " << i << ": duration " << csv.at(i, "duration") << " ms");
            CHECK(t.jobs[i].duration * 1000 == Approx(std::stod(csv.at(i, "duration"))).epsilon(1e-15));
        }
        traces += std::filesystem::path(path).filename().string().starts_with("trace");
    }
    CHECK(traces == 6);  // trace{1,2,3}.csv and trace{1,2,3}_pr.csv (PROVENANCE.txt)
}

}  // namespace dlsim::test::tiresias_muri_tests
