// The round mechanism of Gavel's policies (policies/rounds/round_scheduler.hpp): hand-worked schedules in the
// default (event-driven) mode and in gavel_compat mode. Jobs without a model run 1 iteration/s per GPU,
// so T = g and a job of duration D has g·D iterations. τ = 360 s unless said.
#include "policies/registry.hpp"
#include "policies/rounds/fifo_share.hpp"
#include "policies/rounds/round_cycle.hpp"
#include "policies/rounds/round_scheduler.hpp"
#include "policies/rounds/round_shares.hpp"
#include "tests/support/engine_support.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::round_scheduler_tests {

namespace {

RunOutcome run_with(const RunInputs& in, const std::string& policy, std::initializer_list<std::string> params,
                    double restart_cost = 0) {
    RunConfig c;
    c.policy = policy;
    for (const std::string& p : params) add_param(c, p);
    c.restart.restart_cost = restart_cost;
    c.out.clear();
    return simulate(in, c);
}

std::unique_ptr<RoundScheduler> las_rounds(bool compat) {
    RoundOptions o;
    o.gavel_compat = compat;
    ShareOptions lp;
    lp.objective = ShareObjective::MaxMinFairness;
    return std::make_unique<RoundScheduler>(o, std::make_unique<LpShareSource>(lp));
}

/// Where each job held its GPUs when it finished.
struct FinalPlaces final : Observer {
    std::map<JobIdx, Allocation> at_finish;
    void on_finish(Time, JobIdx j, const JobInfo&, const Allocation& released) override { at_finish[j] = released; }
};

std::vector<NodeShare> shares(const Allocation& a) { return a.shares; }

/// A view with a clock and nothing running: all RoundCycle reads (gavel_round_running asks for the running jobs).
struct ClockView final : ClusterView {
    Time t = 0;
    Time now() const override { return t; }
    const Cluster& cluster() const override { throw InternalError("unused"); }
    const RateModel& rates() const override { throw InternalError("unused"); }
    const JobInfo& job(JobIdx) const override { throw InternalError("unused"); }
    const Allocation& allocation(JobIdx) const override { throw InternalError("unused"); }
    int free_gpus(GpuTypeIdx) const override { return 0; }
    int free_gpus_on(NodeIdx) const override { return 0; }
    NodeIdx node_with_free(GpuTypeIdx, int) const override { return kNoNode; }
    std::span<const JobIdx> running_jobs() const override { return {}; }
    const RestartModel& restart_model() const override { throw InternalError("unused"); }
    const PerformanceModel& performance() const override { throw InternalError("unused"); }
};

/// RoundCycle's hooks, logged as "recompute", "reset@s", "boundary", "fill", "renew", "round" (compat: the
/// rounds return `renew_end` and `round_end`).
struct CycleLog {
    RoundCycle& cycle;
    RoundShares shares;
    std::string log;
    Time renew_end = kNever, round_end = kNever;
    explicit CycleLog(RoundCycle& c) : cycle(c) { shares.setup(1, 180); }
    void recompute_allocation(const ClusterView&) {
        log += "recompute ";
        cycle.allocated();
    }
    void reset_shares(Time now) {
        log += "reset@" + std::to_string(std::llround(to_seconds(now))) + " ";
        shares.reset(now, std::vector<std::size_t>{});
    }
    void boundary_round(const ClusterView&, Decisions&) { log += "boundary "; }
    void fill_round(const ClusterView&, Decisions&) { log += "fill "; }
    Time renew_only_round(const ClusterView&) {
        log += "renew ";
        return renew_end;
    }
    Time compat_round(const ClusterView&, Decisions&) {
        log += "round ";
        return round_end;
    }
};

const char* kThreeLong = "job_id,submit_time,num_gpus,duration\na,0,1,1000\nb,0,1,1000\nc,0,1,1000\n";

}  // namespace

TEST_CASE("round shares: priorities, entitlement and the reset's deficits by hand", "[unit][gavel]") {
    // Two types, τ/2 = 180 s, three rows; rows 0 and 1 hold x = 1/2 on type 0, row 2 is not in X.
    RoundShares shares;
    shares.setup(2, 180);
    shares.grow(3);
    for (std::size_t row = 0; row < 3; ++row) shares.start_row(row);
    shares.entitle(0, std::vector<std::size_t>{});  // the allocation holds from t = 0
    for (std::size_t row = 0; row < 2; ++row) {
        shares.set_x(row, 0, 0.5);
        shares.set_in_allocation(row, true);
    }
    // Nothing received yet on type 0 (the starting seeds are not in the type's sum): x·1e9.
    CHECK(shares.priority(0, 0, true) == 0.5e9);
    CHECK(shares.priority(2, 0, true) == 0);   // not in X
    CHECK(shares.priority(0, 1, true) == 0);   // no share on type 1
    CHECK(shares.priority(0, 0, false) == 0);  // cannot run there
    // Row 0 ran 360 s: received 180 + 360 = 540 against a type sum of 360, f = 1.5, priority 0.5/1.5 = 1/3;
    // row 1 has its seed alone, f = 0.5, priority 1: it goes first.
    shares.credit(0, 0, 360);
    CHECK(shares.priority(0, 0, true) == Approx(1.0 / 3).epsilon(1e-15));
    CHECK(shares.priority(1, 0, true) == Approx(1.0).epsilon(1e-15));
    // Reset at 720 s over rows 0 and 1: entitled 0.5·720 = 360 each. Deficits: row 0 360 − (540 − 180) = 0,
    // row 1 360 − (180 − 180) = 360. Received reseeded to 180 and now counted: both f = 180/360, priority 1.
    CHECK(shares.last_reset() == 0);
    CHECK_FALSE(shares.reset_once());
    shares.reset(to_time(720), std::vector<std::size_t>{0, 1});
    CHECK(shares.reset_once());
    CHECK(shares.last_reset() == to_time(720));
    CHECK(shares.deficit(0, 0) == 0);
    CHECK(shares.deficit(1, 0) == 360);
    CHECK(shares.deficit(1, 1) == 0);
    CHECK(shares.priority(0, 0, true) == 1.0);
    CHECK(shares.priority(1, 0, true) == 1.0);
    // A row outside the live range is left alone: row 2 keeps its seed and is not in the sum. Another 360 s:
    // row 1 entitled 180 (x = 1/2) and received 360 beyond its seed, deficit 360 + 180 − 360 = 180.
    shares.credit(1, 0, 360);
    shares.reset(to_time(1080), std::vector<std::size_t>{0, 1});
    CHECK(shares.deficit(1, 0) == 180);
    CHECK(shares.deficit(0, 0) == 180);  // row 0 entitled 180, received nothing beyond its seed
    CHECK(shares.deficit(2, 0) == 0);
}

TEST_CASE("round cycle: when each mode recomputes X, resets the shares, walks and calls again (τ 360 s, gate 1920 s)",
          "[unit][gavel]") {
    const auto at = [](double seconds) { return to_time(seconds); };
    ClockView view;
    RoundCycle cycle(at(360), at(1920), false, "test");  // step_default and step_compat called directly
    CycleLog m(cycle);
    // One call at `seconds`; returns what it did and sets `next` to the next call it asked for.
    Time next = kNever;
    const auto call = [&](double seconds, bool compat, bool timer = false, bool active = true) {
        view.t = at(seconds);
        m.log.clear();
        Decisions out;
        if (compat)
            cycle.step_compat(m, view, active, m.shares, out);
        else
            cycle.step_default(m, view, timer, active, m.shares, out);
        next = out.next_call;
        return m.log;
    };
    SECTION("default: X at once, a reset at the first boundary >= 1920 s after the last, fills between") {
        CHECK(call(0, false) == "recompute reset@0 boundary ");  // the first call is a boundary
        CHECK(next == at(360));
        cycle.invalidate();  // an arrival
        CHECK(call(100, false) == "recompute fill ");
        CHECK(next == at(360));
        CHECK(call(360, false, true) == "boundary ");  // 360 s since the reset: none
        CHECK(next == at(720));
        CHECK(call(500, false) == "fill ");             // a completion without a change of X: no recompute
        CHECK(call(1800, false, true) == "boundary ");  // 1800 < 1920
        CHECK(call(2160, false, true) == "reset@2160 boundary ");
        CHECK(next == at(2520));
        CHECK(call(2200, false, false, false).empty());  // no job: no round, no timer
        CHECK(next == kNever);
        CHECK(call(3000, false) == "boundary ");  // the next job starts a round at once
        CHECK(next == at(3360));
    }
    SECTION(
        "compat: nothing mid-round; X only with a change and the gate open; a round placing nothing waits "
        "for the gate") {
        m.round_end = at(500);
        CHECK(call(0, true) == "reset@0 recompute renew round ");
        CHECK(next == at(500));
        cycle.invalidate();  // an arrival at 200 s waits for the round's end
        CHECK(call(200, true).empty());
        CHECK(next == at(500));
        m.round_end = kNever;                                          // a round that places nothing
        CHECK(call(500, true) == "reset@500 recompute renew round ");  // the reset at 0 s does not count
        CHECK(next == kNever);                                         // X is fresh: nothing to wait for
        cycle.invalidate();
        CHECK(call(600, true) == "renew round ");  // 100 s since the reset: the gate is shut
        CHECK(next == at(2420));                   // ... and opens at 500 + 1920 s
        m.renew_end = at(2800);                    // a round that only renews the leases: no walk
        CHECK(call(2420, true) == "reset@2420 recompute renew ");
        CHECK(next == at(2800));
        CHECK(call(2500, true).empty());
        CHECK(next == at(2800));
        CHECK(call(2800, true, false, false).empty());  // round over, no job
        CHECK(next == kNever);
    }
}

TEST_CASE("gavel rounds: priorities x/f decide who runs in each round (3 jobs, 2 GPUs)", "[schedule][gavel]") {
    // X (max-min, one type): z <= x_m, Σ x <= 2, x <= 1 -> z* = 2/3; phase 2 (max Σ x = 2) leaves x = 2/3 each.
    // t=0: shares seeded τ/2 = 180 each (sum 540): f = 1/3, p = 2 for all; ties by trace order: a, b run.
    // t=360: a, b 540, c 180, sum 1260: p_c = (2/3)/(1/7) = 14/3 > p_a = p_b = 14/9: c and a (a before b).
    // t=720: a 900, b 540, c 540: b and c; a preempted.   t=1080: 900 each: a and b; c preempted.
    // t=1360: a (0-720, 1080-1360) and b (0-360, 720-1360) finish with 1000 s each; c resumes at once
    // (filling free GPUs at an event) with 1000 - 720 = 280 s left: 1640.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile, kThreeLong);
    for (const char* policy : {"gavel-las", "gavel-las-agnostic"}) {
        INFO(policy);
        const auto o = run_with(in, policy, {});
        const double start[] = {0, 0, 360}, finish[] = {1360, 1360, 1640};
        for (std::size_t j = 0; j < 3; ++j) {
            INFO("job " << in.trace.jobs[j].id);
            CHECK(start_s(o, j) == start[j]);
            CHECK(finish_s(o, j) == finish[j]);
            CHECK(o.jobs[j].preemptions == 1);
            CHECK(o.jobs[j].migrations == 0);
        }
    }
    // The mechanism's own count: full rounds at 0, 360, 720, 1080, 1440; leases renewed for a (360), c (720),
    // b (1080), c (1440); X computed at the arrivals (0) and the completions at 1360 (none left at 1640);
    // the time shares reset at 0 only (the next boundary 1920 s later never comes); one fill (c at 1360).
    EngineFixture f(1, 2, kThreeLong);
    auto policy = las_rounds(false);
    Simulator sim(f.in.cluster, f.rates, f.jobs, *policy, f.placer, {});
    sim.run();
    CHECK(sim.jobs()[2].finish == s(1640));
    CHECK(policy->stats().rounds == 5);
    CHECK(policy->stats().lease_renewals == 4);
    CHECK(policy->stats().allocations == 2);
    CHECK(policy->stats().resets == 1);
    CHECK(policy->stats().fills == 1);
}

TEST_CASE("gavel rounds: a job kept across a boundary renews its lease, a resumed one pays the restart",
          "[schedule][gavel]") {
    // Restart cost 30 s. X = 2/3 each as above. a (700 s), b (500 s), c (600 s).
    // t=0 a, b run.  t=360 c and a win (as above): a is kept (same GPU, no restart), b is preempted with 360 s
    // done; c's first start is free.  t=700 a finishes: X for b, c is 1 each; b fills the free GPU and restarts
    // until 730, then 140 s: 870.  t=720 both selected and kept.  c: 360 + 600 = 960.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,700\nb,0,1,500\nc,0,1,600\n");
    const auto o = run_with(in, "gavel-las", {}, 30);
    CHECK(finish_s(o, 0) == 700);
    CHECK(o.jobs[0].preemptions == 0);
    CHECK(o.jobs[0].restarts == 0);
    CHECK(finish_s(o, 1) == 870);
    CHECK(o.jobs[1].preemptions == 1);
    CHECK(o.jobs[1].restarts == 1);
    CHECK(o.jobs[1].restart_time == s(30));
    CHECK(start_s(o, 2) == 360);
    CHECK(finish_s(o, 2) == 960);
    CHECK(o.jobs[2].restarts == 0);
    CHECK(o.summary.restarts == 1);
}

TEST_CASE("gavel rounds: the run's placer places a gang on one node; compat places strided and moves leases",
          "[schedule][gavel]") {
    // Two nodes of 2 GPUs. a (1 GPU, 1000 s) at 0, b (2 GPUs, 100 s) at 100. X = 1 for each (room for both:
    // z <= x_a, z <= 2 x_b, x_a + 2 x_b <= 4, x <= 1 -> z* = 1; phase 2 max x_a + 2 x_b -> x_b = 1).
    //  default: a on node 0 (consolidated: lowest id); b arrives, fills at once: node 1 (one whole node),
    //  100-200. a never moves: 1000.
    //  compat: round 1 (0-360, a's micro-task 360 s); b waits for the round's end. At 360 the gate is open (the
    //  only reset so far was at time 0) and X covers both; placed by decreasing gang: b takes the lowest free
    //  GPUs, node 0 (a's GPU included: a's lease is looked at only with the 1-GPU gangs), so a moves to node 1
    //  (a migration, free of cost). b 360-460 (micro-task 200 it / 2 it/s). Round 2 ends at 720 (a's 360 s);
    //  then a keeps node 1 and runs its last 280 s: 1000.
    const std::string trace = "job_id,submit_time,num_gpus,duration\na,0,1,1000\nb,100,2,100\n";
    for (const bool compat : {false, true}) {
        INFO("compat " << compat);
        EngineFixture f(2, 2, trace);
        auto policy = las_rounds(compat);
        FinalPlaces places;
        Simulator sim(f.in.cluster, f.rates, f.jobs, *policy, f.placer, {});
        sim.add_observer(places);
        sim.run();
        const auto& jobs = sim.jobs();
        CHECK(jobs[1].first_start == s(compat ? 360 : 100));
        CHECK(jobs[1].finish == s(compat ? 460 : 200));
        CHECK(shares(places.at_finish[1]) == std::vector<NodeShare>{{compat ? 0u : 1u, 2}});
        CHECK(jobs[0].finish == s(1000));
        CHECK(jobs[0].migrations == (compat ? 1u : 0u));
        CHECK(shares(places.at_finish[0]) == std::vector<NodeShare>{{compat ? 1u : 0u, 1}});
        if (compat) CHECK(policy->stats().lease_renewals == 1);  // a at 720
    }
}

TEST_CASE("gavel compat: a round ends when its longest micro-task ends; freed GPUs idle until then",
          "[schedule][gavel]") {
    // One node of 2 GPUs. a (100 s) and b (200 s) at 0, c (50 s) at 10.
    //  compat: micro-tasks min(int(360), R): a 100, b 200: the round ends at 200, not 360. a's GPU idles
    //  100-200 and c waits for the round's end: 200-250.
    //  default: c fills a's GPU when a finishes: 100-150.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,100\nb,0,1,200\nc,10,1,50\n");
    const auto compat = run_with(in, "gavel-las", {"gavel_compat=true"});
    CHECK(start_s(compat, 2) == 200);
    CHECK(finish_s(compat, 2) == 250);
    CHECK(finish_s(compat, 1) == 200);
    const auto events = run_with(in, "gavel-las", {});
    CHECK(start_s(events, 2) == 100);
    CHECK(finish_s(events, 2) == 150);
}

TEST_CASE("gavel compat: a new job waits for the next allocation reset (1920 s gate)", "[schedule][gavel]") {
    // One node of 2 GPUs. a (1 GPU, 5000 s) at 10, b (1 GPU, 100 s) at 20.
    //  compat: the first reset is at 10 (a time > 0, so the gate closes for 1920 s). Rounds end every 360 s
    //  (a's micro-task): 370, 730, 1090, 1450, 1810: b is not in X, so it is walked with p = 0 and takes the
    //  free GPU out of the round without being placed (Gavel's quirk: the GPU idles). At 2170 >= 10 + 1920 X
    //  is recomputed and b runs 2170-2270. a keeps its GPU throughout.
    //  default: X is recomputed at b's arrival and b starts at once: 20-120.
    const std::string trace = "job_id,submit_time,num_gpus,duration\na,10,1,5000\nb,20,1,100\n";
    {
        EngineFixture f(1, 2, trace);
        auto policy = las_rounds(true);
        Simulator sim(f.in.cluster, f.rates, f.jobs, *policy, f.placer, {});
        sim.run();
        CHECK(sim.jobs()[1].first_start == s(2170));
        CHECK(sim.jobs()[1].finish == s(2270));
        CHECK(sim.jobs()[0].preemptions == 0);
        CHECK(sim.jobs()[0].finish == s(5010));
        CHECK(policy->stats().unplaced == 5);
        // Resets at 10, 2170 and 4330 (the first round end >= 2170 + 1920 after b finished).
        CHECK(policy->stats().resets == 3);
        CHECK(policy->stats().allocations == 3);
    }
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile, trace);
    const auto events = run_with(in, "gavel-las", {});
    CHECK(start_s(events, 1) == 20);
    CHECK(finish_s(events, 1) == 120);
}

TEST_CASE("gavel compat FIFO: with nothing running, a waiting job is started at the reset gate", "[schedule][gavel]") {
    // One node of 2 GPUs. a (1 GPU, 100 s) at 10: the reset at 10 closes the gate until 1930; a runs 10-110.
    // b (1 GPU, 100 s) arrives at 500 with the cluster idle and the gate closed: not in X, so no round has
    // anything to run or renew, and the policy must wake itself at 1930 (no other event comes): b 1930-2030.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,10,1,100\nb,500,1,100\n");
    for (const char* policy : {"fifo-het", "gavel-fifo"}) {
        INFO(policy);
        const auto compat = run_with(in, policy, {"gavel_compat=true"});
        CHECK(finish_s(compat, 0) == 110);
        CHECK(start_s(compat, 1) == 1930);
        CHECK(finish_s(compat, 1) == 2030);
    }
}

TEST_CASE("gavel rounds: work-conserving fill in the default mode; compat FIFO passes over x = 0",
          "[schedule][gavel]") {
    // One node of 2 GPUs. a (1 GPU, 500 s) at 0, h (2 GPUs, 50 s) at 1, s (1 GPU, 10 s) at 2. FIFO's X: a = 1;
    // h does not fit next to a, and the strict walk stops there: h = s = 0 until a finishes.
    //  default: s (x = 0) fills the idle GPU at once: 2-12. h runs when a finishes: 500-550.
    //  compat (reset_interval 0, so X follows every round): round 1 0-360; at 360 h and s have p = 0 and FIFO
    //  passes over them: the GPU idles; a's last 140 s end round 2 at 500; then h = 1: 500-550 (micro-task
    //  100 it / 2 it/s); then s: 550-560.
    // gavel-fifo (a random type, shuffled type order) is the same on one type.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,500\nh,1,2,50\ns,2,1,10\n");
    for (const char* policy : {"fifo-het", "gavel-fifo"}) {
        INFO(policy);
        const auto events = run_with(in, policy, {});
        CHECK(start_s(events, 2) == 2);
        CHECK(finish_s(events, 2) == 12);
        CHECK(start_s(events, 1) == 500);
        CHECK(finish_s(events, 1) == 550);
        const auto compat = run_with(in, policy, {"gavel_compat=true", "reset_interval=0"});
        CHECK(finish_s(compat, 0) == 500);
        CHECK(start_s(compat, 1) == 500);
        CHECK(finish_s(compat, 1) == 550);
        CHECK(start_s(compat, 2) == 550);
        CHECK(finish_s(compat, 2) == 560);
        CHECK(compat.summary.preemptions == 0);
    }
}

TEST_CASE("fifo-het gives each job the fastest type with room", "[schedule][gavel]") {
    // Cluster order slow, fast (one GPU each); m runs 2 it/s on fast, 1 on slow; durations are on fast.
    // a (10 s = 20 it) comes first: fast; b: only slow has room. a 0-10, b 0-20.
    const auto in = inputs_from_text(
        R"({"gpu_types": {"slow": {}, "fast": {}},
            "node_types": {"s": {"gpu_type": "slow", "gpus": 1}, "f": {"gpu_type": "fast", "gpus": 1}},
            "racks": [{"node_type": "s", "nodes": 1}, {"node_type": "f", "nodes": 1}]})",
        R"({"models": {"m": {"throughput": {"fast": 2, "slow": 1}}}})",
        "job_id,submit_time,num_gpus,duration,model,gpu_type\na,0,1,10,m,fast\nb,0,1,10,m,fast\n");
    for (const char* mode : {"gavel_compat=false", "gavel_compat=true"}) {
        INFO(mode);
        const auto o = run_with(in, "fifo-het", {mode});
        CHECK(finish_s(o, 0) == 10);
        CHECK(finish_s(o, 1) == 20);
    }
}

TEST_CASE("FIFO allocation: arrival order, strict, agnostic choices kept", "[unit][gavel]") {
    ShareInput in;
    in.capacities = {2, 1};
    // Keys 0..2; job 1 arrived first. Throughputs: type 1 faster for all.
    in.jobs = {{0, 1, 1, 10, 0}, {1, 2, 1, 10, 0}, {2, 1, 1, 10, 0}};
    in.throughputs = {1, 2, 1, 2, 1, 2};
    const std::vector<Time> submit = {s(5), s(1), s(7)};
    FifoShare perf(true, FifoPick::Intended, {}, 0);
    // Job 1 (2 GPUs) first: only type 0 has room for 2. Job 0: type 1 (faster, room 1). Job 2: nothing left.
    const auto x = perf.allocate(in, submit);
    CHECK(std::vector<double>(x.begin(), x.end()) == std::vector<double>{0, 1, 1, 0, 0, 0});
    // Strict: with job 1 needing 3 GPUs nobody fits after it... it fits nowhere, so the walk stops.
    in.jobs[1].gang = 3;
    const auto blocked = perf.allocate(in, submit);
    CHECK(std::vector<double>(blocked.begin(), blocked.end()) == std::vector<double>(6, 0.0));
    in.jobs[1].gang = 2;
    // Agnostic: here every choice is forced (job 1 fits only type 0, then job 0 only type 1); the jobs keep
    // their types when job 2 asks again after capacity grew.
    FifoShare random(false, FifoPick::Intended, {}, 42);
    const auto first = random.allocate(in, submit);
    CHECK(std::vector<double>(first.begin(), first.end()) == std::vector<double>{0, 1, 1, 0, 0, 0});
    in.capacities = {4, 4};
    const auto again = random.allocate(in, submit);
    CHECK(again[0 * 2 + 1] == 1);
    CHECK(again[1 * 2 + 0] == 1);
    CHECK(again[2 * 2 + 0] + again[2 * 2 + 1] == 1);
}

TEST_CASE("FIFO allocation (agnostic): a seeded uniform draw among the types with room", "[unit][gavel]") {
    // Two types with room for all eight 1-GPU jobs: every job draws. Gavel's code would put all eight on the
    // last type (its draw is overwritten by a loop variable); the same seed gives the same draws.
    ShareInput in;
    in.capacities = {8, 8};
    std::vector<Time> submit;
    for (std::uint32_t k = 0; k < 8; ++k) {
        in.jobs.push_back({k, 1, 1, 10, 0});
        in.throughputs.insert(in.throughputs.end(), {1, 1});
        submit.push_back(s(k));
    }
    auto draws = [&](std::uint64_t seed) {
        FifoShare fifo(false, FifoPick::Intended, {}, seed);
        const auto x = fifo.allocate(in, submit);
        return std::vector<double>(x.begin(), x.end());
    };
    const std::vector<double> a = draws(1);
    CHECK(a == draws(1));
    double on_first = 0, total = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        on_first += a[2 * i];
        total += a[2 * i] + a[2 * i + 1];
    }
    CHECK(total == 8);
    CHECK(on_first > 0);
    CHECK(on_first < 8);
    bool differs = false;
    for (std::uint64_t seed = 2; seed < 10 && !differs; ++seed) differs = draws(seed) != a;
    CHECK(differs);
}

TEST_CASE("FIFO allocation as Gavel's code runs it: the last listed type, overcommitted; finished types handed over",
          "[unit][gavel]") {
    // Types listed 0, 1 (1 is "v100", last by name); capacities 4 and 3; every throughput 1.
    // k0 (4 GPUs) fits only type 0, yet gets type 1 (the filter loop's last variable): 3 - 4 = -1 left. k1, k2
    // (1 GPU) fit only type 0 now, and get type 1 too (-2, -3). Type 0 stays empty.
    ShareInput in;
    in.capacities = {4, 3};
    in.jobs = {{0, 4, 1, 10, 0}, {1, 1, 1, 10, 0}, {2, 1, 1, 10, 0}};
    in.throughputs = std::vector<double>(6, 1.0);
    FifoShare code(false, FifoPick::GavelCode, {0, 1}, 7);
    const auto x = code.allocate(in, std::vector<Time>{s(0), s(1), s(2)});
    CHECK(std::vector<double>(x.begin(), x.end()) == std::vector<double>{0, 1, 0, 1, 0, 1});
    // k0 finishes and k3 arrives: k0's type goes to the head of the queue (k3) if it fits in what the jobs
    // listed before k0 left (all 3 GPUs): k3 on type 1; k1, k2 keep theirs.
    in.jobs = {{1, 1, 1, 10, 0}, {2, 1, 1, 10, 0}, {3, 1, 1, 10, 0}};
    const auto next = code.allocate(in, std::vector<Time>{s(1), s(2), s(3)});
    CHECK(std::vector<double>(next.begin(), next.end()) == std::vector<double>{0, 1, 0, 1, 0, 1});
    // fifo_perf's ties go to the first listed type: listed 1, 0 (by name) -> type 1; intended: cluster order.
    ShareInput tie;
    tie.capacities = {1, 1};
    tie.jobs = {{0, 1, 1, 10, 0}};
    tie.throughputs = {2, 2};
    FifoShare by_name(true, FifoPick::GavelCode, {1, 0}, 0), intended(true, FifoPick::Intended, {}, 0);
    const auto a = by_name.allocate(tie, std::vector<Time>{0});
    CHECK(std::vector<double>(a.begin(), a.end()) == std::vector<double>{0, 1});
    const auto b = intended.allocate(tie, std::vector<Time>{0});
    CHECK(std::vector<double>(b.begin(), b.end()) == std::vector<double>{1, 0});
}

TEST_CASE("gavel policies: bad parameters name the policy and the parameter", "[bad-input][gavel]") {
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile, kThreeLong);
    CHECK_THROWS_WITH(run_with(in, "gavel-las", {"round=0"}), Catch::Contains("policy gavel-las: parameter round"));
    CHECK_THROWS_WITH(run_with(in, "fifo-het", {"reset_interval=-1"}),
                      Catch::Contains("policy fifo-het: parameter reset_interval"));
    CHECK_THROWS_WITH(run_with(in, "gavel-ftf-agnostic", {"reference_type=v100"}),
                      Catch::Contains("policy gavel-ftf-agnostic: parameter reference_type"));
}

namespace {

/// An allocation source whose X a test writes (job-major, input order; x starts at 0).
struct ScriptedAllocation final : ShareSource {
    std::function<void(const ShareInput&, std::vector<double>&)> fill;
    std::vector<double> x;
    explicit ScriptedAllocation(std::function<void(const ShareInput&, std::vector<double>&)> f) : fill(std::move(f)) {}
    std::span<const double> allocate(const ShareInput& in, std::span<const Time>) override {
        x.assign(in.jobs.size() * in.types(), 0.0);
        fill(in, x);
        return x;
    }
};

/// The run's jobs under the default mechanism with a scripted X.
std::vector<JobInfo> run_scripted(const std::string& profile, const std::string& trace,
                                  std::function<void(const ShareInput&, std::vector<double>&)> fill) {
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 2), profile, trace);
    const RateModel rates(in.cluster, in.profiles);
    const ResolvedJobs jobs = resolve_jobs(in.trace, in.cluster, in.profiles, rates, false);
    ConsolidatedPlacer placer;
    RoundScheduler policy(RoundOptions{}, std::make_unique<ScriptedAllocation>(std::move(fill)));
    Simulator sim(in.cluster, rates, jobs, policy, placer, {});
    sim.run();
    return sim.jobs();
}

}  // namespace

TEST_CASE("gavel rounds: the objectives' hand-derived X (below) give the schedules derived there",
          "[schedule][gavel]") {
    // The same schedules as the [gavel-lp-objectives] case with X written by hand, so the mechanism's part is
    // checked whatever the LP: 1 on every job when fewer jobs are left.
    const auto ones = [](std::vector<double>& x) { std::fill(x.begin(), x.end(), 1.0); };
    const auto throughput = run_scripted(
        R"({"models": {"m1": {"throughput": {"g": 1}}, "m2": {"throughput": {"g": 2}},
                       "m3": {"throughput": {"g": 3}}}})",
        "job_id,submit_time,num_gpus,duration,model\nj1,0,1,100,m1\nj2,0,1,100,m2\nj3,0,1,100,m3\n",
        [&](const ShareInput& in, std::vector<double>& x) {
            if (in.jobs.size() == 3)
                x = {0, 1, 1};
            else
                ones(x);
        });
    CHECK(throughput[0].first_start == s(100));
    CHECK(throughput[0].finish == s(200));
    CHECK(throughput[1].finish == s(100));
    CHECK(throughput[2].finish == s(100));
    const auto makespan =
        run_scripted(kUnusedProfile, "job_id,submit_time,num_gpus,duration\nb,0,1,150\nc,0,1,150\na,0,1,300\n",
                     [&](const ShareInput& in, std::vector<double>& x) {
                         if (in.jobs.size() == 3)
                             x = {0.5, 0.5, 1};
                         else
                             ones(x);
                     });
    CHECK(makespan[0].finish == s(150));
    CHECK(makespan[1].first_start == s(150));
    CHECK(makespan[1].finish == s(300));
    CHECK(makespan[2].first_start == 0);
    CHECK(makespan[2].finish == s(300));
    const auto ftf = run_scripted(kUnusedProfile, "job_id,submit_time,num_gpus,duration\na,0,2,50\nb,0,1,100\n",
                                  [&](const ShareInput& in, std::vector<double>& x) {
                                      if (in.jobs.size() == 2)
                                          x = {0.5, 1};
                                      else
                                          ones(x);
                                  });
    CHECK(ftf[1].finish == s(100));
    CHECK(ftf[0].first_start == s(100));
    CHECK(ftf[0].finish == s(150));
}

// The other objectives need helper h1's ShareLp (the stub solves max-min only): [!mayfail] until it lands.
TEST_CASE("gavel rounds: the ftf, makespan and max-throughput objectives in the mechanism",
          "[schedule][gavel-lp-objectives][!mayfail]") {
    SECTION("max-throughput: the two jobs with the most iterations/s run first") {
        // One type, 2 GPUs; models at 1, 2, 3 it/s; each job 100 s. Σ T x with x <= 1, Σ x <= 2: x = 0, 1, 1
        // (unique). j1 (x = 0) waits although first in the trace; j2, j3 finish at 100; j1 100-200.
        const auto in = inputs_from_text(
            homogeneous_cluster_json(1, 2),
            R"({"models": {"m1": {"throughput": {"g": 1}}, "m2": {"throughput": {"g": 2}},
                           "m3": {"throughput": {"g": 3}}}})",
            "job_id,submit_time,num_gpus,duration,model\nj1,0,1,100,m1\nj2,0,1,100,m2\nj3,0,1,100,m3\n");
        const auto o = run_with(in, "gavel-max-throughput", {});
        CHECK(start_s(o, 0) == 100);
        CHECK(finish_s(o, 0) == 200);
        CHECK(finish_s(o, 1) == 100);
        CHECK(finish_s(o, 2) == 100);
    }
    SECTION("makespan: the longest job runs throughout") {
        // 2 GPUs; b, c 150 s, a 300 s. max y s.t. x_m >= R_m·y: x_a = 1 and y = 1/300 bind, x_b = x_c = 1/2
        // (unique). p_a = 3 > p_b = p_c = 1.5: a and b run; b ends at 150, c fills 150-300; a 0-300.
        const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                         "job_id,submit_time,num_gpus,duration\nb,0,1,150\nc,0,1,150\na,0,1,300\n");
        const auto o = run_with(in, "gavel-makespan", {});
        CHECK(finish_s(o, 0) == 150);
        CHECK(start_s(o, 1) == 150);
        CHECK(finish_s(o, 1) == 300);
        CHECK(start_s(o, 2) == 0);
        CHECK(finish_s(o, 2) == 300);
    }
    SECTION("ftf: the one-GPU job's rho binds first") {
        // 2 GPUs; a (2 GPUs, 50 s), b (1 GPU, 100 s), both at 0. Isolated shares x_a = 1/2, x_b = 1, so
        // rho_a = 0.5/x_a, rho_b = 1/x_b with 2 x_a + x_b <= 2: rho* = 1 at x_a = 1/2, x_b = 1. p_b = 2 > p_a = 1:
        // b runs, a (2 GPUs) does not fit beside it: a 100-150.
        const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                         "job_id,submit_time,num_gpus,duration\na,0,2,50\nb,0,1,100\n");
        for (const char* policy : {"gavel-ftf", "gavel-ftf-agnostic"}) {
            INFO(policy);
            const auto o = run_with(in, policy, {});
            CHECK(finish_s(o, 1) == 100);
            CHECK(start_s(o, 0) == 100);
            CHECK(finish_s(o, 0) == 150);
        }
    }
}

TEST_CASE("gavel-las: the trace's priority weighs a job's share (the weight w_m of max-min fairness)",
          "[schedule][gavel]") {
    // Gavel's max-min fairness (Narayanan et al., OSDI 2020; github.com/stanford-futuredata/gavel,
    // scheduler/policies/max_min_fairness.py) divides job m's normalised throughput by its priority weight w_m.
    // One GPU, two jobs of 36,000 s. Max-min with weights: z <= x_m/w_m, x_a + x_b <= 1 -> x_a = 2/3 for
    // w_a = 2 and x_b = 1/3: a has 36,000 s of service at about 54,000 s (to a round of 360 s), then b runs
    // alone; the GPU is never idle, so b ends at 72,000 s. Equal weights (no priority column) share 1/2 each:
    // both end near 72,000 s.
    const auto weighted =
        inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                         "job_id,submit_time,num_gpus,duration,priority\na,0,1,36000,2\nb,0,1,36000,1\n");
    const auto plain = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                        "job_id,submit_time,num_gpus,duration\na,0,1,36000\nb,0,1,36000\n");
    for (const char* policy : {"gavel-las", "gavel-las-agnostic"}) {
        INFO(policy);
        const auto w = run_with(weighted, policy, {});
        CHECK(w.jobs[0].weight == 2);
        CHECK(finish_s(w, 0) >= 54000 - 360);
        CHECK(finish_s(w, 0) <= 54000 + 360);
        CHECK(finish_s(w, 1) == 72000);
        const auto p = run_with(plain, policy, {});
        CHECK(p.jobs[0].weight == 1);
        CHECK(finish_s(p, 0) >= 72000 - 360);
        CHECK(finish_s(p, 1) == 72000);
    }
}

}  // namespace dlsim::test::round_scheduler_tests
