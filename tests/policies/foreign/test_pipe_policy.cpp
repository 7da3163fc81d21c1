// The pipe protocol (`--policy exec:'COMMAND ARGS'`, policies/foreign/PIPE_PROTOCOL.md): a Python FIFO served by the
// reference client (policies/foreign/dlsim_pipe_client.py) gives the native fifo's result byte for byte; every way
// a child can go wrong ends the run with exit 2, a message saying what happened, no result file and no
// child left behind; and the run id holds the command and the content of every file it names.
#include "models/base/input_error.hpp"
#include "models/rate_model.hpp"
#include "policies/foreign/child_process.hpp"
#include "policies/foreign/pipe_policy.hpp"
#include "policies/type_choice.hpp"
#include "sim/app/run.hpp"
#include "sim/app/run_config.hpp"
#include "sim/job_spec.hpp"
#include "sim/simulator.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include <sys/wait.h>
#include <unistd.h>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::pipe_policy_tests {

namespace {

const std::string kSource = DLSIM_SOURCE_DIR;
const std::string kClient = kSource + "/policies/foreign/dlsim_pipe_client.py";
// The example policies in policies/foreign/examples/ run unchanged in-process (py:) and over the pipe (exec:).
const std::string kFifo = kSource + "/policies/foreign/examples/fifo.py";
const std::string kLas = kSource + "/policies/foreign/examples/las.py";
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

/// Runs the CLI twice on `args`, with the built-in policy `native` and with the Python class `file_and_class`
/// over the pipe; both results must be equal but for config, run_id and run. (Python versions of other
/// built-ins are checked the same way: check_same_as_native(args, "las", ".../las.py:Las").)
void check_same_as_native(const std::string& args, const std::string& native_policy,
                          const std::string& file_and_class) {
    const std::string native = temp_path("native.json"), piped = temp_path("piped.json");
    const CliResult a = run_cli("run " + args + " --policy " + native_policy + " --out " + native);
    REQUIRE(a.exit_code == 0);
    const CliResult b = run_cli("run " + args + " --policy '" + python_policy(file_and_class) + "' --out " + piped);
    INFO(b.err);
    REQUIRE(b.exit_code == 0);
    const nlohmann::json x = outcome_of(native), y = outcome_of(piped);
    CHECK(x["summary"] == y["summary"]);
    CHECK(x["jobs"] == y["jobs"]);
    CHECK(x["timeseries"] == y["timeseries"]);
    CHECK(x == y);
    CHECK(x["jobs"].size() > 0);
    // Byte for byte: the text from "summary" to the "run" member (the file's layout, run.cpp write_outputs).
    const std::string a_text = slurp(native), b_text = slurp(piped);
    const std::size_t a_from = a_text.find("\n\"summary\":"), a_to = a_text.find(",\n\"run\":");
    const std::size_t b_from = b_text.find("\n\"summary\":"), b_to = b_text.find(",\n\"run\":");
    REQUIRE(a_from != std::string::npos);
    REQUIRE(a_to != std::string::npos);
    CHECK(a_text.substr(a_from, a_to - a_from) == b_text.substr(b_from, b_to - b_from));
    std::filesystem::remove(native);
    std::filesystem::remove(piped);
}

/// The C++ twin of tests/data/python/las_lite.py (see there): ranks every arrived unfinished job by attained
/// GPU-time (or iterations left), keeps running ones while their type has room, starts queued ones on the
/// fastest type with room, preempts the rest; a timer every `quantum` while a job waits.
class LasLite final : public Policy {
public:
    LasLite(bool srpt, Time quantum) : srpt_(srpt), quantum_(quantum) {}
    void decide(const ClusterView& view, const Changes& changes, Decisions& out) override {
        active_.insert(changes.arrived.begin(), changes.arrived.end());
        for (JobIdx j : changes.finished) active_.erase(j);
        const Time now = view.now();
        std::vector<std::tuple<double, Time, JobIdx>> order;
        for (JobIdx j : active_) {
            const JobInfo& job = view.job(j);
            order.emplace_back(srpt_ ? job.remaining_at(now) : static_cast<double>(job.attained_at(now) * job.num_gpus),
                               job.submit, j);
        }
        std::sort(order.begin(), order.end());
        std::vector<int> capacity;
        for (GpuTypeIdx t = 0; t < view.cluster().gpu_types.size(); ++t)
            capacity.push_back(view.cluster().gpus_of_type(t));
        std::vector<JobIdx> preempt;
        std::vector<std::pair<JobIdx, GpuTypeIdx>> start;
        bool waiting = false;
        for (const auto& [first, submit, j] : order) {
            const JobInfo& job = view.job(j);
            if (job.state == JobState::Running) {
                if (capacity[job.gpu_type] >= job.alloc_gpus)
                    capacity[job.gpu_type] -= job.alloc_gpus;
                else
                    preempt.push_back(j);
                continue;
            }
            const auto t = pick_type(view, job, TypeOrder::Fastest, capacity);
            if (!t) {
                waiting = true;
                continue;
            }
            capacity[*t] -= job.num_gpus;
            start.emplace_back(j, *t);
        }
        for (JobIdx j : preempt) out.preempt(j);
        for (const auto& [j, t] : start) out.start(j, t, view.job(j).num_gpus);
        if (waiting || !preempt.empty()) out.next_call = now + quantum_;
    }

private:
    bool srpt_;
    Time quantum_;
    std::set<JobIdx> active_;
};

/// Runs `policy` on the inputs through the engine (the named placer, a 10 s restart cost).
std::vector<JobInfo> run_engine(const RunInputs& in, const RateModel& rates, const ResolvedJobs& jobs, Policy& policy,
                                const std::string& placement) {
    const auto& placer_entry = builtin_placers().find(placement);
    auto placer = placer_entry.make(resolve_params("placement " + placement, placer_entry.params, {}));
    Simulator sim(in.cluster, rates, jobs, policy, *placer, SimOptions{to_time(10), nullptr, nullptr});
    sim.run();
    return sim.take_jobs();
}

/// True when this process has no child left, running or unreaped (a zombie).
bool no_children() {
    int status = 0;
    return ::waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD;
}

}  // namespace

TEST_CASE("pipe: the Python FIFO over the pipe gives the native fifo's result on the bundled trace", "[pipe]") {
    check_same_as_native("", "fifo", kFifo + ":Fifo");
}

TEST_CASE("pipe: the Python FIFO over the pipe gives the native fifo's result when starts are declined", "[pipe]") {
    // Strict locality declines a gang that fits the free count but no node (about 3,000 calls with declined
    // starts on the bundled trace): the declined head goes back to its place and blocks the queue.
    check_same_as_native("--placement strict-locality", "fifo", kFifo + ":Fifo");
}

TEST_CASE("pipe: the Python FIFO over the pipe gives the native fifo's result with measured multi-GPU rates",
          "[pipe]") {
    // Gavel-compatible mode rates n GPUs by the profile's measured throughput_n: the handshake's rate table
    // carries those points, and the client's rate(m, t, n) must rank types as RateModel::rate does.
    check_same_as_native("--compat gavel", "fifo", kFifo + ":Fifo");
}

TEST_CASE("pipe: the Python FIFO over the pipe gives the native fifo's result on 10,000 re-sampled Philly jobs",
          "[pipe][shared-data]") {
    const std::string philly = std::string(DLSIM_SHARED_DATA) + "/traces/pollux/philly.csv";
    if (!shared_data_present(philly)) return;
    // 6 jobs/hour loads the bundled 108-GPU cluster so that jobs queue (mean wait about 60 h) without piling up.
    check_same_as_native("--trace " + philly + " --resample-rate 6 --resample-jobs 10000", "fifo", kFifo + ":Fifo");
}

TEST_CASE("pipe: the Python LAS over the pipe gives the native las's result on the bundled trace", "[pipe]") {
    check_same_as_native("", "las", kLas + ":Las");
}

TEST_CASE("pipe: the Python LAS over the pipe gives the native las's result on 10,000 re-sampled Philly jobs",
          "[pipe][shared-data]") {
    const std::string philly = std::string(DLSIM_SHARED_DATA) + "/traces/pollux/philly.csv";
    if (!shared_data_present(philly)) return;
    check_same_as_native("--trace " + philly + " --resample-rate 6 --resample-jobs 10000", "las", kLas + ":Las");
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
        {"sigterm", "sigterm: call 2: the child was killed by signal 15 (Terminated) without answering"},
        {"sigkill", "sigkill: call 2: the child was killed by signal 9 (Killed) without answering"},
        {"sleep", "sleep: call 2: the child did not answer within 2 s (parameter exec_timeout); it was killed"},
        {"garbage",
         "garbage: call 2: bad reply: not valid JSON at byte 1 (syntax error while parsing value - invalid "
         "literal; last read: 'h'): 'hello, this is not JSON'"},
        {"unknown-action",
         "unknown-action: call 2: bad reply: action 0: unknown field \"launch\" (expected one of "
         "start, preempt, migrate, resize, pack, wait, wait_rest, with type, gpus, partner, reason, behind, cause, "
         "by): "
         "'{\"actions\": [{\"launch\": 0}], \"next_call\": null}'"},
        {"bad-field",
         "bad-field: call 2: bad reply: action 0: field \"gpus\": expected a non-negative integer, got a "
         "string: '{\"actions\": [{\"start\": 1, \"type\": 0, \"gpus\": \"one\"}], \"next_call\": null}'"},
        {"twice", "twice: call 2: bad reply: member \"actions\" twice: '{\"actions\": [], \"actions\": []}'"},
        {"bad-reason",
         "bad-reason: call 2: bad reply: action 0: reason: unknown wait reason \"lunch\" (expected one of resources, "
         "fragmentation, priority, head_of_line, quota, share, placement_declined, reserved, policy_timer, "
         "elastic_min, policy): '{\"actions\": [{\"wait\": 1, \"reason\": \"lunch\"}], \"next_call\": null}'"},
        {"wait-running",
         "wait-running: invalid decision: policy gave a wait reason for job 0, which is neither queued nor started "
         "by this answer, or named a reason or a job that does not exist at 982012 us (job '0' (index 0, " +
             kSource + "/traces/samples/gavel_mix_default.csv:2))"},
        // The engine refuses the decision; the run names the job (the bundled trace's first: id 0, line 2).
        {"start-twice",
         "start-twice: invalid decision: policy started job 0 which is not queued at 982012 us (job '0' "
         "(index 0, " +
             kSource + "/traces/samples/gavel_mix_default.csv:2))"},
        // A timer at or before now: the engine's rule, as for every policy.
        {"past-call", "past-call: invalid decision: policy asked to be called at 0 us, not after now at 982012 us"},
        {"now-call", "now-call: invalid decision: policy asked to be called at 982012 us, not after now at 982012 us"},
        {"wrong-protocol",
         "wrong-protocol: handshake: expected {\"protocol\": \"dlsim.pipe/1\"}, got "
         "'{\"protocol\": \"dlsim.pipe/0\"}'"},
        {"no-handshake", "no-handshake: handshake: the child exited with status 4 without answering"},
        // The engine's end-of-run audit blames the policy, named by the first job left (exit 2 for exec:).
        {"idle",
         "idle: end of run at 1241215660964 us with 1000 jobs neither finished nor rejected (e.g. job 0): the "
         "policy left work queued with nothing left to happen (job '0' (index 0, " +
             kSource + "/traces/samples/gavel_mix_default.csv:2))"},
    };
    const std::string out = temp_path("never.json");
    for (const Case& c : cases) {
        SECTION(c.mode) {
            std::filesystem::remove(out);
            // Only the sleeper waits for the timeout (2 s: a loaded machine still starts Python well within it).
            const std::string timeout = std::string(c.mode) == "sleep" ? "--param exec_timeout=2 " : "";
            const CliResult r = run_cli("run " + timeout + "--policy 'exec:/usr/bin/python3 " + kMisbehave + " " +
                                        c.mode + "' --out " + out);
            CHECK(r.exit_code == 2);
            CHECK(r.err == owner + c.message + "\n");
            CHECK_FALSE(std::filesystem::exists(out));
        }
    }
}

TEST_CASE("pipe: a command that cannot start, or cannot be split, is an input error", "[pipe]") {
    const CliResult r = run_cli("run --policy exec:no-such-command-dlsim-test");
    CHECK(r.exit_code == 2);
    CHECK(r.err ==
          "dlsim: error: policy exec:no-such-command-dlsim-test: cannot start 'no-such-command-dlsim-test': "
          "No such file or directory\n");
    const CliResult quote = run_cli("run --policy \"exec:python3 'x.py\"");
    CHECK(quote.exit_code == 2);
    CHECK(quote.err == "dlsim: error: policy exec:python3 'x.py: the command has an unterminated ' quote\n");
    const CliResult reserved = run_cli("run --policy exec:true --param exec_x=1");
    CHECK(reserved.exit_code == 2);
    CHECK(reserved.err ==
          "dlsim: error: policy exec:true: parameter exec_x: names starting with exec_ are dlsim's own "
          "(valid: exec_timeout)\n");
    const CliResult timeout = run_cli("run --policy exec:true --param exec_timeout=0");
    CHECK(timeout.exit_code == 2);
    CHECK(timeout.err ==
          "dlsim: error: policy exec:true: parameter exec_timeout: expected seconds in (0, 1e6], got 0\n");
}

TEST_CASE("pipe: an exception in a Python policy names the policy file's line and the exception", "[pipe]") {
    const CliResult r = run_cli("run --policy '" + python_policy(kBoom + ":Boom") + "'");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("dlsim: error: policy " + python_policy(kBoom + ":Boom") +
                                      ": call 3: the policy reported an error: " + kBoom +
                                      ":20: ZeroDivisionError: division by zero\n"));
    CHECK_THAT(r.err, Catch::Contains("Traceback (most recent call last):"));  // the client's stderr passes through
    // Parameters reach the constructor as Python values (policies/foreign/PYTHON_API.md); ParamsEcho raises with what
    // it got.
    const CliResult p = run_cli("run --policy '" + python_policy(kBoom + ":ParamsEcho") +
                                "' --param a=1 --param b=2.5 --param c=true --param d=x --param e=-3e2");
    CHECK(p.exit_code == 2);
    CHECK_THAT(p.err, Catch::Contains(": handshake: the policy reported an error: " + kBoom +
                                      ":9: ValueError: [('a', 1), ('b', 2.5), ('c', True), ('d', 'x'), "
                                      "('e', -300.0)]\n"));
}

TEST_CASE("pipe: the child is killed and reaped on failure (no zombie, no hang)", "[pipe]") {
    REQUIRE(no_children());
    RunConfig c = default_run_config();
    c.out.clear();
    const RunInputs in = load_inputs(c);
    for (const char* mode : {"sleep", "exit-3", "garbage"}) {
        c.policy = std::string("exec:/usr/bin/python3 ") + kMisbehave + " " + mode;
        c.params = {{"exec_timeout", "2"}};
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

TEST_CASE("pipe: a preemptive Python policy over the pipe sees the view as a C++ policy does", "[pipe]") {
    // The bundled trace's first 300 jobs on its 3-type cluster: LasLite preempts at every quantum, so the
    // mirror must follow starts, preemptions (with a 10 s restart charge), declines and finishes; its
    // Python side also checks the mirror's consistency at every call (an error would end the run).
    const RunConfig config = default_run_config();
    RunInputs in = load_inputs(config);
    in.trace.jobs.resize(300);
    const RateModel rates(in.cluster, in.profiles);
    const ResolvedJobs jobs = resolve_jobs(in.trace, in.cluster, in.profiles, rates, false);
    const MakeContext context{0, &in.cluster, &jobs.tenants, &in.profiles, &rates, jobs.jobs.size()};
    struct Case {
        const char* order;
        const char* placement;
    };
    for (const Case c : {Case{"las", "consolidated"}, Case{"srpt", "consolidated"}, Case{"las", "strict-locality"}}) {
        const std::string order = c.order;
        SECTION(order + " " + c.placement) {
            LasLite native(order == "srpt", to_time(1800));
            const std::vector<JobInfo> a = run_engine(in, rates, jobs, native, c.placement);
            const std::map<std::string, std::string> raw = {{"order", order}, {"quantum", "1800"}};
            const std::string name = python_policy(kSource + "/tests/data/python/las_lite.py:LasLite");
            const auto entry = pipe_policy_entry(name, name.substr(5), raw, "");
            auto piped = entry.make(resolve_params("policy " + name, entry.params, raw), context);
            const std::vector<JobInfo> b = run_engine(in, rates, jobs, *piped, c.placement);
            REQUIRE(a.size() == b.size());
            std::uint64_t preemptions = 0;
            for (std::size_t j = 0; j < a.size(); ++j) {
                INFO("job " << j);
                CHECK(a[j].first_start == b[j].first_start);
                CHECK(a[j].finish == b[j].finish);
                CHECK(a[j].preemptions == b[j].preemptions);
                CHECK(a[j].attained == b[j].attained);
                CHECK(a[j].restarts == b[j].restarts);
                preemptions += a[j].preemptions;
            }
            CHECK(preemptions > 50);  // the mirror was tested on many preemptions (119, 73 and 375)
        }
    }
}

TEST_CASE("pipe: a sweep runs exec: policies in parallel, reads their files from the spec's folder, and resumes",
          "[pipe]") {
    // The spec's folder holds the policy file, which the spec names relatively (read from the spec's folder,
    // as File parameters are). Two policies x two loads, two runs at a time.
    const std::string dir = temp_path("pipe-sweep");
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(kFifo, dir + "/my_fifo.py");
    const std::string exec = "exec:/usr/bin/python3 " + kClient + " my_fifo.py:Fifo";
    std::ofstream(dir + "/spec.json") << R"({"name": "pipe",
      "base": {"trace": ")" + kSource + R"(/traces/samples/gavel_mix_default.csv", "resample_rate": 3,
               "resample_jobs": 300},
      "grid": {"policy": ["fifo", ")" + exec +
                                             R"("], "load_scale": [1, 1.5]}})";
    const std::string out = dir + "/out";
    const CliResult first = run_cli("sweep " + dir + "/spec.json --out " + out + " --jobs 2");
    INFO(first.err);
    REQUIRE(first.exit_code == 0);
    const nlohmann::json index = nlohmann::json::parse(slurp(out + "/index.json"));
    REQUIRE(index["runs"].size() == 4);
    for (int load = 0; load < 2; ++load) {
        const nlohmann::json& native = index["runs"][load];
        const nlohmann::json& piped = index["runs"][2 + load];
        CHECK(piped["parameters"]["policy"] == exec);
        CHECK(native["summary"] == piped["summary"]);
        const nlohmann::json result = nlohmann::json::parse(slurp(out + "/" + piped["result"].get<std::string>()));
        CHECK(result["config"]["params"]["exec_arg2"] == "my_fifo.py");
        CHECK(result["config"]["params"]["exec_arg2_sha256"].get<std::string>().size() == 64);
    }
    CHECK(index["runs"][0]["summary"] != index["runs"][1]["summary"]);  // the loads differ

    const CliResult again = run_cli("sweep " + dir + "/spec.json --out " + out + " --jobs 2");
    CHECK(again.exit_code == 0);
    CHECK_THAT(again.err, Catch::Contains("4 runs, 4 already done"));
    // An edited policy file is another run: the two exec: runs run again, the fifo ones are kept.
    std::ofstream(dir + "/my_fifo.py", std::ios::app) << "# edited\n";
    const CliResult edited = run_cli("sweep " + dir + "/spec.json --out " + out + " --jobs 2");
    CHECK(edited.exit_code == 0);
    CHECK_THAT(edited.err, Catch::Contains("4 runs, 2 already done"));
    std::filesystem::remove_all(dir);
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

}  // namespace dlsim::test::pipe_policy_tests
