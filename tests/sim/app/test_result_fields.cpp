// The result schema's one field table (sim/app/result_fields.hpp): the JSON summary, the job records,
// the jobs CSV, the sweep index and the console table all come from it; the fast number formatting
// gives the same bytes as the general one; CSV cells are quoted per RFC 4180; a measurement window
// that selects no job is an input error.
#include "models/base/json_fields.hpp"
#include "models/base/json_out.hpp"
#include "sim/app/result_fields.hpp"
#include "sim/app/sweep_index.hpp"
#include "tests/support/test_support.hpp"
#include "traces/readers/csv_reader.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <random>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::result_fields_tests {

using Json = nlohmann::ordered_json;
namespace rf = dlsim::result_fields;

namespace {

const std::string kSource = DLSIM_SOURCE_DIR;

std::string seconds_text(std::int64_t us) {
    rf::Buffer b;
    rf::append_seconds(b, us);
    return fmt::to_string(b);
}

std::vector<std::string> summary_names() {
    std::vector<std::string> out;
    for (const auto& f : rf::summary_fields()) out.emplace_back(f.name);
    return out;
}

std::vector<std::string> job_names(bool csv_only) {
    std::vector<std::string> out;
    for (const auto& f : rf::job_fields())
        if (!csv_only || f.in_csv) out.emplace_back(f.name);
    return out;
}

std::vector<std::string> keys_of(const Json& object) {
    std::vector<std::string> out;
    for (const auto& [k, v] : object.items()) out.push_back(k);
    return out;
}

/// Every record of a CSV file, unquoted (RFC 4180).
std::vector<std::vector<std::string>> csv_records(const std::string& path) {
    CsvLines csv(path);
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string_view> fields;
    while (csv.next(fields)) rows.emplace_back(fields.begin(), fields.end());
    return rows;
}

}  // namespace

TEST_CASE("result fields: seconds are written exactly as the shortest round-trip double", "[unit]") {
    std::vector<std::int64_t> values = {0,
                                        1,
                                        9,
                                        10,
                                        99,
                                        100,
                                        101,
                                        999'999,
                                        1'000'000,
                                        1'000'001,
                                        1'500'000,
                                        12'345'678,
                                        -1,
                                        -100,
                                        -1'500'000,
                                        86'400'000'000,
                                        999'999'999'999'999,
                                        1'000'000'000'000'000,
                                        4'611'686'018'427'387'903,
                                        123'456'789'012'345};
    std::mt19937_64 rng(7);
    for (int i = 0; i < 200'000; ++i) {
        const int digits = 1 + static_cast<int>(rng() % 18);
        std::int64_t v = static_cast<std::int64_t>(rng() % 1'000'000'000'000'000'000);
        for (int d = digits; d < 18; ++d) v /= 10;
        if (rng() % 4 == 0) v -= v % 1000;  // whole milliseconds: trailing zeros to trim
        values.push_back(v);
    }
    for (std::int64_t us : values) {
        INFO(us);
        REQUIRE(seconds_text(us) == json_out::number(to_seconds(us)));
    }
}

TEST_CASE("result fields: strings are escaped as JSON and quoted per RFC 4180 in CSV", "[unit]") {
    rf::Buffer b;
    rf::append_json_string(b, std::string("a\"b\\c\nd\te\x01"
                                          "f"));
    CHECK(fmt::to_string(b) == json_out::quote(std::string("a\"b\\c\nd\te\x01"
                                                           "f")));
    CHECK(rf::csv_text("plain") == "plain");
    CHECK(rf::csv_text("a\"b") == "\"a\"\"b\"");
    CHECK(rf::csv_text("a,b") == "\"a,b\"");
    CHECK(rf::csv_text("a\nb") == "\"a\nb\"");
    CHECK(rf::csv_text("a\rb") == "\"a\rb\"");
    CHECK(rf::csv_text("\"") == "\"\"\"\"");
}

TEST_CASE("jobs CSV: ids and GPU type names with quotes, commas and newlines read back unchanged", "[unit]") {
    // Before RFC 4180 quoting, a"b was written as "a"b" and the file did not read back.
    const RunInputs in = inputs_from_text(
        R"({"gpu_types": {"t,\"1\"": {}}, "node_types": {"n": {"gpu_type": "t,\"1\"", "gpus": 1}},
            "racks": [{"node_type": "n", "nodes": 1}]})",
        R"({"models": {"unused": {"throughput": {"t,\"1\"": 1}}}})",
        "job_id,submit_time,num_gpus,duration\n\"a\"\"b\",0,1,2\n\"c,d\",1,1,1\n\"e\nf\",2,1,1\nplain,3,1,1\n");
    RunConfig c;
    c.out.clear();
    c.jobs_csv = temp_path("quoted-jobs.csv");
    const RunOutcome o = simulate(in, c);
    write_outputs(in, c, o, {});
    const auto rows = csv_records(c.jobs_csv);
    REQUIRE(rows.size() == 5);
    CHECK(rows[0] == job_names(true));
    const std::vector<std::string> ids = {"a\"b", "c,d", "e\nf", "plain"};
    const auto gpu_type =
        static_cast<std::size_t>(std::find(rows[0].begin(), rows[0].end(), "gpu_type") - rows[0].begin());
    REQUIRE(gpu_type < rows[0].size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        INFO(i);
        REQUIRE(rows[i + 1].size() == rows[0].size());
        CHECK(rows[i + 1][0] == ids[i]);
        CHECK(rows[i + 1][gpu_type] == "t,\"1\"");
        CHECK(rows[i + 1].back() == "finished");
    }
}

TEST_CASE("result schema: the JSON summary, job records, jobs CSV and index columns are the field table's", "[sweep]") {
    // A real sweep of two runs; one trace row has every optional column, one job is rejected.
    const std::string trace =
        write_temp("schema-trace.csv",
                   "job_id,submit_time,num_gpus,duration,model,user,vc,status\n"
                   "a,0,1,100,ResNet-18 (batch size 32),u1,vc1,Pass\nb,10,1,50,,,,\nhuge,20,4096,10,,,,\n");
    const std::string spec = write_temp("schema-sweep.json", fmt::format(R"({{"name": "schema",
  "base": {{"trace": "{}", "cluster": "{}/models/clusters/gavel_simulated.json",
            "profiles": "{}/models/profiles/gavel.json"}},
  "grid": {{"policy": ["fifo", "srtf"]}}}})",
                                                                         trace, kSource, kSource));
    const std::string dir = temp_path("schema-sweep");
    std::filesystem::remove_all(dir);
    const CliResult r = run_cli("sweep " + spec + " --out " + dir);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);

    const Json index = json_fields::parse_file(dir + "/index.json");
    REQUIRE(index["runs"].size() == 2);
    const std::vector<std::string> metrics = index["metrics"];
    CHECK(metrics == index_metrics());
    std::vector<std::string> want_metrics;
    for (const auto& f : rf::summary_fields())
        if (f.in_index) want_metrics.emplace_back(f.name);
    CHECK(metrics == want_metrics);
    CHECK(std::find(metrics.begin(), metrics.end(), "migrations") != metrics.end());

    std::vector<std::string> columns = {"run_id", "status", "policy"};
    columns.insert(columns.end(), want_metrics.begin(), want_metrics.end());
    columns.push_back("error");
    const auto csv = csv_records(dir + "/index.csv");
    REQUIRE(csv.size() == 3);
    CHECK(csv[0] == columns);

    const Json result = json_fields::parse_file(dir + "/" + index["runs"][0]["result"].get<std::string>());
    CHECK(keys_of(result["summary"]) == summary_names());
    for (const char* key : {"migrations", "agnostic_jobs", "preemptions"}) CHECK(result["summary"].contains(key));
    // Records list the table's fields in its order; a field absent from a record is one the table
    // allows to be absent (the trace's optional columns, the reason of a rejection).
    const auto all = job_names(false);
    REQUIRE(result["jobs"].size() == 3);
    CHECK(keys_of(result["jobs"][0]) == std::vector<std::string>{"job_id",
                                                                 "submit_time",
                                                                 "start_time",
                                                                 "finish_time",
                                                                 "jct",
                                                                 "queueing_delay",
                                                                 "pending_time",
                                                                 "pending_reasons",
                                                                 "num_gpus",
                                                                 "gpu_type",
                                                                 "preemptions",
                                                                 "migrations",
                                                                 "restarts",
                                                                 "restart_seconds",
                                                                 "resizes",
                                                                 "mean_goodput",
                                                                 "mean_efficiency",
                                                                 "packed_seconds",
                                                                 "ftf_rho",
                                                                 "nodes_spanned",
                                                                 "racks_spanned",
                                                                 "network_slowdown",
                                                                 "comm_time",
                                                                 "state",
                                                                 "model",
                                                                 "user",
                                                                 "vc",
                                                                 "status"});
    for (const auto& job : result["jobs"]) {
        std::vector<std::string> expected;
        for (const auto& name : all)
            if (job.contains(name)) expected.push_back(name);
        CHECK(keys_of(job) == expected);
        for (const auto& name : job_names(true)) CHECK(job.contains(name));
    }
    CHECK(result["jobs"][2]["state"] == "rejected");
    CHECK(result["jobs"][2].contains("reason"));

    // The policy, its parameters and the capacity by GPU type are in the echoed config.
    CHECK(result["config"]["policy"] == "fifo");
    CHECK(result["config"]["params"].is_object());
    const Json& by_type = result["config"]["cluster"]["gpus_by_type"];
    CHECK(keys_of(by_type) == std::vector<std::string>{"V100", "P100", "K80"});
    int total = 0;
    for (const auto& [name, n] : by_type.items()) total += n.get<int>();
    CHECK(total == result["config"]["cluster"]["gpus"].get<int>());

    // The jobs CSV of the same run made by `dlsim run`.
    const std::string jobs_csv = temp_path("schema-jobs.csv");
    const CliResult run =
        run_cli(fmt::format("run --trace {} --cluster {}/models/clusters/gavel_simulated.json "
                            "--profiles {}/models/profiles/gavel.json --out {} --jobs-csv {}",
                            trace, kSource, kSource, temp_path("schema-run.json"), jobs_csv));
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const auto jobs = csv_records(jobs_csv);
    REQUIRE(jobs.size() == 4);
    CHECK(jobs[0] == job_names(true));
}

TEST_CASE("dlsim run: the console summary comes from the field table", "[unit]") {
    Summary s;
    s.jobs = 10;
    s.finished = 8;
    s.rejected = 1;
    s.unfinished = 1;
    s.avg_jct = 3600;
    s.makespan = 7200;
    s.gpu_utilization = 0.5;
    s.gpu_utilization_by_type = {{"a", 0.25}, {"b", 0.75}};
    s.preemptions = 4;
    s.events = 20;
    auto lines = rf::console_lines(s, {{"preemptions", "policy calls 7"}});
    std::vector<std::pair<std::string, std::string>> want = {{"jobs", "10 (8 finished, 1 rejected, 1 unfinished)"},
                                                             {"JCT (h)", "avg 1.00   p50 0.00   p95 0.00   p99 0.00"},
                                                             {"queueing (h)", "avg 0.00"},
                                                             {"pending (h)", "avg 0.00   p95 0.00"},
                                                             {"makespan (h)", "2.00"},
                                                             {"GPU util", "50.0%   a 25.0%   b 75.0%"},
                                                             {"preemptions", "4   events 20   policy calls 7"}};
    CHECK(lines == want);
    // Counts that are usually zero show only when they are not.
    s.migrations = 3;
    s.agnostic_jobs = 2;
    lines = rf::console_lines(s);
    CHECK(lines[0].second == "10 (8 finished, 1 rejected, 1 unfinished, 2 model-agnostic)");
    CHECK(lines.back().second == "4 (3 migrations)   events 20");
}

TEST_CASE("--measure-jobs and --measure-time: a window that selects no job is an input error", "[bad-input]") {
    // The bundled default has 1,000 jobs: a window past them used to report a mean JCT of 0 over 0 jobs.
    const CliResult jobs = run_cli("run --measure-jobs 5000: --out " + temp_path("window-jobs.json"));
    CHECK(jobs.exit_code == 2);
    CHECK_THAT(jobs.err, Catch::Contains("--measure-jobs 5000:") && Catch::Contains("1000 jobs"));
    const CliResult time = run_cli("run --measure-time 1e9: --out " + temp_path("window-time.json"));
    CHECK(time.exit_code == 2);
    CHECK_THAT(time.err, Catch::Contains("--measure-time 1000000000:") && Catch::Contains("1000 jobs") &&
                             Catch::Contains("submitted from"));

    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                          "job_id,submit_time,num_gpus,duration\na,5,1,5\nb,0,1,4\nc,20,1,3\n");
    auto window = [&](const MeasureWindow& w) {
        RunConfig c;
        c.out.clear();
        c.measure = w;
        return simulate(in, c).summary;
    };
    CHECK(window(parse_measure_jobs("2:")).measured_jobs == 1);  // the last arrival only: still fine
    CHECK_THROWS_WITH(window(parse_measure_jobs("3:")), Catch::Contains("only 3 jobs"));
    CHECK(window(parse_measure_time("20:")).measured_jobs == 1);
    CHECK_THROWS_WITH(window(parse_measure_time("6:20")), Catch::Contains("--measure-time 6:20 selects no job"));
    CHECK_THROWS_WITH(window(parse_measure_time("21:")), Catch::Contains("from 0 s to 20 s"));
}

TEST_CASE("a run in which no job finishes: its figures are null, empty and n/a, never 0", "[sweep]") {
    // The one job needs 64 GPUs, the cluster has 36 of a type: it is rejected and nothing runs. A mean JCT
    // of 0 would make this cluster look best in a sweep index.
    const std::string trace = write_temp("nothing-trace.csv",
                                         "job_id,submit_time,num_gpus,duration,model\nhuge,10,64,100,ResNet-50 "
                                         "(batch size 64)\n");
    const std::string base = fmt::format(R"("trace": "{}", "cluster": "{}/models/clusters/gavel_simulated.json",
            "profiles": "{}/models/profiles/gavel.json")",
                                         trace, kSource, kSource);
    const std::vector<std::string> none = {
        "avg_jct",          "p50_jct",  "p95_jct",         "p99_jct",     "avg_queueing_delay", "avg_pending_time",
        "p95_pending_time", "makespan", "gpu_utilization", "ftf_rho_max", "ftf_rho_mean",       "ftf_share_above_1"};

    const std::string out = temp_path("nothing.json"), jobs_csv = temp_path("nothing-jobs.csv");
    const CliResult run =
        run_cli(fmt::format("run --trace {} --cluster {}/models/clusters/gavel_simulated.json "
                            "--profiles {}/models/profiles/gavel.json --out {} --jobs-csv {}",
                            trace, kSource, kSource, out, jobs_csv));
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    const Json summary = json_fields::parse_file(out)["summary"];
    for (const auto& key : none) {
        INFO(key);
        CHECK(summary.at(key).is_null());
    }
    for (const auto& [type, u] : summary.at("gpu_utilization_by_type").items()) CHECK(u.is_null());
    CHECK(summary.at("finished") == 0);  // counts are measured zeros
    CHECK(summary.at("preemptions") == 0);
    CHECK_THAT(run.out, Catch::Contains("JCT (h)      avg n/a   p50 n/a   p95 n/a   p99 n/a"));
    CHECK_THAT(run.out, Catch::Contains("queueing (h) avg n/a"));
    CHECK_THAT(run.out, Catch::Contains("pending (h)  avg n/a   p95 n/a"));
    CHECK_THAT(run.out, Catch::Contains("makespan (h) n/a"));
    CHECK_THAT(run.out, Catch::Contains("GPU util     n/a   V100 n/a"));
    const auto rows = csv_records(jobs_csv);
    REQUIRE(rows.size() == 2);
    for (const char* column : {"jct", "queueing_delay", "pending_time", "finish_time"}) {
        const auto at = std::find(rows[0].begin(), rows[0].end(), column) - rows[0].begin();
        REQUIRE(static_cast<std::size_t>(at) < rows[0].size());
        CHECK(rows[1][static_cast<std::size_t>(at)].empty());
    }

    // In a sweep, the index leaves its cells empty.
    const std::string spec = write_temp("nothing-sweep.json", fmt::format(R"({{"name": "nothing",
  "base": {{{}}}, "grid": {{"policy": ["fifo", "srtf"]}}}})",
                                                                          base));
    const std::string dir = temp_path("nothing-sweep");
    std::filesystem::remove_all(dir);
    const CliResult sweep = run_cli("sweep " + spec + " --out " + dir);
    INFO(sweep.err);
    REQUIRE(sweep.exit_code == 0);
    const auto index = csv_records(dir + "/index.csv");
    REQUIRE(index.size() == 3);
    const Json doc = json_fields::parse_file(dir + "/index.json");
    for (const auto& key : none) {
        const auto at = std::find(index[0].begin(), index[0].end(), key) - index[0].begin();
        if (static_cast<std::size_t>(at) == index[0].size()) continue;  // not an index column
        INFO(key);
        CHECK(index[1][static_cast<std::size_t>(at)].empty());
        CHECK(index[2][static_cast<std::size_t>(at)].empty());
    }
    for (const auto& key : none) CHECK(doc["runs"][0]["summary"][key].is_null());
    const auto avg = std::find(index[0].begin(), index[0].end(), "avg_jct") - index[0].begin();
    REQUIRE(static_cast<std::size_t>(avg) < index[0].size());
    CHECK(index[1][static_cast<std::size_t>(avg)].empty());
    CHECK(index[1][1] == "done");
}

}  // namespace dlsim::test::result_fields_tests
