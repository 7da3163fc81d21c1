// Hand-worked schedules of tiresias-gittins and of the presets tiresias-sim and blox-las, the Gittins index
// on hand-computed samples, and the incremental walks of las and tiresias against their full reference
// walks. tiresias-sim is Tiresias's shipped simulator (Gu et al., NSDI 2019; github.com/SymbioticLab/Tiresias,
// simulator/run_sim.py `dlas-gpu`: 3 queues at [3250, 7200] GPU-s, no promotion); blox-las is Blox's Las
// (Agarwal et al., EuroSys 2024, github.com/msr-fiddle/blox: attained service in wall time, 300 s rounds);
// the rules are in policies/README.md.
#include "models/base/random.hpp"
#include "policies/queue/gittins_index.hpp"
#include "tests/support/test_support.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <limits>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::tiresias_variants_tests {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

RunOutcome run_with(const RunInputs& in, const std::string& policy, std::initializer_list<const char*> params) {
    RunConfig c;
    c.policy = policy;
    for (const char* p : params) add_param(c, p);
    c.out.clear();
    return simulate(in, c);
}

}  // namespace

TEST_CASE("Gittins index: the uniform prior and an empirical sample, textbook and Tiresias-compatible E", "[unit]") {
    // Prior uniform on [0, 20]: points (m + 1/2)/50, m = 0..999. At a = 10 the 500 points above average
    // 15, so with an unbounded horizon G = 1/E[S - a | S > a] = 1/5. Continuous uniform on [0, U] with
    // horizon up to a threshold T: G = 1/(U - T/2 - a/2), e.g. a = 0, T = 10: 1/15.
    ServiceDistribution d(20);
    CHECK(d.is_prior());
    CHECK(d.size() == 1000);
    CHECK(d.gittins(10, kInf) == Approx(0.2).epsilon(1e-12));
    CHECK(d.gittins(15, kInf) == Approx(0.4).epsilon(1e-12));  // 250 points, mean excess 2.5
    CHECK(d.gittins(0, 10) == Approx(1.0 / 15).epsilon(1e-12));
    // a = 10, horizon 5: the 250 points in (10, 15] sum to 3125 (raw) or 625 (less a each), and 250 run
    // on past 15 for the whole horizon (1250): textbook 250/1875, Tiresias's E 250/4375.
    CHECK(d.gittins(10, 5) == Approx(250.0 / 1875).epsilon(1e-12));
    CHECK(d.gittins(10, 5, true) == Approx(250.0 / 4375).epsilon(1e-12));
    CHECK(d.gittins(20, kInf) == 0);  // nothing known to run longer

    // The finished jobs replace the prior once 100 have finished: 50 of 1 and 50 of 3.
    for (int i = 0; i < 50; ++i) d.add(3);
    for (int i = 0; i < 49; ++i) d.add(1);
    CHECK_FALSE(d.refresh());  // 99
    d.add(1);
    CHECK(d.refresh());
    CHECK_FALSE(d.is_prior());
    CHECK(d.size() == 100);
    CHECK(d.gittins(0, kInf) == Approx(100.0 / 200).epsilon(1e-12));    // 1/E[S] = 1/2
    CHECK(d.gittins(0, 1) == Approx(50.0 / (50 + 50)).epsilon(1e-12));  // P = 1/2, E[min(S, 1)] = 1
    CHECK(d.gittins(2, kInf) == Approx(1.0).epsilon(1e-12));            // 50 left, each 1 more
    CHECK(d.gittins(3, kInf) == 0);
    // The next batch is due at 100 + 100/8 (rounded up) = 113 finished jobs.
    for (int i = 0; i < 12; ++i) d.add(2);
    CHECK_FALSE(d.refresh());
    d.add(2);
    CHECK(d.refresh());
    CHECK(d.size() == 113);
    CHECK(d.gittins(1, kInf) == Approx(63.0 / (13 * 1 + 50 * 2)).epsilon(1e-12));
}

TEST_CASE("tiresias-gittins: inside the last queue the higher index goes first, where tiresias serves by entry",
          "[schedule][gittins]") {
    // One GPU, thresholds=10, so the prior is uniform on [0, 20] (fewer than 100 jobs finish) and in the
    // last queue G(a) = 2/(20 - a), increasing in a (the uniform's hazard rises).
    //  a (40 s) at 0 runs; t=10 a crosses into Q1. b (40 s, at 5) runs from Q0; t=20 b crosses into Q1:
    //  a and b both have 10 s (G 0.2 each): the incumbent b keeps its GPU. c (5 s) arrives at 25 in Q0
    //  and preempts b (15 s done); c is done at 30.
    //  t=30, Q1: tiresias serves by entry: a (entered at 10) 30-60, b 60-85.
    //  tiresias-gittins: G(b) = 2/(20-15) = 0.4 > G(a) = 0.2: b 30-55 (its index falls to 0 at 20 s of
    //  service, at t=35, but no call happens until it finishes), then a 55-85.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,40\nb,5,1,40\nc,25,1,5\n");
    const auto fifo = run_policy(in, "tiresias", "thresholds=10");
    CHECK(finish_s(fifo, 2) == 30);
    CHECK(finish_s(fifo, 0) == 60);
    CHECK(finish_s(fifo, 1) == 85);
    const auto gittins = run_policy(in, "tiresias-gittins", "thresholds=10");
    CHECK(start_s(gittins, 1) == 10);
    CHECK(finish_s(gittins, 2) == 30);
    CHECK(finish_s(gittins, 1) == 55);
    CHECK(finish_s(gittins, 0) == 85);
    CHECK(gittins.jobs[0].preemptions == 1);  // at 10
    CHECK(gittins.jobs[1].preemptions == 1);  // at 25
    CHECK(gittins.jobs[2].preemptions == 0);

    // A fixed horizon of 3 (delta=3): G(a, 3) = (points in (a, a+3]) / (their excess over a + 3 x the points
    // beyond a+3). At t=5 a (5 s) has 150/(225 + 3 x 600) against b's 150/(225 + 3 x 850): a keeps its GPU;
    // at t=30 G(10) = 150/(225 + 3 x 350) < G(15) = 150/(225 + 3 x 100): b first again, 30-55.
    const auto fixed = run_with(in, "tiresias-gittins", {"thresholds=10", "delta=3"});
    CHECK(finish_s(fixed, 1) == 55);
    CHECK(finish_s(fixed, 0) == 85);
    // gittins_compat: horizon 3250 (beyond the prior's support) and raw services summed, so
    // G(a) = 1/E[S | S > a] falls with a: G(0) = 1/10, G(5) = 1/12.5, G(10) = 1/15, G(15) = 1/17.5.
    //  t=5 b (1/10) displaces a (5 s done); b crosses 10 at 15 into Q1 and a (Q0) runs; a crosses at 20:
    //  a and b tie at 10 s, the incumbent a keeps. c preempts a (15 s done) at 25-30. t=30, Q1: b (1/15)
    //  before a (1/17.5): b 30-60, a 60-85.
    const auto compat = run_with(in, "tiresias-gittins", {"thresholds=10", "gittins_compat=true"});
    CHECK(finish_s(compat, 1) == 60);
    CHECK(finish_s(compat, 0) == 85);
    CHECK(compat.jobs[0].preemptions == 2);  // at 5 and 25
    CHECK(compat.jobs[1].preemptions == 1);  // at 15
    CHECK_THROWS_WITH(run_policy(in, "tiresias-gittins", "delta=-1"),
                      Catch::Contains("policy tiresias-gittins: parameter delta: expected"));
}

TEST_CASE("tiresias-gittins: in Q0 a job that has run ranks ahead of a newcomer under a rising hazard",
          "[schedule][gittins]") {
    // One GPU, thresholds=100 (prior uniform on [0, 200]); in Q0 the horizon is the gap to 100, so
    // G(a) = 1/(150 - a/2). a (30 s) at 0; b (10 s) at 10: G(a at 10 s) = 1/145 > G(b) = 1/150, so a keeps
    // its GPU (as it would under tiresias, running first): a 0-30, b 30-40. Then d (20 s) at 45 and e
    // (5 s) at 45: equal index, submission tie, trace order: d 45-65, e 65-70.
    const auto in =
        inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                         "job_id,submit_time,num_gpus,duration\na,0,1,30\nb,10,1,10\nd,45,1,20\ne,45,1,5\n");
    const auto o = run_policy(in, "tiresias-gittins", "thresholds=100");
    CHECK(finish_s(o, 0) == 30);
    CHECK(start_s(o, 1) == 30);
    CHECK(finish_s(o, 2) == 65);
    CHECK(finish_s(o, 3) == 70);
    for (const auto& j : o.jobs) CHECK(j.preemptions == 0);
}

TEST_CASE("tiresias-sim: three queues at 3250/7200 GPU-s and the simulator's late demotion timer",
          "[schedule][tiresias]") {
    // Two GPUs. w (2 GPUs, 3000 s) at 0 gains 2 GPU-s per second; x (1 GPU, 100 s) arrives at 1000 and
    // waits in Q0 behind the running w.
    //  timer=exact: w crosses 3250 GPU-s at 1625: it falls to Q1, x preempts it: x 1625-1725, w resumes
    //  with 1625 s done: 1725-3100.
    //  tiresias-sim: the call at 1000 sets the wake-up at 1000 + (3250 - 1000 s run)/2 = 2125 instead of
    //  1000 + 3250/2 - 1000 = 1625: x waits until 2125 (w is demoted with 4250 GPU-s): x 2125-2225, w
    //  resumes with 2125 s done: 2225-3100.
    //  tiresias (K=2 at 3600): exact crossing at 1800: x 1800-1900.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\nw,0,2,3000\nx,1000,1,100\n");
    const auto sim = run_policy(in, "tiresias-sim");
    CHECK(start_s(sim, 1) == 2125);
    CHECK(finish_s(sim, 1) == 2225);
    CHECK(finish_s(sim, 0) == 3100);
    CHECK(sim.jobs[0].preemptions == 1);
    const auto exact = run_policy(in, "tiresias-sim", "timer=exact");
    CHECK(start_s(exact, 1) == 1625);
    CHECK(finish_s(exact, 1) == 1725);
    CHECK(finish_s(exact, 0) == 3100);
    const auto paper = run_policy(in, "tiresias");
    CHECK(start_s(paper, 1) == 1800);
    CHECK(finish_s(paper, 1) == 1900);

    SECTION("an arrival before the late timer demotes at once") {
        // y (1 GPU, 10 s) arrives at 1800: w has 3600 >= 3250 GPU-s, so it is demoted there, and x and y
        // (Q0) take both GPUs: y 1800-1810, x 1800-1900; w (1800 s done) resumes at 1900 and ends at 3100.
        const auto in3 =
            inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                             "job_id,submit_time,num_gpus,duration\nw,0,2,3000\nx,1000,1,100\ny,1800,1,10\n");
        const auto o = run_policy(in3, "tiresias-sim");
        CHECK(start_s(o, 1) == 1800);
        CHECK(finish_s(o, 2) == 1810);
        CHECK(finish_s(o, 1) == 1900);
        CHECK(finish_s(o, 0) == 3100);
    }
}

TEST_CASE("blox-las: service in wall seconds, 300 s rounds, against las's GPU-seconds", "[schedule][las]") {
    // Two GPUs; w (2 GPUs, 1200 s) and x (1 GPU, 1200 s) at 0, w first in trace order; rounds of 300 s.
    //  blox-las (wall): t=300 w 300 > x 0: x runs, w (2 GPUs) no longer fits. t=600 tie 300/300: x keeps.
    //   t=900 x 600 > w 300: w runs. t=1200 tie 600/600: w keeps. t=1500 w 900 > x 600: x runs. t=1800
    //   tie: x keeps; x has 1200 s at 2100. w runs its last 300 s: 2100-2400.
    //  las (gpu): t=300 w 600 GPU-s > x 0: x runs. t=600 x 300 < 600, t=900 tie 600: x keeps. t=1200
    //   x 900 > w 600: w runs. t=1500 w 1200 > x 900: x runs; x has 1200 s at 1800. w: 1800-2400.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\nw,0,2,1200\nx,0,1,1200\n");
    const auto blox = run_policy(in, "blox-las");
    CHECK(finish_s(blox, 1) == 2100);
    CHECK(finish_s(blox, 0) == 2400);
    CHECK(blox.jobs[0].preemptions == 2);  // at 300 and 1500
    CHECK(blox.jobs[1].preemptions == 1);  // at 900
    const auto las = run_policy(in, "las");
    CHECK(finish_s(las, 1) == 1800);
    CHECK(finish_s(las, 0) == 2400);
    CHECK(las.jobs[0].preemptions == 2);  // at 300 and 1500
    CHECK(las.jobs[1].preemptions == 1);  // at 1200
}

TEST_CASE("las, tiresias and tiresias-gittins: the incremental walk gives the full walk's schedule",
          "[schedule][las][tiresias]") {
    // 3,000 jobs of 1, 2 or 4 GPUs with exponential durations on 2 nodes x 4 GPUs at a load of about
    // 0.9: many displacements, demotions and skips. Every finish time and preemption count must match.
    std::string csv = "job_id,submit_time,num_gpus,duration\n";
    Rng rng(7, "test/walk");
    double t = 0;
    for (int i = 0; i < 3000; ++i) {
        t += rng.exponential(1.0 / 25);
        const int gpus = 1 << rng.below(3);
        csv += fmt::format("j{},{:.3f},{},{:.3f}\n", i, t, gpus, 1 + rng.exponential(1.0 / 80));
    }
    const auto in = inputs_from_text(homogeneous_cluster_json(2, 4), kUnusedProfile, csv);
    struct Case {
        const char *policy, *param, *more;
    };
    for (const Case& k :
         {Case{"las", "quantum=50", "margin=0"}, Case{"tiresias", "thresholds=100,400", "knob=0"},
          Case{"tiresias-sim", "thresholds=60,200", "knob=2"}, Case{"blox-las", "quantum=60", "margin=1"},
          Case{"tiresias-gittins", "thresholds=100,400", "knob=0"},
          Case{"tiresias-gittins", "thresholds=100", "gittins_compat=true"}}) {
        INFO(k.policy << " " << k.param << " " << k.more);
        const auto fast = run_with(in, k.policy, {k.param, k.more});
        const auto full = run_with(in, k.policy, {k.param, k.more, "full_walk=true"});
        REQUIRE(fast.summary.finished == 3000);
        CHECK(fast.summary.preemptions > 100);
        std::size_t differ = 0;
        for (std::size_t j = 0; j < fast.jobs.size(); ++j)
            differ +=
                fast.jobs[j].finish != full.jobs[j].finish || fast.jobs[j].preemptions != full.jobs[j].preemptions;
        CHECK(differ == 0);
    }
}

}  // namespace dlsim::test::tiresias_variants_tests
