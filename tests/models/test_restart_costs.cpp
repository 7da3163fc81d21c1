// Restart costs (models/README.md; a restarting job holds its GPUs and makes no progress, as in Pollux's
// simulator, Qiao et al., OSDI 2021), worked by hand: the checkpoint model's per-model charge
// from the profile's `params`, Helios's table by GPU count, a separate migration cost for moves, and the
// lost GPU-seconds counted per job and in the summary, a restart cut short by a preemption counting only
// the part spent. Profile: tests/data/profiles/restart_params.json (big 1e9 params, small 2.5e8, noparams
// none; 1 iteration/s per GPU on type g, so a job's work is its duration x its GPUs).
#include "models/base/json_fields.hpp"
#include "sim/app/run.hpp"
#include "sim/metrics.hpp"
#include "tests/support/engine_support.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::restart_costs_tests {

namespace {

std::string profile_text() {
    std::ifstream f(std::string(DLSIM_TEST_DATA) + "/profiles/restart_params.json");
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

/// A trace with models on `nodes` x `gpus` GPUs of type g, resolved, run under a script and a restart model.
struct RestartRun {
    RunInputs in;
    RateModel rates;
    ResolvedJobs jobs;
    ConsolidatedPlacer placer;
    RestartRun(int nodes, int gpus, const std::string& trace)
        : in(inputs_from_text(homogeneous_cluster_json(nodes, gpus), profile_text(), trace)),
          rates(in.cluster, in.profiles),
          jobs(resolve_jobs(in.trace, in.cluster, in.profiles, rates, false)) {}

    std::vector<JobInfo> run(const RestartSpec& spec, ScriptedPolicy::Script script, Summary* summary = nullptr) {
        ScriptedPolicy policy(std::move(script));
        const auto model = make_restart_model(spec, in.profiles);
        SimOptions options;
        options.restart = model.get();
        Simulator sim(in.cluster, rates, jobs, policy, placer, options);
        Metrics metrics(in.cluster, jobs.jobs.size(), 0, 16);
        sim.add_observer(metrics);
        const SimStats st = sim.run();
        if (summary) *summary = metrics.summarize(sim.jobs(), st.events);
        return sim.jobs();
    }
};

// A (big, 2 GPUs, 100 s) and C (noparams, 1 GPU, 50 s) start at 0; B (small, 4 GPUs, 20 s) arrives at 10
// and takes all four GPUs; A and C go back at 30, A is preempted again at 40 in the middle of its restart
// and restarts at 50.
const char* kPreemptTrace =
    "job_id,submit_time,num_gpus,duration,model\nA,0,2,100,big\nB,10,4,20,small\nC,0,1,50,noparams\n";

void preempt_script(const ClusterView& v, const Changes&, Decisions& out) {
    const Time now = v.now();
    if (now == s(0)) {
        out.start(0, 0, 2);
        out.start(2, 0, 1);
    } else if (now == s(10)) {
        out.preempt(0);
        out.preempt(2);
        out.start(1, 0, 4);
    } else if (now == s(30)) {
        out.start(0, 0, 2);
        out.start(2, 0, 1);
        out.next_call = s(40);
    } else if (now == s(40)) {
        out.preempt(0);
        out.next_call = s(50);
    } else if (now == s(50)) {
        out.start(0, 0, 2);
    }
}

}  // namespace

TEST_CASE("restart costs: checkpoint sizes per model, a restart cut short, lost GPU-seconds", "[engine]") {
    RestartRun r(1, 4, kPreemptTrace);
    RestartSpec spec;
    spec.kind = RestartSpec::Kind::Checkpoint;
    spec.restart_cost = 3;  // the fixed part; defaults: 12 B/param, 2 GB/s
    Summary sum;
    const auto jobs = r.run(spec, preempt_script, &sum);
    const JobInfo &a = jobs[0], &b = jobs[1], &c = jobs[2];
    // A: a restart costs 3 + 2 x 1e9 x 12 B / 2e9 B/s = 3 + 12 = 15 s. By 10 it did 20 of its 200
    // iterations. The restart at 30 would end at 45, but A loses its GPUs at 40 (10 s spent); the one at
    // 50 ends at 65, then 180 iterations at 2/s: 155.
    CHECK(a.finish == s(155));
    CHECK(a.preemptions == 2);
    CHECK(a.restarts == 2);
    CHECK(a.restart_time == s(10 + 15));
    CHECK(a.restart_gpu_seconds == 2 * 25.0);
    // B: a first start costs nothing: 80 iterations at 4/s from 10.
    CHECK(b.finish == s(30));
    CHECK(b.restarts == 0);
    CHECK(b.restart_time == 0);
    // C: no params, the fixed 3 s only: restarts at 30, runs from 33, 40 iterations left: 73.
    CHECK(c.finish == s(73));
    CHECK(c.restarts == 1);
    CHECK(c.restart_time == s(3));
    CHECK(c.restart_gpu_seconds == 3.0);
    CHECK(sum.restarts == 3);
    CHECK(sum.restart_gpu_seconds == 20.0 + 30.0 + 3.0);
    CHECK(sum.preemptions == 3);
}

TEST_CASE("restart costs: Helios's table (7 s on 1 GPU, 30 s up to 8, 60 s above)", "[engine]") {
    RestartRun r(1, 4, kPreemptTrace);
    RestartSpec spec;
    spec.kind = RestartSpec::Kind::Helios;
    spec.restart_cost = 1000;  // ignored by helios
    Summary sum;
    const auto jobs = r.run(spec, preempt_script, &sum);
    // A (2 GPUs): 30 s; restart at 30 cut at 40 (10 s), again at 50 until 80, then 90 s: 170.
    CHECK(jobs[0].finish == s(170));
    CHECK(jobs[0].restart_time == s(40));
    CHECK(jobs[1].finish == s(30));
    // C (1 GPU): 7 s, from 37 for 40 s: 77.
    CHECK(jobs[2].finish == s(77));
    CHECK(jobs[2].restart_time == s(7));
    CHECK(sum.restarts == 3);
    CHECK(sum.restart_gpu_seconds == 2 * 40.0 + 7.0);

    // Above 8 GPUs (asked of the model directly: this cluster has 4).
    const HeliosRestart helios;
    Allocation nine, eight, one;
    nine.shares = {{0, 9, kWholeGpu}};
    eight.shares = {{0, 8, kWholeGpu}};
    one.shares = {{0, 1, kWholeGpu}};
    CHECK(helios.cost({0, 0, nullptr, nine, true}) == s(60));
    CHECK(helios.cost({0, 0, nullptr, eight, true}) == s(30));
    CHECK(helios.cost({0, 0, nullptr, one, true}) == s(7));
    CHECK(helios.cost({0, 0, nullptr, nine, false}) == 0);  // a first start
    CHECK(helios.cost({0, 0, &nine, nine, true}) == 0);     // the same GPUs
}

TEST_CASE("restart costs: a move pays migration_cost instead of a restart", "[engine]") {
    // Three nodes of 2 GPUs. A (big, 2 GPUs, 100 s) on node 0 and D (small, 1 GPU, 20 s) on node 1 from 0;
    // at 10 A migrates to node 2, and D is preempted and started on node 0 at the same instant (a move too).
    RestartRun r(3, 2, "job_id,submit_time,num_gpus,duration,model\nA,0,2,100,big\nD,0,1,20,small\n");
    auto script = [](const ClusterView& v, const Changes&, Decisions& out) {
        if (v.now() == s(0)) {
            const NodeShare a[] = {{0, 2, kWholeGpu}}, d[] = {{1, 1, kWholeGpu}};
            out.start(0, 0, 2, a);
            out.start(1, 0, 1, d);
            out.next_call = s(10);
        } else if (v.now() == s(10)) {
            const NodeShare a[] = {{2, 2, kWholeGpu}}, d[] = {{0, 1, kWholeGpu}};
            out.migrate(0, 0, a);
            out.preempt(1);
            out.start(1, 0, 1, d);
        }
    };
    RestartSpec spec;
    spec.kind = RestartSpec::Kind::Checkpoint;
    spec.restart_cost = 3;
    Summary sum;
    SECTION("migration_cost 4 s") {
        spec.migration_cost = 4;
        const auto jobs = r.run(spec, script, &sum);
        // A: 20 of 200 iterations by 10, runs again from 14: 180 / 2 = 90 s more, 104.
        CHECK(jobs[0].finish == s(104));
        CHECK(jobs[0].migrations == 1);
        CHECK(jobs[0].restart_time == s(4));
        // D: 10 of 20 by 10, again from 14: 24.
        CHECK(jobs[1].finish == s(24));
        CHECK(jobs[1].migrations == 1);
        CHECK(jobs[1].restart_time == s(4));
        CHECK(sum.restarts == 2);
        CHECK(sum.restart_gpu_seconds == 2 * 4.0 + 4.0);
    }
    SECTION("default: a move costs a restart (A 15 s, D 3 + 3 s)") {
        const auto jobs = r.run(spec, script, &sum);
        CHECK(jobs[0].finish == s(115));
        CHECK(jobs[1].finish == s(26));
        CHECK(sum.restart_gpu_seconds == 2 * 15.0 + 6.0);
    }
}

TEST_CASE("restart costs: the run config builds the model; summary and job records count them", "[engine]") {
    // One GPU; srtf preempts L (big, 1000 s) for S (small, 10 s) at 100. L restarts at 110 and pays
    // 3 + 12 = 15 s: it runs again from 125 with 900 s left, finishing at 1025.
    const RunInputs in =
        inputs_from_text(homogeneous_cluster_json(1, 1), profile_text(),
                         "job_id,submit_time,num_gpus,duration,model\nL,0,1,1000,big\nS,100,1,10,small\n");
    RunConfig c;
    c.out = temp_path("restart-costs.json");
    c.policy = "srtf";
    c.restart.kind = RestartSpec::Kind::Checkpoint;
    c.restart.restart_cost = 3;
    const RunOutcome o = simulate(in, c);
    CHECK(o.jobs[0].finish == s(1025));
    CHECK(o.jobs[1].finish == s(110));
    CHECK(o.summary.restarts == 1);
    CHECK(o.summary.restart_gpu_seconds == 15.0);
    write_outputs(in, c, o, {});
    const auto result = json_fields::parse_file(c.out);
    CHECK(result["summary"]["restarts"] == 1);
    CHECK(result["summary"]["restart_gpu_seconds"] == 15.0);
    CHECK(result["jobs"][0]["restarts"] == 1);
    CHECK(result["jobs"][0]["restart_seconds"] == 15.0);
    CHECK(result["jobs"][1]["restart_seconds"] == 0);
    CHECK(result["config"]["restart_model"]["kind"] == "checkpoint");
    CHECK(result["config"]["restart_model"]["storage_bandwidth"] == 2.0);

    // The default (fixed, 0 s) charges nothing and echoes no restart_model.
    RunConfig plain;
    plain.out.clear();
    plain.policy = "srtf";
    const RunOutcome p = simulate(in, plain);
    CHECK(p.jobs[0].finish == s(1010));
    CHECK(p.summary.restarts == 0);
    CHECK(p.config_json.find("restart_model") == std::string::npos);
}

}  // namespace dlsim::test::restart_costs_tests
