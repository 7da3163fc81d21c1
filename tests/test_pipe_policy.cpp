// The pipe protocol (`--policy exec:'COMMAND ARGS'`, sim/app/PIPE_PROTOCOL.md): a Python FIFO served by the
// reference client (scripts/dlsim_pipe_client.py) gives the native fifo's result byte for byte; every way
// a child can go wrong ends the run with exit 2, a message saying what happened, no result file and no
// child left behind; and the run id holds the command and the content of every file it names.
#include "models/base/input_error.hpp"
#include "sim/app/child_process.hpp"
#include "sim/app/run.hpp"
#include "sim/app/run_config.hpp"
#include "shared_data.hpp"
#include "test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include <sys/wait.h>
#include <unistd.h>

using namespace dlsim;
using namespace dlsim::test;

namespace {

const std::string kSource = DLSIM_SOURCE_DIR;
const std::string kClient = kSource + "/scripts/dlsim_pipe_client.py";
const std::string kFifo = kSource + "/tests/data/python/fifo.py";
const std::string kMisbehave = kSource + "/tests/data/pipe/misbehave.py";
const std::string kBoom = kSource + "/tests/data/python/boom.py";

/// The exec: form that serves a Python class through the reference client.
std::string python_policy(const std::string& file_and_class) {
    return "exec:/usr/bin/python3 " + kClient + " " + file_and_class;
}

/// A result file without the members that name the run (config, run_id) or time it (run).
nlohmann::json outcome_of(const std::string& path) {
    nlohmann::json doc = nlohmann::json::parse(slurp(path));
    for (const char* k : {"config", "run", "run_id"}) doc.erase(k);
    return doc;
}

/// Runs the CLI twice, with the native fifo and with the Python FIFO over the pipe, on `args`; both
/// results must be equal but for config, run_id and run.
void check_same_as_native_fifo(const std::string& args) {
    const std::string native = temp_path("native.json"), piped = temp_path("piped.json");
    const CliResult a = run_cli("run " + args + " --policy fifo --out " + native);
    REQUIRE(a.exit_code == 0);
    const CliResult b = run_cli("run " + args + " --policy '" + python_policy(kFifo + ":Fifo") + "' --out " + piped);
    INFO(b.err);
    REQUIRE(b.exit_code == 0);
    const nlohmann::json x = outcome_of(native), y = outcome_of(piped);
    CHECK(x["summary"] == y["summary"]);
    CHECK(x["jobs"] == y["jobs"]);
    CHECK(x["timeseries"] == y["timeseries"]);
    CHECK(x == y);
    CHECK(x["jobs"].size() > 0);
    std::filesystem::remove(native);
    std::filesystem::remove(piped);
}

/// True when this process has no child left, running or unreaped (a zombie).
bool no_children() {
    int status = 0;
    return ::waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD;
}

}  // namespace

TEST_CASE("pipe: the Python FIFO over the pipe gives the native fifo's result on the bundled trace", "[pipe]") {
    check_same_as_native_fifo("");
}

TEST_CASE("pipe: the Python FIFO over the pipe gives the native fifo's result on 10,000 re-sampled Philly jobs",
          "[pipe][shared-data]") {
    const std::string philly = std::string(DLSIM_SHARED_DATA) + "/traces/pollux/philly.csv";
    if (!shared_data_present(philly)) return;
    // 6 jobs/hour loads the bundled 108-GPU cluster so that jobs queue (mean wait about 60 h) without piling up.
    check_same_as_native_fifo("--trace " + philly + " --resample-rate 6 --resample-jobs 10000");
}

TEST_CASE("pipe: a child that goes wrong ends the run with exit 2, saying how, and writes no result", "[pipe]") {
    struct Case {
        const char* mode;
        std::string message;
    };
    const std::string owner = "dlsim: error: policy exec:/usr/bin/python3 " + kMisbehave + " ";
    const std::vector<Case> cases = {
        {"exit-3", "exit-3: call 2: the child exited with status 3 without answering"},
        {"abort", "abort: call 2: the child was killed by signal 6 (Aborted) without answering"},
        {"sleep", "sleep: call 2: the child did not answer within 0.5 s (parameter exec_timeout); it was killed"},
        {"garbage", "garbage: call 2: bad reply: not valid JSON at byte 1 (syntax error while parsing value - invalid "
                    "literal; last read: 'h'): 'hello, this is not JSON'"},
        {"unknown-action", "unknown-action: call 2: bad reply: action 0: unknown field \"launch\" (expected one of "
                           "start, preempt, migrate, resize, pack, with type, gpus, partner): "
                           "'{\"actions\": [{\"launch\": 0}], \"next_call\": null}'"},
        {"bad-field", "bad-field: call 2: bad reply: action 0: field \"gpus\": expected a non-negative integer, got a "
                      "string: '{\"actions\": [{\"start\": 1, \"type\": 0, \"gpus\": \"one\"}], \"next_call\": null}'"},
        // The engine refuses the decision; the run names the job (the bundled trace's first: id 0, line 2).
        {"start-twice", "start-twice: invalid decision: policy started job 0 which is not queued at 982012 us (job '0' "
                        "(index 0, " + kSource + "/traces/samples/gavel_mix_default.csv:2))"},
        {"past-call", "past-call: call 2: next_call 0 is not after now (982012 us)"},
        {"wrong-protocol", "wrong-protocol: handshake: expected {\"protocol\": \"dlsim.pipe/1\"}, got "
                           "'{\"protocol\": \"dlsim.pipe/0\"}'"},
        {"no-handshake", "no-handshake: handshake: the child exited with status 4 without answering"},
        // The engine's end-of-run audit blames the policy, named by the first job left (exit 2 for exec:).
        {"idle", "idle: end of run at 1241215660964 us with 1000 jobs neither finished nor rejected (e.g. job 0): the "
                 "policy left work queued with nothing left to happen (job '0' (index 0, " + kSource +
                     "/traces/samples/gavel_mix_default.csv:2))"},
    };
    const std::string out = temp_path("never.json");
    for (const Case& c : cases) {
        SECTION(c.mode) {
            std::filesystem::remove(out);
            const CliResult r = run_cli("run --param exec_timeout=0.5 --policy 'exec:/usr/bin/python3 " + kMisbehave +
                                        " " + c.mode + "' --out " + out);
            CHECK(r.exit_code == 2);
            CHECK(r.err == owner + c.message + "\n");
            CHECK_FALSE(std::filesystem::exists(out));
        }
    }
}

TEST_CASE("pipe: a command that cannot start, or cannot be split, is an input error", "[pipe]") {
    const CliResult r = run_cli("run --policy exec:no-such-command-dlsim-test");
    CHECK(r.exit_code == 2);
    CHECK(r.err == "dlsim: error: policy exec:no-such-command-dlsim-test: cannot start 'no-such-command-dlsim-test': "
                   "No such file or directory\n");
    const CliResult quote = run_cli("run --policy \"exec:python3 'x.py\"");
    CHECK(quote.exit_code == 2);
    CHECK(quote.err == "dlsim: error: policy exec:python3 'x.py: the command has an unterminated ' quote\n");
    const CliResult reserved = run_cli("run --policy exec:true --param exec_x=1");
    CHECK(reserved.exit_code == 2);
    CHECK(reserved.err == "dlsim: error: policy exec:true: parameter exec_x: names starting with exec_ are dlsim's own "
                          "(valid: exec_timeout)\n");
    const CliResult timeout = run_cli("run --policy exec:true --param exec_timeout=0");
    CHECK(timeout.exit_code == 2);
    CHECK(timeout.err == "dlsim: error: policy exec:true: parameter exec_timeout: expected seconds in (0, 1e6], got 0\n");
}

TEST_CASE("pipe: an exception in a Python policy names the policy file's line and the exception", "[pipe]") {
    const CliResult r = run_cli("run --policy '" + python_policy(kBoom + ":Boom") + "'");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("dlsim: error: policy " + python_policy(kBoom + ":Boom") +
                                      ": call 3: the policy reported an error: " + kBoom +
                                      ":20: ZeroDivisionError: division by zero\n"));
    CHECK_THAT(r.err, Catch::Contains("Traceback (most recent call last):"));  // the client's stderr passes through
    // Parameters reach the constructor as Python values (PYAPI.md); ParamsEcho raises with what it got.
    const CliResult p = run_cli("run --policy '" + python_policy(kBoom + ":ParamsEcho") +
                                "' --param a=1 --param b=2.5 --param c=true --param d=x --param e=-3e2");
    CHECK(p.exit_code == 2);
    CHECK_THAT(p.err, Catch::Contains(": handshake: the policy reported an error: " + kBoom +
                                      ":9: ValueError: [('a', 1), ('b', 2.5), ('c', True), ('d', 'x'), ('e', -300.0)]\n"));
}

TEST_CASE("pipe: the child is killed and reaped on failure (no zombie, no hang)", "[pipe]") {
    REQUIRE(no_children());
    RunConfig c = default_run_config();
    c.out.clear();
    const RunInputs in = load_inputs(c);
    for (const char* mode : {"sleep", "exit-3", "garbage"}) {
        c.policy = std::string("exec:/usr/bin/python3 ") + kMisbehave + " " + mode;
        c.params = {{"exec_timeout", "0.5"}};
        CHECK_THROWS_AS(simulate(in, c), InputError);
        CHECK(no_children());
    }
    // A run that succeeds closes the child's input; the client exits and is reaped.
    c.policy = python_policy(kFifo + ":Fifo");
    c.params.clear();
    CHECK(simulate(in, c).summary.finished == 1000);
    CHECK(no_children());
}

TEST_CASE("pipe: the run id holds the command and the content of every file it names", "[pipe]") {
    const InputHashes hashes{"T", "C", "P"};
    const std::string file = temp_path("policy.py");
    std::ofstream(file) << "# version 1\n";
    RunConfig c = default_run_config();
    c.policy = "exec:/usr/bin/python3 " + kClient + " " + file + ":Fifo";
    const std::string first = run_id(c, hashes);
    std::ofstream(file, std::ios::trunc) << "# version 2\n";
    const std::string second = run_id(c, hashes);
    CHECK(second != first);  // same command, other file content: another run
    std::ofstream(file, std::ios::trunc) << "# version 1\n";
    CHECK(run_id(c, hashes) == first);
    RunConfig other = c;
    other.policy += " ";  // another command string (one more blank): another run
    CHECK(run_id(other, hashes) != first);

    // The identity echoes each file argument's path and sha256 (`sha256sum` of "# version 1\n").
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,10\n");
    c.policy = "exec:/usr/bin/python3 " + kClient + " " + kFifo + ":Fifo";
    c.out.clear();
    const RunOutcome o = simulate(in, c);
    CHECK(o.jobs[0].finish == 10'000'000);
    const nlohmann::json params = nlohmann::json::parse(o.config_json)["params"];
    CHECK(params["exec_arg1"] == kClient);
    CHECK(params["exec_arg1_sha256"].get<std::string>().size() == 64);
    CHECK(params["exec_arg2"] == kFifo);  // FILE.py:CLASS names FILE.py
    CHECK(params["exec_timeout"] == 60.0);
    CHECK(params["exec_arg0"] == "/usr/bin/python3");  // the program, given as a path, is a file argument too
    c.policy = "exec:python3 " + kClient + " " + kFifo + ":Fifo";
    CHECK_FALSE(nlohmann::json::parse(simulate(in, c).config_json)["params"].contains("exec_arg0"));  // from PATH
    c.policy = "exec:/usr/bin/python3 " + kClient + " " + file + ":Fifo";
    std::ofstream(file, std::ios::trunc) << "# version 1\n";
    CHECK(run_id(c, hashes) == first);
    std::filesystem::remove(file);
}

TEST_CASE("pipe: commands split like a shell's plain words and quotes", "[pipe]") {
    using V = std::vector<std::string>;
    CHECK(split_command("python3  a.py\tb") == V{"python3", "a.py", "b"});
    CHECK(split_command("'a b' \"c \\\" d\" e\\ f g'h'") == V{"a b", "c \" d", "e f", "gh"});
    CHECK(split_command("\"a\\nb\" ''") == V{"a\\nb", ""});  // \n is not an escape inside "...": kept
    CHECK(split_command("  ").empty());
    CHECK_THROWS_WITH(split_command("a 'b"), "an unterminated ' quote");
    CHECK_THROWS_WITH(split_command("a \"b"), "an unterminated \" quote");
    CHECK_THROWS_WITH(split_command("a\\"), "a trailing backslash");
}
