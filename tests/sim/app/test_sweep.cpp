// Sweeps: expansion, resumability, parallel and sharded runs giving identical results, the index,
// failures that do not stop the others, and steady-state measurement windows.
#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"
#include "models/base/json_out.hpp"
#include "sim/app/file_hash.hpp"
#include "sim/app/sweep.hpp"
#include "sim/app/sweep_spec.hpp"
#include "tests/support/test_support.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <thread>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::sweep_tests {

using Json = nlohmann::ordered_json;

namespace {

const std::string kSource = DLSIM_SOURCE_DIR;

/// The acceptance sweep: fifo and srtf x 4 loads x 3 seeds on the bundled trace and cluster, each
/// run re-sampling `jobs` jobs with Poisson arrivals.
std::string acceptance_spec(const std::string& name, int jobs) {
    return write_temp(name + ".json", fmt::format(R"({{"name": "{}",
  "base": {{"trace": "{}/traces/samples/gavel_mix_default.csv", "resample_rate": 3, "resample_jobs": {}}},
  "grid": {{"policy": ["fifo", "srtf"], "load_scale": [0.5, 1, 1.5, 2], "seed": [1, 2, 3]}}}})",
                                                  name, kSource, jobs));
}

std::string fresh_dir(const std::string& name) {
    const std::string dir = temp_path(name);
    std::filesystem::remove_all(dir);
    return dir;
}

/// Finished result files in dir/runs, sorted.
std::vector<std::string> result_files(const std::string& dir) {
    std::vector<std::string> out;
    if (!std::filesystem::exists(dir + "/runs")) return out;
    for (const auto& e : std::filesystem::directory_iterator(dir + "/runs")) {
        const std::string name = e.path().filename().string();
        if (name.size() == 21 && name.substr(16) == ".json") out.push_back(name);
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// A result without its `run` object (wall time, RSS: the only part allowed to differ).
std::string without_run_object(const std::string& text) {
    const auto at = text.rfind("\n\"run\":");
    REQUIRE(at != std::string::npos);
    return text.substr(0, at);
}

/// Every result in `a` equals the one in `b` outside `run`, and the indexes are byte-identical.
void check_same_results(const std::string& a, const std::string& b) {
    const auto files = result_files(a);
    REQUIRE(files == result_files(b));
    for (const auto& f : files) {
        INFO(f);
        CHECK(without_run_object(slurp(a + "/runs/" + f)) == without_run_object(slurp(b + "/runs/" + f)));
    }
    CHECK(slurp(a + "/index.csv") == slurp(b + "/index.csv"));
    CHECK(slurp(a + "/index.json") == slurp(b + "/index.json"));
}

}  // namespace

TEST_CASE("sweep: the 24-run acceptance sweep, its index, resume, --jobs 1 vs 2, SIGTERM midway", "[sweep][slow]") {
    const std::string spec = acceptance_spec("acceptance", 2000);
    const std::string one = fresh_dir("sweep-jobs1"), two = fresh_dir("sweep-jobs2"),
                      killed = fresh_dir("sweep-killed");

    const CliResult first = run_cli("sweep " + spec + " --out " + one + " --jobs 1");
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    const auto files = result_files(one);
    REQUIRE(files.size() == 24);

    // The index: one row per run, in grid order (policy outermost, seed innermost), each row equal to
    // its run's result.
    const Json index = json_fields::parse_file(one + "/index.json");
    CHECK(index["schema"] == "dlsim.sweep-index/1");
    CHECK(index["parameters"] == Json({"policy", "load_scale", "seed"}));
    REQUIRE(index["runs"].size() == 24);
    const auto csv = read_rows(one + "/index.csv");
    REQUIRE(csv.size() == 25);
    const auto& header = csv[0];
    auto column = [&](const std::string& name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
    };
    REQUIRE(column("avg_jct") < header.size());
    for (std::size_t i = 0; i < 24; ++i) {
        const Json& row = index["runs"][i];
        INFO("row " << i);
        CHECK(row["status"] == "done");
        CHECK(row["parameters"]["policy"] == (i < 12 ? "fifo" : "srtf"));
        CHECK(row["parameters"]["load_scale"].get<double>() == Json({0.5, 1, 1.5, 2})[(i / 3) % 4].get<double>());
        CHECK(row["parameters"]["seed"] == i % 3 + 1);
        const Json result = json_fields::parse_file(one + "/" + row["result"].get<std::string>());
        CHECK(result["run_id"] == row["run_id"]);
        CHECK(result["summary"] == row["summary"]);
        CHECK(result["config"]["policy"] == row["parameters"]["policy"]);
        CHECK(result["config"]["seed"] == row["parameters"]["seed"]);
        CHECK(result["config"]["trace"]["transforms"]["load_scale"] == row["parameters"]["load_scale"]);
        CHECK(result["summary"]["finished"] == 2000);
        // The CSV row carries the same numbers, in shortest round-trip form.
        const auto& cells = csv[i + 1];
        CHECK(cells[column("run_id")] == row["run_id"]);
        for (const char* metric : {"avg_jct", "p99_jct", "makespan", "gpu_utilization"})
            CHECK(std::stod(cells[column(metric)]) == result["summary"][metric].get<double>());
        CHECK(cells[column("finished")] == "2000");
    }
    // Different loads give different schedules (the transforms reach the runs).
    CHECK(index["runs"][0]["summary"]["avg_jct"] != index["runs"][9]["summary"]["avg_jct"]);

    // Run again: nothing re-runs, no result file is touched.
    std::map<std::string, std::filesystem::file_time_type> mtimes;
    for (const auto& f : files) mtimes[f] = std::filesystem::last_write_time(one + "/runs/" + f);
    const CliResult again = run_cli("sweep " + spec + " --out " + one + " --jobs 1");
    CHECK(again.exit_code == 0);
    CHECK_THAT(again.err, Catch::Contains("24 already done, nothing to run"));
    for (const auto& f : files) CHECK(std::filesystem::last_write_time(one + "/runs/" + f) == mtimes[f]);

    // Two threads: the same results.
    REQUIRE(run_cli("sweep " + spec + " --out " + two + " --jobs 2").exit_code == 0);
    check_same_results(one, two);

    // SIGTERM midway, then resume: it completes with the same results and nothing lost.
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        const std::string log = temp_path("sweep-killed.log");
        freopen(log.c_str(), "w", stderr);
        execl(DLSIM_BINARY, DLSIM_BINARY, "sweep", spec.c_str(), "--out", killed.c_str(), "--jobs", "1",
              static_cast<char*>(nullptr));
        _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
    while (result_files(killed).size() < 2 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    kill(child, SIGTERM);
    int status = 0;
    waitpid(child, &status, 0);
    REQUIRE(WIFSIGNALED(status));
    const auto survivors = result_files(killed);
    CHECK(survivors.size() >= 2);
    CHECK(survivors.size() < 24);
    for (const auto& f : survivors)  // whatever was there when it died is complete
        CHECK(without_run_object(slurp(killed + "/runs/" + f)) == without_run_object(slurp(one + "/runs/" + f)));
    const CliResult resumed = run_cli("sweep " + spec + " --out " + killed + " --jobs 2");
    INFO(resumed.err);
    CHECK(resumed.exit_code == 0);
    CHECK_THAT(resumed.err, Catch::Contains(fmt::format("{} already done", survivors.size())));
    check_same_results(one, killed);
    for (const auto& e : std::filesystem::directory_iterator(killed + "/runs")) CHECK(e.path().extension() != ".tmp");
}

TEST_CASE("sweep: --shard i/N for N = 1..5 runs each run exactly once; merge equals the local index", "[sweep][slow]") {
    const std::string spec = acceptance_spec("shards", 150);
    const std::string local = fresh_dir("shards-local");
    REQUIRE(run_cli("sweep " + spec + " --out " + local).exit_code == 0);
    const auto all = result_files(local);
    REQUIRE(all.size() == 24);
    for (std::size_t n = 1; n <= 5; ++n) {
        const std::string dir = fresh_dir(fmt::format("shards-{}", n));
        std::multiset<std::string> made;
        for (std::size_t i = 0; i < n; ++i) {
            const auto before = result_files(dir);
            const CliResult r = run_cli(fmt::format("sweep {} --out {} --shard {}/{} --jobs 1", spec, dir, i, n));
            INFO(r.err);
            REQUIRE(r.exit_code == 0);
            if (n > 1) CHECK_FALSE(std::filesystem::exists(dir + "/index.csv"));  // shards leave it to the merge
            const auto after = result_files(dir);
            std::set_difference(after.begin(), after.end(), before.begin(), before.end(),
                                std::inserter(made, made.end()));
        }
        INFO("N = " << n);
        CHECK(made.size() == 24);
        CHECK(std::set<std::string>(made.begin(), made.end()).size() == 24);
        const CliResult merged = run_cli("sweep merge " + spec + " --out " + dir);
        CHECK(merged.exit_code == 0);
        check_same_results(local, dir);
    }
    // In-process: the shards of every N partition the positions.
    for (std::size_t n = 1; n <= 5; ++n)
        for (std::size_t p = 0; p < 24; ++p) {
            int owners = 0;
            for (std::size_t i = 0; i < n; ++i) owners += Shard{i, n}.selects(p);
            CHECK(owners == 1);
        }
}

TEST_CASE("sweep merge: missing shards are named and the index marks them", "[sweep]") {
    const std::string spec = acceptance_spec("partial", 100);
    const std::string dir = fresh_dir("partial");
    REQUIRE(run_cli(fmt::format("sweep {} --out {} --shard 0/3", spec, dir)).exit_code == 0);
    const CliResult merged = run_cli("sweep merge " + spec + " --out " + dir);
    CHECK(merged.exit_code == 2);
    CHECK_THAT(merged.err, Catch::Contains("8 of 24 runs done, 0 failed, 16 missing"));
    const Json index = json_fields::parse_file(dir + "/index.json");
    CHECK(index["runs"][0]["status"] == "done");
    CHECK(index["runs"][1]["status"] == "missing");
    CHECK(index["runs"][1]["summary"].is_null());
    CHECK(run_cli("sweep merge " + spec + " --out " + fresh_dir("nothing-here")).exit_code == 2);
}

TEST_CASE("sweep: a failing run records its error and the others go on", "[sweep]") {
    const std::string good = write_temp("good.csv", "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,5,1,20\n");
    const std::string bad = write_temp("bad.csv", "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,5,one,20\n");
    const std::string spec = write_temp("failing.json", R"({"name": "failing",
      "base": {"cluster": ")" + kSource + R"(/models/clusters/minimal.json", "params.type_order": "spec"},
      "grid": {"trace": ["good.csv", "bad.csv"], "policy": ["fifo", "srtf"]}})");
    const std::string dir = fresh_dir("failing");
    const CliResult r = run_cli("sweep " + spec + " --out " + dir);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("bad.csv:3") && Catch::Contains("2 of 4 runs done, 2 failed"));
    const Json index = json_fields::parse_file(dir + "/index.json");
    CHECK(index["parameters"] == Json({"trace", "policy"}));  // base keys are not swept
    for (int i : {0, 1}) CHECK(index["runs"][i]["status"] == "done");
    for (int i : {2, 3}) {
        CHECK(index["runs"][i]["status"] == "failed");
        CHECK_THAT(index["runs"][i]["error"].get<std::string>(), Catch::Contains("bad.csv:3"));
        const Json err =
            json_fields::parse_file(dir + "/runs/" + index["runs"][i]["run_id"].get<std::string>() + ".error.json");
        CHECK(err["kind"] == "input");
    }
    CHECK(index["runs"][0]["summary"]["avg_jct"] == 17.5);  // one GPU: a 0-10 (10 s), b 10-30 (25 s)
}

TEST_CASE("sweep spec: errors name the spec, the run and what was expected", "[sweep]") {
    auto error_of = [](const std::string& text) {
        const std::string spec = write_temp("bad-spec.json", text);
        try {
            load_sweep_spec(spec);
        } catch (const InputError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK_THAT(error_of(R"({"grid": {"policy": ["fifo", "nosuch"]}})"),
               Catch::Contains("bad-spec.json: run 1 (policy=nosuch)") && Catch::Contains("nosuch"));
    CHECK_THAT(error_of(R"({"base": {"polcy": "fifo"}})"), Catch::Contains("unknown field \"polcy\""));
    CHECK_THAT(error_of(R"({"grid": {"seed": []}})"), Catch::Contains("grid.seed: expected a non-empty array"));
    CHECK_THAT(error_of(R"({"base": {"out": "x.json"}})"), Catch::Contains("\"out\" cannot be set in a sweep"));
    CHECK_THAT(error_of(R"({"grid": {"seed": [1, 1]}})"), Catch::Contains("runs 0 and 1 are the same run"));
    CHECK_THAT(error_of(R"({"grid": {"trace": ["missing.csv"]}})"), Catch::Contains("missing.csv"));
    CHECK_THAT(error_of(R"({"name": "../up"})"), Catch::Contains("name: expected a folder name"));
    CHECK_THAT(error_of(R"({"grid": {"params.type_order": ["fastest", "sideways"]}})"),
               Catch::Contains("run 1") && Catch::Contains("sideways"));
    CHECK_THAT(error_of(R"({"grid": {"measure_jobs": ["5:2"]}})"), Catch::Contains("--measure-jobs"));
    CHECK_THAT(error_of("{\"grid\": "), Catch::Contains("bad-spec.json:1"));
    CHECK_THROWS_WITH(parse_shard("3/3"), Catch::Contains("0 <= i < N"));
    CHECK_THROWS_WITH(parse_shard("1"), Catch::Contains("i/N"));
    CHECK(parse_shard("2/5").index == 2);
    CHECK(run_cli("sweep").exit_code == 2);
}

TEST_CASE("sweep spec: the grid is crossed first key outermost, explicit runs follow, params flatten", "[sweep]") {
    const std::string spec = write_temp("expand.json", R"({"name": "expand",
      "grid": {"policy": ["fifo", "srtf"], "params": [{"type_order": "spec"}, {"type_order": "fastest"}]},
      "runs": [{"policy": "srtf", "seed": 7}]})");
    const SweepSpec s = load_sweep_spec(spec);
    REQUIRE(s.runs.size() == 5);
    CHECK(s.parameters == std::vector<std::string>{"policy", "params.type_order", "seed"});
    CHECK(describe_run(s.runs[1]) == "policy=fifo, params.type_order=fastest");
    CHECK(s.runs[2].config.policy == "srtf");
    CHECK(s.runs[2].config.params.at("type_order") == "spec");
    CHECK(s.runs[4].config.seed == 7);
    CHECK(s.runs[4].config.trace == default_run_config().trace);  // the bundled default fills the rest
    // Run ids are stable: the same spec gives the same ids, a moved copy of the inputs too.
    CHECK(load_sweep_spec(spec).runs[3].id == s.runs[3].id);
    std::set<std::string> ids;
    for (const auto& r : s.runs) ids.insert(r.id);
    CHECK(ids.size() == 5);
}

TEST_CASE("--measure-jobs and --measure-time: JCT statistics over exactly the chosen jobs", "[sweep]") {
    // One GPU, FIFO. Trace order a, b, c, d; arrival order b(0), c(2), a(5), d(8).
    // b runs 0-4 (JCT 4), c 4-7 (5, waited 2), a 7-12 (7, waited 2), d 12-14 (6, waited 4).
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                          "job_id,submit_time,num_gpus,duration\n"
                                          "a,5,1,5\nb,0,1,4\nc,2,1,3\nd,8,1,2\n");
    auto measured = [&](const MeasureWindow& w) {
        RunConfig c;
        c.out.clear();
        c.measure = w;
        return simulate(in, c).summary;
    };
    const Summary all = measured({});
    CHECK(all.avg_jct == Approx(5.5).epsilon(1e-12));
    CHECK(all.measured_jobs == 4);

    const Summary first_two = measured(parse_measure_jobs("0:2"));  // b and c by arrival, not a and b
    CHECK(first_two.avg_jct == Approx(4.5).epsilon(1e-12));
    CHECK(first_two.avg_queueing_delay == Approx(1.0).epsilon(1e-12));
    CHECK(first_two.measured_jobs == 2);
    const Summary middle = measured(parse_measure_jobs("1:3"));  // c and a
    CHECK(middle.avg_jct == Approx(6.0).epsilon(1e-12));
    CHECK(middle.p50_jct == Approx(6.0).epsilon(1e-12));
    CHECK(middle.avg_queueing_delay == Approx(2.0).epsilon(1e-12));
    const Summary tail = measured(parse_measure_jobs("2:"));  // a and d
    CHECK(tail.avg_jct == Approx(6.5).epsilon(1e-12));
    CHECK(tail.p99_jct == Approx(6 + 0.99).epsilon(1e-12));  // numpy: 6 + 0.99 * (7 - 6)
    CHECK(tail.avg_queueing_delay == Approx(3.0).epsilon(1e-12));
    // Counts, makespan and utilization stay whole-run.
    CHECK(tail.finished == 4);
    CHECK(tail.makespan == Approx(14.0).epsilon(1e-12));

    const Summary by_time = measured(parse_measure_time("2:8"));  // submitted in [2, 8): c and a
    CHECK(by_time.avg_jct == Approx(6.0).epsilon(1e-12));
    CHECK(by_time.measured_jobs == 2);
    CHECK(measured(parse_measure_time("5:")).avg_jct == Approx(6.5).epsilon(1e-12));

    CHECK_THROWS_WITH(measured(parse_measure_jobs("0:5")), Catch::Contains("only 4 jobs"));
    CHECK_THROWS_WITH(parse_measure_jobs("3:3"), Catch::Contains("--measure-jobs: expected A:B"));
    CHECK_THROWS_WITH(parse_measure_jobs("x:3"), Catch::Contains("got 'x:3'"));
    CHECK_THROWS_WITH(parse_measure_time("8:2"), Catch::Contains("--measure-time: expected T0:T1"));
    CHECK_THROWS_WITH(parse_measure_time("5"), Catch::Contains("--measure-time"));

    // The CLI writes which window it used into the summary.
    const std::string trace = write_temp("measure.csv",
                                         "job_id,submit_time,num_gpus,duration\n"
                                         "a,5,1,5\nb,0,1,4\nc,2,1,3\nd,8,1,2\n");
    const std::string cluster = write_temp("measure-cluster.json", homogeneous_cluster_json(1, 1));
    const std::string profile = write_temp("measure-profile.json", kUnusedProfile);
    const std::string out = temp_path("measure.json");
    const CliResult r = run_cli(fmt::format("run --trace {} --cluster {} --profiles {} --measure-jobs 1:3 --out {}",
                                            trace, cluster, profile, out));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("measured     2 jobs (2 finished) with arrival index in [1, 3)"));
    const Json result = json_fields::parse_file(out);
    CHECK(result["summary"]["measure"] == Json::parse(R"({"by":"jobs","from":1,"to":3,"jobs":2,"finished":2})"));
    CHECK(result["summary"]["avg_jct"] == 6.0);
    CHECK(result["config"]["measure"] == Json::parse(R"({"by":"jobs","from":1,"to":3})"));
    CHECK(run_cli(fmt::format("run --trace {} --cluster {} --profiles {} --measure-jobs 1:3 --measure-time 0:1", trace,
                              cluster, profile))
              .exit_code == 2);
}

namespace {

/// A Python policy that starts each job on arrival (2 jobs, 4 GPUs: both fit), unless its `mode` says
/// to misbehave on its first call; it behaves when the file `unless` exists. It ends its process through
/// the C library (ctypes), which the embedded interpreter's guards on os._exit, os.abort and os.kill
/// cannot see: only the worker process around the run contains it.
constexpr const char* kMisbehaving = R"(import ctypes
import os
import signal

import dlsim


class Misbehave(dlsim.Policy):
    def __init__(self, mode="ok", unless=""):
        super().__init__()
        self.mode = mode
        self.unless = unless

    def decide(self, view, changes, decisions):
        if not (self.unless and os.path.exists(self.unless)):
            libc = ctypes.CDLL(None)
            if self.mode == "exit0":
                libc._exit(0)
            if self.mode == "abort":
                print("policy: aborting now", flush=True)
                libc.abort()
            if self.mode == "kill":
                libc.kill(os.getpid(), signal.SIGKILL)
            if self.mode == "spin":
                while True:
                    pass
        for j in changes.arrived:
            decisions.start(j, 0, view.job(j).num_gpus)
)";

/// A 4-run sweep of that policy: params.mode a, b, c (well-behaved) and `mode`.
std::string misbehaving_spec(const std::string& name, const std::string& mode, const std::string& unless = "") {
    write_temp("misbehave.py", kMisbehaving);
    write_temp("misbehave-cluster.json", homogeneous_cluster_json(1, 4));
    write_temp("misbehave-profile.json", kUnusedProfile);
    write_temp("misbehave.csv", "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,5,1,20\n");
    return write_temp(name + ".json", fmt::format(R"({{"name": "{}",
  "base": {{"policy": "py:misbehave.py:Misbehave", "trace": "misbehave.csv", "cluster": "misbehave-cluster.json",
           "profiles": "misbehave-profile.json", "params.unless": "{}"}},
  "grid": {{"params.mode": ["a", "b", "c", "{}"]}}}})",
                                                  name, unless, mode));
}

/// Checks the index of a misbehaving sweep: runs 0-2 done (JCTs 10 and 20 s), run 3 failed with
/// `reason`, its record of that kind; returns run 3's id.
std::string check_one_failed(const std::string& dir, const std::string& reason, const std::string& kind) {
    const Json index = json_fields::parse_file(dir + "/index.json");
    REQUIRE(index["runs"].size() == 4);
    for (int i = 0; i < 3; ++i) {
        INFO("run " << i);
        CHECK(index["runs"][i]["status"] == "done");
        CHECK(index["runs"][i]["summary"]["finished"] == 2);
        CHECK(index["runs"][i]["summary"]["avg_jct"] == 15.0);
    }
    const Json& bad = index["runs"][3];
    CHECK(bad["status"] == "failed");
    CHECK_THAT(bad["error"].get<std::string>(), Catch::Contains(reason));
    const std::string id = bad["run_id"];
    const Json record = json_fields::parse_file(dir + "/runs/" + id + ".error.json");
    CHECK(record["kind"] == kind);
    CHECK(record["error"] == bad["error"]);
    CHECK_FALSE(std::filesystem::exists(dir + "/runs/" + id + ".json"));
    // The CSV index carries the same reason in its error column (quoted when it has a comma).
    const auto rows = read_rows(dir + "/index.csv");
    REQUIRE(rows.size() == 5);
    CHECK(rows[4][0] == id);
    CHECK(rows[4][1] == "failed");
    CHECK_THAT(slurp(dir + "/index.csv"), Catch::Contains(reason));
    return id;
}

}  // namespace

TEST_CASE("sweep: a run whose process exits early, aborts or kills itself fails alone, with its reason", "[sweep]") {
    const struct {
        const char* mode;
        const char* reason;
        const char* kind;
    } cases[] = {
        {"exit0", "its process exited with status 0 without writing a result", "exit"},
        {"abort", "its process was killed by SIGABRT (signal 6)", "signal"},
        {"kill", "its process was killed by SIGKILL (signal 9)", "signal"},
    };
    for (const auto& c : cases) {
        INFO(c.mode);
        const std::string dir = fresh_dir(std::string("misbehave-") + c.mode);
        const CliResult r = run_cli(fmt::format("sweep {} --out {} --jobs 2",
                                                misbehaving_spec(std::string("misbehave-") + c.mode, c.mode), dir));
        INFO(r.err);
        CHECK(r.exit_code == 2);
        const std::string id = check_one_failed(dir, c.reason, c.kind);
        // The failed run is named, with its parameters and reason, and the count is right.
        CHECK_THAT(r.err, Catch::Contains(fmt::format("failed: run {} (params.mode={}): {}", id, c.mode, c.reason)));
        CHECK_THAT(r.err, Catch::Contains("3 of 4 runs done, 1 failed, 0 missing"));
    }
    // What the process printed before it died is in the record, printable.
    const std::string dir = temp_path("misbehave-abort");
    const Json index = json_fields::parse_file(dir + "/index.json");
    const Json record =
        json_fields::parse_file(dir + "/runs/" + index["runs"][3]["run_id"].get<std::string>() + ".error.json");
    CHECK(record["output_tail"].back() == "policy: aborting now");
    CHECK_THAT(record["error"].get<std::string>(), Catch::EndsWith("; its last output: policy: aborting now"));
}

TEST_CASE("sweep: --run-timeout kills a run that never returns; the others finish", "[sweep]") {
    const std::string dir = fresh_dir("misbehave-spin");
    const auto t0 = std::chrono::steady_clock::now();
    const CliResult r =
        run_cli(fmt::format("sweep {} --out {} --jobs 2 --run-timeout 1", misbehaving_spec("spin", "spin"), dir));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    INFO(r.err);
    CHECK(r.exit_code == 2);
    check_one_failed(dir, "timed out: still running after 1 s (--run-timeout), killed", "timeout");
    CHECK(seconds < 30);
    CHECK(run_cli("sweep x.json --run-timeout -1").exit_code == 2);
    CHECK_THAT(run_cli(fmt::format("sweep {} --run-timeout soon", misbehaving_spec("spin", "spin"))).err,
               Catch::Contains("--run-timeout: expected seconds in [0, 1e9] (0: no limit), got 'soon'"));
}

TEST_CASE("sweep: failed runs stay failed on resume unless --retry-failed", "[sweep]") {
    const std::string fixed = temp_path("misbehave-fixed");
    std::filesystem::remove(fixed);
    const std::string spec = misbehaving_spec("retry", "abort", fixed);
    const std::string dir = fresh_dir("misbehave-retry");
    REQUIRE(run_cli(fmt::format("sweep {} --out {}", spec, dir)).exit_code == 2);
    const std::string id = check_one_failed(dir, "SIGABRT", "signal");

    // Resumed: nothing runs, the failure is kept and said so, the sweep still fails.
    std::filesystem::file_time_type before = std::filesystem::last_write_time(dir + "/runs/" + id + ".error.json");
    const CliResult kept = run_cli(fmt::format("sweep {} --out {}", spec, dir));
    INFO(kept.err);
    CHECK(kept.exit_code == 2);
    CHECK_THAT(kept.err, Catch::Contains("1 runs failed in an earlier attempt and are kept as failed") &&
                             Catch::Contains("--retry-failed runs them again") &&
                             Catch::Contains("3 already done, 1 failed before, nothing to run"));
    CHECK(std::filesystem::last_write_time(dir + "/runs/" + id + ".error.json") == before);
    check_one_failed(dir, "SIGABRT", "signal");

    // The cause fixed, --retry-failed runs it (and only it) again: every run done, no record left.
    write_temp("misbehave-fixed", "");
    const CliResult retried = run_cli(fmt::format("sweep {} --out {} --retry-failed", spec, dir));
    INFO(retried.err);
    CHECK(retried.exit_code == 0);
    CHECK_THAT(retried.err, Catch::Contains("3 already done, 1 to run"));
    CHECK_FALSE(std::filesystem::exists(dir + "/runs/" + id + ".error.json"));
    const Json index = json_fields::parse_file(dir + "/index.json");
    CHECK(index["runs"][3]["status"] == "done");
    CHECK(index["runs"][3]["summary"]["avg_jct"] == 15.0);
}

TEST_CASE("result checksum: a hand-edited result is re-run on resume; dlsim validate names what is wrong", "[sweep]") {
    const std::string spec = acceptance_spec("checksum", 60);
    const std::string dir = fresh_dir("checksum");
    REQUIRE(run_cli(fmt::format("sweep {} --out {} --jobs 2", spec, dir)).exit_code == 0);
    const auto files = result_files(dir);
    REQUIRE(files.size() == 24);
    const std::string path = dir + "/runs/" + files[5];
    const std::string original = slurp(path);

    // The checksum is the SHA-256 of every byte before it, the last member of `run`.
    const auto at = original.rfind("\"checksum\":\"sha256:");
    REQUIRE(at != std::string::npos);
    CHECK(original.substr(at + 19) == sha256_text(original.substr(0, at)) + "\"}}\n");
    const CliResult good = run_cli("validate " + path);
    CHECK(good.exit_code == 0);
    CHECK(good.out ==
          fmt::format("{}: valid result, run {}, 60 job records, checksum matches\n", path, files[5].substr(0, 16)));

    // A changed avg_jct, still valid JSON.
    Json doc = Json::parse(original);
    const double avg = doc["summary"]["avg_jct"];
    const std::string field = "\"avg_jct\":" + json_out::number(avg);
    REQUIRE(original.find(field) != std::string::npos);
    std::string edited = original;
    edited.replace(edited.find(field), field.size(), "\"avg_jct\":" + json_out::number(avg / 2));
    REQUIRE_NOTHROW(Json::parse(edited));
    std::ofstream(path, std::ios::binary) << edited;
    const CliResult bad = run_cli("validate " + path);
    CHECK(bad.exit_code == 2);
    CHECK_THAT(bad.err, Catch::StartsWith("dlsim: error: " + path + ": checksum mismatch: the file says sha256:") &&
                            Catch::Contains("changed after dlsim wrote it"));

    // Resume runs it again, says why, and writes the same result as before (outside `run`).
    const CliResult resumed = run_cli(fmt::format("sweep {} --out {}", spec, dir));
    INFO(resumed.err);
    CHECK(resumed.exit_code == 0);
    CHECK_THAT(resumed.err, Catch::Contains(path + ": unusable result (checksum mismatch") &&
                                Catch::Contains("will run again") && Catch::Contains("23 already done, 1 to run"));
    CHECK(without_run_object(slurp(path)) == without_run_object(original));
    CHECK(run_cli("validate " + path).exit_code == 0);

    // Truncated, or without a checksum at all: named as such.
    std::ofstream(path, std::ios::binary) << original.substr(0, original.size() - 10);
    CHECK_THAT(run_cli("validate " + path).err, Catch::Contains("no checksum at its end"));
    std::ofstream(path, std::ios::binary) << original.substr(0, at - 1) << "}}\n";
    const CliResult none = run_cli("validate " + path);
    CHECK(none.exit_code == 2);
    CHECK_THAT(none.err, Catch::Contains(path + ": no checksum at its end"));
}

TEST_CASE("sweep spec: more runs than --max-runs are refused before expansion; a large one shows progress", "[sweep]") {
    // 400 x 300 = 120,000 runs: counted, not expanded, so refused at once.
    std::string seeds, loads;
    for (int i = 1; i <= 400; ++i) seeds += fmt::format("{}{}", i > 1 ? ", " : "", i);
    for (int i = 1; i <= 300; ++i) loads += fmt::format("{}{}", i > 1 ? ", " : "", i);
    const std::string big = write_temp(
        "big.json",
        fmt::format(R"({{"grid": {{"seed": [{}], "load_scale": [{}]}}, "runs": [{{"seed": 0}}]}})", seeds, loads));
    const auto t0 = std::chrono::steady_clock::now();
    const CliResult refused = run_cli("sweep " + big + " --out " + fresh_dir("big"));
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 10);
    CHECK(refused.exit_code == 2);
    CHECK(refused.err == "dlsim: error: " + big +
                             ": the spec expands to 120001 runs (grid: 400 seed x 300 load_scale + 1 explicit runs), "
                             "more than the cap of 100000 runs; give --max-runs N to allow more\n");
    CHECK(run_cli("sweep merge " + big + " --out " + fresh_dir("big")).exit_code == 2);
    // A product past 64 bits is counted without overflowing.
    std::string huge = R"({"grid": {)";
    for (int k = 0; k < 8; ++k) huge += fmt::format(R"({}"params.k{}": [{}])", k ? ", " : "", k, seeds);
    const CliResult overflow = run_cli("sweep " + write_temp("huge.json", huge + "}}") + " --out " + fresh_dir("huge"));
    CHECK(overflow.exit_code == 2);
    CHECK_THAT(overflow.err, Catch::Contains("expands to more than 1.8e19 runs"));

    // The cap is a flag; below it, a large expansion says so and shows its progress.
    const std::string spec = acceptance_spec("capped", 100);
    CHECK_THAT(run_cli("sweep " + spec + " --max-runs 23 --out " + fresh_dir("capped")).err,
               Catch::Contains("expands to 24 runs (grid: 2 policy x 4 load_scale x 3 seed)") &&
                   Catch::Contains("the cap of 23 runs"));
    CHECK_THAT(run_cli("sweep " + spec + " --max-runs 0 --out " + fresh_dir("capped")).err,
               Catch::Contains("--max-runs: expected an integer >= 1"));
    std::string many;
    for (int i = 1; i <= 10001; ++i) many += fmt::format("{}{}", i > 1 ? ", " : "", i);
    const std::string large = write_temp("large.json", fmt::format(R"({{"grid": {{"seed": [{}]}}}})", many));
    const CliResult expanded = run_cli("sweep merge " + large + " --out " + fresh_dir("large"));
    CHECK_THAT(expanded.err, Catch::StartsWith("dlsim: " + large + ": expanding 10001 runs\n"));
    CHECK_THAT(expanded.err, Catch::Contains("no such folder: nothing to merge"));  // it got past the expansion
}

}  // namespace dlsim::test::sweep_tests
