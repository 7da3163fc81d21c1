// Python policies (`--policy py:FILE.py:CLASS`, sim/python/): the examples in policies/foreign/examples/ make the
// native policies' schedules byte for byte, sweeps over Python policies resume and re-run when the file
// changes, and every way a Python policy can fail is exit 2 with a message naming the file and line.
// (The `dlsim` module itself is tested by tests/sim/python/test_module.py.)
#include "models/base/json_fields.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::python_policy_tests {

using Json = nlohmann::ordered_json;

namespace {

const std::string kSource = DLSIM_SOURCE_DIR;
const std::string kFifo = "py:" + kSource + "/policies/foreign/examples/fifo.py:Fifo";
const std::string kLas = "py:" + kSource + "/policies/foreign/examples/las.py:Las";

/// A result file's text without the members that name the run rather than its schedule: run_id, config
/// (the policy) and run (wall time). Each is one line of the file.
std::string schedule_of(const std::string& path) {
    std::istringstream in(slurp(path));
    std::string out, line;
    while (std::getline(in, line))
        if (!line.starts_with("\"run_id\":") && !line.starts_with("\"config\":") && !line.starts_with("\"run\":"))
            out += line + "\n";
    return out;
}

/// Runs `dlsim run ARGS --policy POLICY` into a temporary result; returns the result's path.
std::string run_to(const std::string& name, const std::string& policy, const std::string& args) {
    const std::string out = temp_path(name + ".json");
    const CliResult r = run_cli("run " + args + " --policy " + policy + " --out " + out);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return out;
}

void check_same_schedule(const std::string& args, const std::string& native, const std::string& python,
                         const std::string& name) {
    const std::string a = run_to(name + "-native", native, args), b = run_to(name + "-python", python, args);
    const std::string expected = schedule_of(a);
    REQUIRE(expected.size() > 1000);  // summary, job records and time series are all there
    CHECK(expected.find("\"jobs\":[\n{") != std::string::npos);
    CHECK(schedule_of(b) == expected);
    // The echoed config names the Python policy and its file's hash.
    const Json config = json_fields::parse_file(b)["config"];
    CHECK(config["policy"] == python);
    CHECK(config["params"]["source_sha256"].get<std::string>().size() == 64);
}

}  // namespace

TEST_CASE("python: fifo.py makes fifo's schedule byte for byte on the bundled trace", "[python]") {
    check_same_schedule("", "fifo", kFifo, "bundled-fifo");
}

// [slow]: las.py's run takes 30 s under the sanitizers (0.9 s for fifo.py's), so it runs in the release build's
// statistical group only, as does its 10,000-job twin below.
TEST_CASE("python: las.py makes las's schedule byte for byte on the bundled trace", "[python][slow]") {
    check_same_schedule("", "las", kLas, "bundled-las");
}

TEST_CASE("python: fifo.py and las.py match fifo and las on 10,000 re-sampled Philly jobs", "[python][shared-data]") {
    const std::string philly = std::string(DLSIM_SHARED_DATA) + "/traces/pollux/philly.csv";
    if (!shared_data_present(philly)) return;
    const std::string args = fmt::format(
        "--trace {} --cluster {}/models/clusters/tiresias_blox_32x4.json --profiles {}/models/profiles/gavel.json "
        "--resample-rate 6 --resample-jobs 10000 --seed 1",
        philly, kSource, kSource);
    check_same_schedule(args, "fifo", kFifo, "philly-fifo");
    check_same_schedule(args, "las", kLas, "philly-las");
}

TEST_CASE("python: a sweep of two Python policies x two loads runs, resumes, and re-runs when a file changes",
          "[python]") {
    // The spec names the policy files relative to its own folder.
    const std::string dir = temp_path("py-sweep");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(kSource + "/policies/foreign/examples/fifo.py", dir + "/fifo.py");
    std::filesystem::copy_file(kSource + "/policies/foreign/examples/las.py", dir + "/las.py");
    std::ofstream(dir + "/spec.json") << fmt::format(R"({{"name": "py",
  "base": {{"trace": "{}/traces/samples/gavel_mix_default.csv", "resample_rate": 3, "resample_jobs": 300, "seed": 1}},
  "grid": {{"policy": ["py:fifo.py:Fifo", "py:las.py:Las"], "load_scale": [1, 2]}}}})",
                                                     kSource);
    const std::string out = dir + "/out";
    const CliResult first = run_cli("sweep " + dir + "/spec.json --out " + out + " --jobs 2");
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    const Json index = json_fields::parse_file(out + "/index.json");
    REQUIRE(index["runs"].size() == 4);
    std::vector<std::string> ids;
    for (std::size_t i = 0; i < 4; ++i) {
        const Json& row = index["runs"][i];
        CHECK(row["status"] == "done");
        CHECK(row["parameters"]["policy"] == (i < 2 ? "py:fifo.py:Fifo" : "py:las.py:Las"));
        CHECK(row["summary"]["finished"] == 300);
        const Json result = json_fields::parse_file(out + "/" + row["result"].get<std::string>());
        CHECK(result["config"]["params"]["source"] == (i < 2 ? "fifo.py" : "las.py"));
        ids.push_back(row["run_id"]);
    }
    // Each Python run equals the native policy's run of the same point.
    const Json native_fifo = json_fields::parse_file(
        run_to("py-sweep-native", "fifo",
               fmt::format("--trace {}/traces/samples/gavel_mix_default.csv --resample-rate 3 --resample-jobs 300 "
                           "--seed 1 --load-scale 2",
                           kSource)));
    CHECK(index["runs"][1]["summary"] == native_fifo["summary"]);
    CHECK(index["runs"][1]["summary"]["avg_jct"] != index["runs"][3]["summary"]["avg_jct"]);

    const CliResult again = run_cli("sweep " + dir + "/spec.json --out " + out);
    CHECK(again.exit_code == 0);
    CHECK_THAT(again.err, Catch::Contains("4 already done, nothing to run"));

    // An edited policy file is another policy: its runs have new ids and run again; the others resume.
    std::ofstream(dir + "/fifo.py", std::ios::app) << "\n# edited\n";
    const CliResult edited = run_cli("sweep " + dir + "/spec.json --out " + out);
    INFO(edited.err);
    CHECK(edited.exit_code == 0);
    CHECK_THAT(edited.err, Catch::Contains("2 already done, 2 to run"));
    const Json after = json_fields::parse_file(out + "/index.json");
    CHECK(after["runs"][0]["run_id"] != ids[0]);
    CHECK(after["runs"][1]["run_id"] != ids[1]);
    CHECK(after["runs"][2]["run_id"] == ids[2]);
    CHECK(after["runs"][3]["run_id"] == ids[3]);
    CHECK(after["runs"][1]["summary"] == index["runs"][1]["summary"]);  // a comment changes no decision
}

TEST_CASE("python: parameters reach the constructor as int, float, bool or str", "[python]") {
    const std::string file = write_temp("params_policy.py", R"(import dlsim
class P(dlsim.Policy):
    def __init__(self, **params):
        super().__init__()
        got = {k: (type(v).__name__, v) for k, v in sorted(params.items())}
        raise ValueError(repr(got))
    def decide(self, view, changes, decisions):
        pass
)");
    const CliResult r = run_cli("run --out '' --policy py:" + file +
                                ":P --param a=3 --param b=-2.5e3 --param c=true "
                                "--param d=fifo --param e=007 --param f=1e400");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("params_policy.py:6: ValueError: {'a': ('int', 3), 'b': ('float', -2500.0), "
                                      "'c': ('bool', True), 'd': ('str', 'fifo'), 'e': ('int', 7), 'f': ('str', "
                                      "'1e400')}"));
}

TEST_CASE("python: each failure of a Python policy is exit 2 naming the file, line and exception", "[python]") {
    auto run_file = [](const std::string& name, const std::string& text, const std::string& cls) {
        const std::string file = write_temp(name, text);
        return std::make_pair(run_cli("run --out '' --policy py:" + file + ":" + cls), file);
    };
    SECTION("an exception in decide") {
        const auto [r, file] = run_file("raises_in_decide.py", R"(import dlsim

def divide(a, b):
    return a / b

class Broken(dlsim.Policy):
    def decide(self, view, changes, decisions):
        if view.now > 0:
            divide(1, 0)
)",
                                        "Broken");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("dlsim: error: policy py:" + file + ":Broken: " + file +
                                          ":4: ZeroDivisionError: division by zero"));
    }
    SECTION("an exception in the constructor") {
        const auto [r, file] = run_file("raises_in_init.py", R"(import dlsim
class Broken(dlsim.Policy):
    def __init__(self):
        super().__init__()
        self.table = {}["missing"]
    def decide(self, view, changes, decisions):
        pass
)",
                                        "Broken");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(file + ":5: KeyError: 'missing'"));
    }
    SECTION("a syntax error") {
        const auto [r, file] =
            run_file("syntax_error.py", "import dlsim\nclass Broken(dlsim.Policy)\n    pass\n", "Broken");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(file + ":2: SyntaxError: expected ':'"));
    }
    SECTION("an error while importing the file") {
        const auto [r, file] = run_file("bad_import.py", "import dlsim\nimport no_such_module_here\n", "Broken");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(file + ":2: ModuleNotFoundError: No module named 'no_such_module_here'"));
    }
    SECTION("no such class") {
        const auto [r, file] = run_file("no_class.py", "import dlsim\nclass Other(dlsim.Policy):\n    pass\n", "Fifo");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(file + " defines no class Fifo"));
    }
    SECTION("a class that is not a dlsim.Policy") {
        const auto [r, file] = run_file("not_policy.py", "class Fifo:\n    pass\n", "Fifo");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains(file + ": Fifo is not a subclass of dlsim.Policy"));
    }
    SECTION("a constructor that does not call dlsim.Policy's") {
        const auto [r, file] = run_file("no_super.py", R"(import dlsim
class Fifo(dlsim.Policy):
    def __init__(self):
        self.queue = []
)",
                                        "Fifo");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err,
                   Catch::Contains(
                       file + ":Fifo: TypeError: dlsim.Policy.__init__() must be called when overriding __init__"));
    }
    SECTION("a missing file") {
        const CliResult r = run_cli("run --out '' --policy py:/no/such/policy.py:Fifo");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("policy py:/no/such/policy.py:Fifo: parameter source"));
        CHECK_THAT(r.err, Catch::Contains("/no/such/policy.py"));
    }
    SECTION("a malformed py: form") {
        for (const char* form : {"py:fifo.py", "py::Fifo", "py:fifo.py:1x"}) {
            const CliResult r = run_cli(std::string("run --out '' --policy ") + form);
            CHECK(r.exit_code == 2);
            CHECK_THAT(r.err, Catch::Contains(std::string("policy ") + form + ": expected py:FILE.py:CLASS"));
        }
    }
    SECTION("a parameter named source") {
        const CliResult r = run_cli("run --out '' --policy " + kFifo + " --param source=x.py");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("parameter source is the policy's file"));
    }
    SECTION("a parameter the class does not take") {
        const CliResult r = run_cli("run --out '' --policy " + kFifo + " --param depth=3");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("TypeError: Fifo.__init__() got an unexpected keyword argument 'depth'"));
    }
    SECTION("a job index the run does not have") {
        const auto [r, file] = run_file("bad_index.py", R"(import dlsim
class P(dlsim.Policy):
    def decide(self, view, changes, decisions):
        view.job(view.num_jobs)
)",
                                        "P");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err,
                   Catch::Contains(file + ":4: IndexError: dlsim: job 1000 does not exist (the run has 1000 jobs)"));
    }
    SECTION("an invalid decision: a job started twice") {
        const auto [r, file] = run_file("start_twice.py", R"(import dlsim
class P(dlsim.Policy):
    def decide(self, view, changes, decisions):
        for j in changes.arrived:
            job = view.job(j)
            decisions.start(j, job.runnable[0], job.num_gpus)
            decisions.start(j, job.runnable[0], job.num_gpus)
)",
                                        "P");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("policy py:" + file + ":P: "));
        CHECK_THAT(r.err, Catch::Contains("(index 0, " + kSource + "/traces/samples/gavel_mix_default.csv:2)"));
    }
}

}  // namespace dlsim::test::python_policy_tests

namespace dlsim::test::python_policy_tests {

// Each way a Python policy can end or stall dlsim's process in-process (tests/data/python/escape.py, at its
// second call, 982012 us into the bundled trace): exit 2 naming the policy, its line and what it did, and no
// result file. The time limit is short (py_timeout=0.3 s); the stubborn loop also waits out the 1 s grace.
TEST_CASE("python: a policy that exits, kills its process or never returns is exit 2 and writes no result",
          "[python]") {
    struct Case {
        const char* how;
        std::string message;
    };
    const std::string file = kSource + "/tests/data/python/escape.py";
    const std::string owner = "dlsim: error: policy py:" + file + ":Escape: ";
    const std::string stops = "; a policy returns its decisions, and the run stops without a result\n";
    const std::vector<Case> cases = {
        {"sys_exit",
         file + ":23: tried to end dlsim's process: it raised SystemExit(0) (sys.exit, exit or quit)" + stops},
        {"os_exit", file + ":25: tried to end dlsim's process: it called os._exit(0)" + stops},
        {"abort", file + ":27: tried to end dlsim's process: it called os.abort()" + stops},
        {"raise_signal",
         file + ":31: tried to end dlsim's process: it called signal.raise_signal(<Signals.SIGTERM: 15>)" + stops},
        {"sleep", file + ":36: call 2 (at 982012 us) did not return within 0.3 s (parameter py_timeout); it was "
                         "interrupted\n"},
        {"stubborn",
         "call 2 (at 982012 us) did not return within 0.3 s (parameter py_timeout), nor 1 s after it was "
         "interrupted (blocked outside Python, or catching the interruption); dlsim stops without a result\n"},
        {"timer_now", "invalid decision: policy asked to be called at 982012 us, not after now at 982012 us\n"},
    };
    const std::string out = temp_path("escape.json");
    for (const Case& c : cases) {
        SECTION(c.how) {
            std::filesystem::remove(out);
            const CliResult r =
                run_cli(fmt::format("run --policy py:{}:Escape --param how={} --param py_timeout=0.3 "
                                    "--out {}",
                                    file, c.how, out));
            CHECK(r.exit_code == 2);
            CHECK(r.err == owner + c.message);
            CHECK_FALSE(std::filesystem::exists(out));
        }
    }
    SECTION("loop") {  // interrupted at the loop's test or its body
        std::filesystem::remove(out);
        const CliResult r = run_cli(
            fmt::format("run --policy py:{}:Escape --param how=loop --param py_timeout=0.3 --out {}", file, out));
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::StartsWith(owner + file + ":3"));
        CHECK_THAT(r.err, Catch::EndsWith(": call 2 (at 982012 us) did not return within 0.3 s (parameter "
                                          "py_timeout); it was interrupted\n"));
        CHECK_FALSE(std::filesystem::exists(out));
    }
    SECTION("sigterm") {  // the pid differs from run to run
        std::filesystem::remove(out);
        const CliResult r = run_cli(fmt::format("run --policy py:{}:Escape --param how=sigterm --out {}", file, out));
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::StartsWith(owner + file + ":29: tried to end dlsim's process: it called os.kill("));
        CHECK_THAT(r.err, Catch::EndsWith(", <Signals.SIGTERM: 15>) on dlsim's own process" + stops));
        CHECK_FALSE(std::filesystem::exists(out));
    }
}

TEST_CASE("python: py_timeout is dlsim's own parameter, checked, and not passed to the class", "[python]") {
    SECTION("another name starting with py_") {
        const CliResult r = run_cli("run --out '' --policy " + kFifo + " --param py_limit=3");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("policy " + kFifo +
                                          ": parameter py_limit: names starting with py_ are dlsim's own (valid: "
                                          "py_timeout)"));
    }
    SECTION("a time limit out of range") {
        const CliResult r = run_cli("run --out '' --policy " + kFifo + " --param py_timeout=0");
        CHECK(r.exit_code == 2);
        CHECK_THAT(r.err, Catch::Contains("py_timeout"));
    }
    SECTION("a generous limit changes nothing: fifo.py still takes no parameters and runs") {
        const std::string out = temp_path("fifo-timeout.json");
        const CliResult r = run_cli("run --max-jobs 50 --policy " + kFifo + " --param py_timeout=30 --out " + out);
        INFO(r.err);
        CHECK(r.exit_code == 0);
        CHECK(json_fields::parse_file(out)["config"]["params"]["py_timeout"] == 30.0);
    }
}

}  // namespace dlsim::test::python_policy_tests

namespace dlsim::test::python_policy_tests {

// A sweep of 4 runs in which 3 Python policies misbehave (at their second call): the well-behaved run
// finishes and writes its result, each other run is recorded as failed with what its policy did, and the
// sweep exits non-zero.
TEST_CASE("python: a sweep in which some runs' policies exit or hang finishes the others", "[python]") {
    const std::string dir = temp_path("py-escape-sweep");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(kSource + "/tests/data/python/escape.py", dir + "/escape.py");
    std::ofstream(dir + "/spec.json") << fmt::format(R"({{"name": "escape",
  "base": {{"trace": "{}/traces/samples/gavel_mix_default.csv", "max_jobs": 50, "policy": "py:escape.py:Escape"}},
  "grid": {{"params": [{{"how": "none"}}, {{"how": "os_exit"}}, {{"how": "sleep", "py_timeout": 0.3}},
                      {{"how": "sys_exit"}}]}}}})",
                                                     kSource);
    const std::string out = dir + "/out";
    const CliResult r = run_cli("sweep " + dir + "/spec.json --out " + out + " --jobs 2");
    INFO(r.err);
    CHECK(r.exit_code != 0);
    const Json index = json_fields::parse_file(out + "/index.json");
    REQUIRE(index["runs"].size() == 4);
    const std::map<std::string, std::string> said = {
        {"os_exit", "tried to end dlsim's process: it called os._exit(0)"},
        {"sleep", "call 2 (at 982012 us) did not return within 0.3 s (parameter py_timeout)"},
        {"sys_exit", "tried to end dlsim's process: it raised SystemExit(0)"}};
    for (const Json& run : index["runs"]) {
        const std::string how = run["parameters"]["params.how"];
        INFO(how);
        const std::string result = out + "/runs/" + run["run_id"].get<std::string>() + ".json";
        if (how == "none") {
            CHECK(run["status"] == "done");
            CHECK(json_fields::parse_file(result)["summary"]["finished"] == 50);
        } else {
            CHECK(run["status"] == "failed");
            CHECK_THAT(run["error"].get<std::string>(), Catch::Contains("policy py:escape.py:Escape: "));
            CHECK_THAT(run["error"].get<std::string>(), Catch::Contains(said.at(how)));
            CHECK_FALSE(std::filesystem::exists(result));
        }
    }
}

}  // namespace dlsim::test::python_policy_tests
