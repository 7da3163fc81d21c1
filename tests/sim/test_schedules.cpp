// Hand-worked schedules: every start and finish time derived on paper (see the comments).
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::schedules_tests {

TEST_CASE("fifo: strict order, head-of-line blocking, simultaneous arrivals and completions", "[schedule][fifo]") {
    // One node with 2 GPUs; jobs without a model run exactly their duration on their GPU count.
    //  t=0   a, b arrive together (trace order): a starts; b needs 2, 1 free -> blocked.
    //  t=1   c arrives behind b: strict FIFO, c may not overtake.
    //  t=10  a done -> b starts (10-15).      t=12  d arrives, blocked.
    //  t=15  b done -> c (15-18), d (15-19).
    //  t=18  c done and e arrives at the same instant: completion first, 1 GPU free, e needs 2 -> waits.
    //  t=19  d done and f arrives: e starts (19-21); f behind it waits.   t=21  f (21-22).
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\n"
                                     "a,0,1,10\nb,0,2,5\nc,1,1,3\nd,12,1,4\ne,18,2,2\nf,19,1,1\n");
    const auto o = run_policy(in, "fifo");
    const double start[] = {0, 10, 15, 15, 19, 21};
    const double finish[] = {10, 15, 18, 19, 21, 22};
    for (std::size_t j = 0; j < 6; ++j) {
        INFO("job " << in.trace.jobs[j].id);
        CHECK(start_s(o, j) == start[j]);
        CHECK(finish_s(o, j) == finish[j]);
        CHECK(o.jobs[j].preemptions == 0);
    }
    CHECK(o.summary.finished == 6);
    CHECK(o.summary.makespan == 22);
    CHECK(o.summary.avg_jct == Approx((10 + 15 + 17 + 7 + 3 + 3) / 6.0));
    CHECK(o.summary.avg_queueing_delay == Approx((0 + 10 + 14 + 3 + 1 + 2) / 6.0));
    // Busy GPU-seconds: a 10 + b 2x5 + c 3 + d 4 + e 2x2 + f 1 = 32, over 2 GPUs x 22 s.
    CHECK(o.summary.gpu_utilization == Approx(32.0 / 44.0));
    CHECK(o.summary.events == 12);
}

TEST_CASE("fifo: multi-node gang waits for enough GPUs across nodes", "[schedule][fifo]") {
    // Two nodes of 2 GPUs. x (1 GPU) and y (3 GPUs, spans both nodes) start at 0; z (2) waits for y.
    //  t=0 x on node 0 (best fit: both nodes have 2 free, lowest id), y takes node 1 (2) + node 0 (1).
    //  t=4 y done -> z (4-6) on a whole node.   x finishes at 5.
    const auto in = inputs_from_text(homogeneous_cluster_json(2, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\nx,0,1,5\ny,0,3,4\nz,0,2,2\n");
    const auto o = run_policy(in, "fifo");
    CHECK(start_s(o, 0) == 0);
    CHECK(finish_s(o, 0) == 5);
    CHECK(start_s(o, 1) == 0);
    CHECK(finish_s(o, 1) == 4);
    CHECK(start_s(o, 2) == 4);
    CHECK(finish_s(o, 2) == 6);
}

TEST_CASE("srtf: preempts only for shorter waiting jobs, fills greedily", "[schedule][srtf]") {
    // One node with 2 GPUs.
    //  t=0  a (10) and b (8) start.
    //  t=2  c (3) arrives; remaining: c 3 < b 6 < a 8 -> c and b hold the 2 GPUs, a is preempted (8 left).
    //  t=3  d (2 GPUs, 1 s) arrives: d 1 < c 2 < b 5 -> d takes both GPUs; c and b are preempted.
    //  t=4  d done: c (2) and b (5) restart: c 4-6, b 4-9.
    //  t=6  c done and e (1) arrives: e 1 < b 3 < a 8 -> e 6-7, b keeps running.
    //  t=7  e done -> a restarts with 8 left: 7-15.   b finishes at 9.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\n"
                                     "a,0,1,10\nb,0,1,8\nc,2,1,3\nd,3,2,1\ne,6,1,1\n");
    const auto o = run_policy(in, "srtf");
    const double start[] = {0, 0, 2, 3, 6};
    const double finish[] = {15, 9, 6, 4, 7};
    const unsigned preempted[] = {1, 1, 1, 0, 0};
    for (std::size_t j = 0; j < 5; ++j) {
        INFO("job " << in.trace.jobs[j].id);
        CHECK(start_s(o, j) == start[j]);
        CHECK(finish_s(o, j) == finish[j]);
        CHECK(o.jobs[j].preemptions == preempted[j]);
    }
    CHECK(o.summary.preemptions == 3);
    CHECK(o.summary.makespan == 15);
    // Calls at the 8 instants with changes (0, 2, 3, 4, 6, 7, 9, 15); the stale completions of the
    // preempted jobs (c at 5, b at 8, a at 10) are dropped without a call.
    CHECK(o.stats.policy_calls == 8);
    CHECK(o.summary.events == 10);
    // Work is conserved: busy GPU-seconds = 10 + 8 + 3 + 2x1 + 1 = 24 over 2 GPUs x 15 s.
    CHECK(o.summary.gpu_utilization == Approx(24.0 / 30.0));
}

TEST_CASE("srtf: a newcomer takes a free slow GPU before it displaces anyone", "[schedule][srtf]") {
    // One fast GPU (3 it/s) and one slow GPU (1 it/s). L needs 300 it (100 s on fast), S 6 it (2 s on fast).
    //  t=0  L starts on fast.   t=1  S arrives: the slow GPU is free, so S runs there (6 s): 1-7. Taking
    //  L's fast GPU would gain S 4 s for two moves of L (out and back).
    const auto in = inputs_from_text(
        R"({"gpu_types": {"fast": {}, "slow": {}},
            "node_types": {"f": {"gpu_type": "fast", "gpus": 1}, "s": {"gpu_type": "slow", "gpus": 1}},
            "racks": [{"node_type": "f", "nodes": 1}, {"node_type": "s", "nodes": 1}]})",
        R"({"models": {"m": {"throughput": {"fast": 3, "slow": 1}}}})",
        "job_id,submit_time,num_gpus,duration,model,gpu_type\nL,0,1,100,m,fast\nS,1,1,2,m,fast\n");
    const auto o = run_policy(in, "srtf");
    CHECK(finish_s(o, 0) == 100);
    CHECK(finish_s(o, 1) == 7);
    CHECK(o.summary.preemptions == 0);
}

TEST_CASE("srtf: running jobs are re-placed: over to a slow type, back to the fast one when it frees",
          "[schedule][srtf]") {
    // One fast GPU (3 it/s) and one slow GPU (1 it/s). L needs 300 it (100 s on fast), S 6 it (2 s on fast)
    // and may run on fast only.
    //  t=0  L starts on fast.
    //  t=1  S arrives: no free GPU it may use; S 2 s < L 99 s by more than the margin, so S takes fast.
    //       migrate=true: L moves to the free slow GPU (297 it left); migrate=false: L is preempted and
    //       the slow GPU idles.
    //  t=3  S done. L moves back to fast with 295 it left: finishes at 3 + 295/3 = 101.333333 s.
    //       Without migration L restarts on fast with 297 it: 3 + 99 = 102 s.
    const auto in = inputs_from_text(
        R"({"gpu_types": {"fast": {}, "slow": {}},
            "node_types": {"f": {"gpu_type": "fast", "gpus": 1}, "s": {"gpu_type": "slow", "gpus": 1}},
            "racks": [{"node_type": "f", "nodes": 1}, {"node_type": "s", "nodes": 1}]})",
        R"({"models": {"m": {"throughput": {"fast": 3, "slow": 1}}}})",
        "job_id,submit_time,num_gpus,duration,model,gpu_type,allowed_gpu_types\n"
        "L,0,1,100,m,fast,\nS,1,1,2,m,fast,fast\n");
    const auto moved = run_policy(in, "srtf");
    CHECK(finish_s(moved, 0) == 101.333333);
    CHECK(moved.jobs[0].preemptions == 2);  // each move is a preemption and a restart
    CHECK(moved.jobs[0].migrations == 2);
    CHECK(finish_s(moved, 1) == 3);
    const auto kept = run_policy(in, "srtf", "migrate=false");
    CHECK(finish_s(kept, 0) == 102);
    CHECK(kept.jobs[0].preemptions == 1);
    CHECK(kept.jobs[0].migrations == 0);
    CHECK(finish_s(kept, 1) == 3);
}

TEST_CASE("srtf: a gang displaces running jobs only when the exchange gains", "[schedule][srtf]") {
    // One node with 2 GPUs. a and b (1 GPU, 10 s) start at 0. c (2 GPUs) arrives at 1, when a and b have
    // 9 s left each. Displacing both delays each by c's run time; c waits at most the longest victim's 9 s.
    //  c = 3 s: 9 > (3 + 0.001) + (3 + 0.001): c runs 1-4, a and b resume with 9 s: 4-13 (JCTs 13, 13, 3;
    //  waiting would give 10, 10, 12).
    //  c = 5 s: 9 < 2 x 5.001: no displacement (which would give 15, 15, 5 against 10, 10, 14): c 10-15.
    //  Each victim alone is longer than c in both cases, so a per-job comparison would displace both times.
    for (const double c : {3.0, 5.0}) {
        INFO("c = " << c);
        const auto in = inputs_from_text(
            homogeneous_cluster_json(1, 2), kUnusedProfile,
            "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,0,1,10\nc,1,2," + std::to_string(c) + "\n");
        const auto o = run_policy(in, "srtf");
        const bool displaced = c == 3.0;
        CHECK(start_s(o, 2) == (displaced ? 1 : 10));
        CHECK(finish_s(o, 2) == (displaced ? 4 : 15));
        CHECK(finish_s(o, 0) == (displaced ? 13 : 10));
        CHECK(finish_s(o, 1) == (displaced ? 13 : 10));
        CHECK(o.summary.preemptions == (displaced ? 2u : 0u));
    }
}

TEST_CASE("srtf: a move to a faster type happens only when it gains more than the restart cost plus margin",
          "[schedule][srtf]") {
    // Types fast (1 GPU, 2 it/s) and slow (1 GPU, 1 it/s); model m; durations on fast. a = 10 it (5 s),
    // b = 13 it (6.5 s), both at 0: a (shorter) takes fast, b the free slow GPU. At 5 a is done and b has
    // 8 it left: 8 s where it is, 4 s on fast, a gain of 4 s.
    //  restart 3 s: 4 > 3 + 0.001 -> b moves: 5 + 3 (restart) + 4 = 12, one migration.
    //  restart 4 s: 4 < 4 + 0.001 -> b stays: 5 + 8 = 13.   restart 5 s: stays, 13.
    const std::string cluster = R"({"gpu_types": {"fast": {}, "slow": {}},
        "node_types": {"nf": {"gpu_type": "fast", "gpus": 1}, "ns": {"gpu_type": "slow", "gpus": 1}},
        "racks": [{"node_type": "nf", "nodes": 1}, {"node_type": "ns", "nodes": 1}]})";
    const auto in = inputs_from_text(cluster, R"({"models": {"m": {"throughput": {"fast": 2, "slow": 1}}}})",
                                     "job_id,submit_time,num_gpus,duration,model,gpu_type\n"
                                     "a,0,1,5,m,fast\nb,0,1,6.5,m,fast\n");
    for (const double restart : {3.0, 4.0, 5.0}) {
        INFO("restart cost " << restart);
        RunConfig c;
        c.policy = "srtf";
        c.out.clear();
        c.restart.restart_cost = restart;
        const auto o = simulate(in, c);
        CHECK(finish_s(o, 0) == 5);
        CHECK(finish_s(o, 1) == (restart == 3.0 ? 12 : 13));
        CHECK(o.jobs[1].migrations == (restart == 3.0 ? 1u : 0u));
        CHECK(o.summary.preemptions == (restart == 3.0 ? 1u : 0u));
    }
}

TEST_CASE("srtf tick and the helios-srtf preset: decisions only at multiples of the tick (Helios's 1 s loop)",
          "[schedule][srtf]") {
    // One GPU. a (2 s) arrives at 0.5, b (1 s) at 0.7.
    //  At every change: a 0.5-0.7; b (1 s) < a (1.8 s left) displaces it: b 0.7-1.7, a 1.7-3.5.
    //  tick=1: both wait for t=1, where b (1 s) < a (2 s): b 1-2; a 2-4. No preemption.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0.5,1,2\nb,0.7,1,1\n");
    const auto events = run_policy(in, "srtf");
    CHECK(finish_s(events, 1) == 1.7);
    CHECK(finish_s(events, 0) == 3.5);
    CHECK(events.summary.preemptions == 1);
    const auto ticked = run_policy(in, "srtf", "tick=1");
    CHECK(start_s(ticked, 1) == 1);
    CHECK(finish_s(ticked, 1) == 2);
    CHECK(start_s(ticked, 0) == 2);
    CHECK(finish_s(ticked, 0) == 4);
    CHECK(ticked.summary.preemptions == 0);
    // The helios-srtf preset decides every second as Helios's loop does: the ticked schedule.
    const auto helios = run_policy(in, "helios-srtf");
    CHECK(finish_s(helios, 1) == 2);
    CHECK(finish_s(helios, 0) == 4);
    CHECK(helios.summary.preemptions == 0);
    CHECK_THROWS_WITH(run_policy(in, "srsf", "tick=-1"),
                      Catch::Contains("policy srsf: parameter tick: expected seconds"));
    CHECK_THROWS_WITH(run_policy(in, "srtf", "margin=-1"),
                      Catch::Contains("policy srtf: parameter margin: expected seconds in [0, 1e9], got -1"));
}

TEST_CASE("helios-srtf with Helios's restart charges: a displacement must gain the 7 s checkpoint",
          "[schedule][srtf]") {
    // One GPU, restart_model=helios (7 s for a 1-GPU job). b (2 s) arrives at 3.
    //  a = 20 s: 17 s left > 2 + 7 + 0.001 -> b displaces it: b 3-5; a restarts at 5, holds the GPU 7 s
    //  without progress, then runs 17 s: 29. 7 GPU-seconds lost.
    //  a = 10 s: 7 s left < 9.001 -> no displacement: a 0-10, b 10-12.
    for (const double a : {20.0, 10.0}) {
        INFO("a = " << a);
        const auto in =
            inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                             "job_id,submit_time,num_gpus,duration\na,0,1," + std::to_string(a) + "\nb,3,1,2\n");
        RunConfig c;
        c.policy = "helios-srtf";
        c.out.clear();
        c.restart.kind = RestartSpec::Kind::Helios;
        const auto o = simulate(in, c);
        const bool displaced = a == 20.0;
        CHECK(finish_s(o, 1) == (displaced ? 5 : 12));
        CHECK(finish_s(o, 0) == (displaced ? 29 : 10));
        CHECK(o.summary.preemptions == (displaced ? 1u : 0u));
        CHECK(o.summary.restart_gpu_seconds == (displaced ? 7.0 : 0.0));
    }
}

TEST_CASE("srtf: ties go to the earlier arrival, then trace order; equal jobs never thrash", "[schedule][srtf]") {
    // One GPU; p and q both need 4 s and arrive together: p (first in the trace) runs 0-4, q 4-8.
    // r arrives at 2 needing 2 s: equal to p's remaining 2 s -> the tie goes to p (earlier arrival).
    // At 4 r (2) beats q (4): r 4-6, q 6-10. No preemption at all.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\np,0,1,4\nq,0,1,4\nr,2,1,2\n");
    const auto o = run_policy(in, "srtf");
    CHECK(start_s(o, 0) == 0);
    CHECK(finish_s(o, 0) == 4);
    CHECK(start_s(o, 2) == 4);
    CHECK(finish_s(o, 2) == 6);
    CHECK(start_s(o, 1) == 6);
    CHECK(finish_s(o, 1) == 10);
    CHECK(o.summary.preemptions == 0);
}

TEST_CASE("restart cost: a restarted job holds its GPUs without progress", "[schedule][srtf]") {
    // One GPU. a (10) starts at 0; b (3) arrives at 2 and preempts a (8 left); b 2-5.
    // a restarts at 5, pays 1.5 s, then runs 8 s: finishes at 14.5 (13 without the cost).
    const auto text = "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,2,1,3\n";
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile, text);
    RunConfig c;
    c.policy = "srtf";
    c.out.clear();
    CHECK(finish_s(simulate(in, c), 0) == 13);
    c.restart.restart_cost = 1.5;
    const auto o = simulate(in, c);
    CHECK(finish_s(o, 0) == 14.5);
    CHECK(finish_s(o, 1) == 5);
    // The restart holds the GPU: busy 10 + 3 + 1.5 over 14.5 s.
    CHECK(o.summary.gpu_utilization == Approx(14.5 / 14.5));
}

TEST_CASE("type_order: fastest type with room, or cluster order", "[schedule][fifo]") {
    // Cluster order: slow, then fast (1 GPU each). Model m runs 3 it/s on fast, 1 on slow.
    // Durations are on the reference type (fast): 10 s = 30 iterations -> 30 s on slow.
    const std::string cluster = R"({"reference_gpu_type": "fast",
        "gpu_types": {"slow": {}, "fast": {}},
        "node_types": {"s": {"gpu_type": "slow", "gpus": 1}, "f": {"gpu_type": "fast", "gpus": 1}},
        "racks": [{"node_type": "s", "nodes": 1}, {"node_type": "f", "nodes": 1}]})";
    const std::string profile = R"({"models": {"m": {"throughput": {"fast": 3, "slow": 1}}}})";
    const auto in =
        inputs_from_text(cluster, profile, "job_id,submit_time,num_gpus,duration,model\na,0,1,10,m\nb,0,1,10,m\n");
    const auto fastest = run_policy(in, "fifo");
    CHECK(finish_s(fastest, 0) == 10);  // a on fast
    CHECK(finish_s(fastest, 1) == 30);  // b on slow
    CHECK(in.cluster.gpu_types[fastest.job_gpu_type[0]].name == "fast");
    const auto spec = run_policy(in, "fifo", "type_order=spec");
    CHECK(finish_s(spec, 0) == 30);  // a on slow (first in cluster order)
    CHECK(finish_s(spec, 1) == 10);
    CHECK(in.cluster.gpu_types[spec.job_gpu_type[0]].name == "slow");
}

TEST_CASE("srtf: a preempted job waits with its remaining work, not its total", "[schedule][srtf]") {
    // One GPU.
    //  t=0  a (10) starts.
    //  t=1  b (3) arrives: b 3 < a 9 -> a is preempted with 9 left (of 10).
    //  t=2  c (9.5) arrives: b runs on (2 left); waiting: a 9 < c 9.5.
    //  t=4  b done: a (9 left) restarts: 4-13; then c: 13-22.5. (Ranked by total work, c 9.5 < a 10
    //       would run first: c 4-13.5, a 13.5-22.5.)
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,1,1,3\nc,2,1,9.5\n");
    for (const char* migrate : {"migrate=true", "migrate=false"}) {
        INFO(migrate);
        const auto o = run_policy(in, "srtf", migrate);
        CHECK(finish_s(o, 0) == 13);
        CHECK(finish_s(o, 1) == 4);
        CHECK(start_s(o, 2) == 13);
        CHECK(finish_s(o, 2) == 22.5);
        CHECK(o.summary.preemptions == 1);
    }
}

TEST_CASE("srtf without migration: a running job keeps a type that has exactly its GPUs left", "[schedule][srtf]") {
    // One node with 2 GPUs; migrate=false.
    //  t=0  a (2 GPUs, 5 s) starts.
    //  t=1  b (2 GPUs, 10 s) arrives: a (4 left) is first in the walk and its type has exactly 2 GPUs
    //       unclaimed: it keeps them. b waits: 5-15. (Were "exactly enough" not enough, a would be
    //       preempted for a longer job.)
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,2,5\nb,1,2,10\n");
    const auto o = run_policy(in, "srtf", "migrate=false");
    CHECK(finish_s(o, 0) == 5);
    CHECK(start_s(o, 1) == 5);
    CHECK(finish_s(o, 1) == 15);
    CHECK(o.summary.preemptions == 0);
}

TEST_CASE("srtf move_up: idle GPUs only, or ahead of the waiting jobs", "[schedule][srtf]") {
    // Types fast (1 GPU, 2 it/s) and slow (1 GPU, 1 it/s). a = 2 it (1 s best case), b = 8 it (4 s),
    // c = 40 it (20 s), all at 0: a takes fast, b the free slow GPU, c waits.
    //  t=1  a done; b has 7 it left on slow (3.5 s best case, ahead of c's 20).
    //   idle (default): c takes the free fast GPU: 1 + 20 = 21; b stays: 1 + 7 = 8. No move.
    //   ahead: b moves up first: 1 + 3.5 = 4.5; c starts on the slow GPU it left. At 4.5 the fast GPU is
    //   idle and c (36.5 it left: 36.5 s there, 18.25 s on fast) moves up: 4.5 + 18.25 = 22.75.
    const std::string cluster = R"({"gpu_types": {"fast": {}, "slow": {}},
        "node_types": {"nf": {"gpu_type": "fast", "gpus": 1}, "ns": {"gpu_type": "slow", "gpus": 1}},
        "racks": [{"node_type": "nf", "nodes": 1}, {"node_type": "ns", "nodes": 1}]})";
    const auto in = inputs_from_text(cluster, R"({"models": {"m": {"throughput": {"fast": 2, "slow": 1}}}})",
                                     "job_id,submit_time,num_gpus,duration,model,gpu_type\n"
                                     "a,0,1,1,m,fast\nb,0,1,4,m,fast\nc,0,1,20,m,fast\n");
    const auto idle = run_policy(in, "srtf");
    CHECK(finish_s(idle, 0) == 1);
    CHECK(finish_s(idle, 1) == 8);
    CHECK(finish_s(idle, 2) == 21);
    CHECK(idle.summary.migrations == 0);
    const auto ahead = run_policy(in, "srtf", "move_up=ahead");
    CHECK(finish_s(ahead, 1) == 4.5);
    CHECK(start_s(ahead, 2) == 1);
    CHECK(finish_s(ahead, 2) == 22.75);
    CHECK(ahead.jobs[1].migrations == 1);
    CHECK(ahead.jobs[2].migrations == 1);
}

TEST_CASE("srtf: a move to a faster type counts as a migration", "[schedule][srtf]") {
    // Types fast (1 GPU, rate 2) and slow (1 GPU, rate 1); model m. Work is duration x rate on the job's
    // original type (fast): a = 20 it, b = 4 it, and b may run on fast only.
    //  t=0  a starts on fast (10 s left).   t=1: b arrives (2 s on fast) -> b takes fast; a (18 it left)
    //  moves to the free slow GPU (18 s) instead of waiting (a preemption that is also a migration).
    //  t=3  b done: a (16 it left on slow) moves back to fast: 8 s -> 11.
    const std::string cluster = R"({"gpu_types": {"fast": {}, "slow": {}},
        "node_types": {"nf": {"gpu_type": "fast", "gpus": 1}, "ns": {"gpu_type": "slow", "gpus": 1}},
        "racks": [{"node_type": "nf", "nodes": 1}, {"node_type": "ns", "nodes": 1}]})";
    const auto in = inputs_from_text(cluster, R"({"models": {"m": {"throughput": {"fast": 2, "slow": 1}}}})",
                                     "job_id,submit_time,num_gpus,duration,model,gpu_type,allowed_gpu_types\n"
                                     "a,0,1,10,m,fast,\nb,1,1,2,m,fast,fast\n");
    const auto o = run_policy(in, "srtf");
    CHECK(finish_s(o, 1) == 3);
    CHECK(finish_s(o, 0) == 11);
    CHECK(o.jobs[0].preemptions == 2);
    CHECK(o.jobs[0].migrations == 2);
    CHECK(o.summary.migrations == 2);
}

TEST_CASE("sjf: shortest estimated duration first, never preempts; key=gpus ranks by gang size", "[schedule][sjf]") {
    // One node with 2 GPUs; jobs without a model run exactly their duration.
    //  t=0  a (2 GPUs, 10 s) starts alone.   t=1 b (1 GPU, 5 s), c (1 GPU, 3 s);  t=2 d (2 GPUs, 1 s): all wait.
    //  key=duration: t=10 d (1 s) first: 10-11; then c 11-14 and b 11-16.
    //  key=gpus: t=10 b and c (1 GPU; arrival ties to trace order) 10-15 and 10-13; d waits for 2: 15-16.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,1,1,5\nc,1,1,3\nd,2,2,1\n");
    const auto by_duration = run_policy(in, "sjf");
    const double start_d[] = {0, 11, 11, 10}, finish_d[] = {10, 16, 14, 11};
    const auto by_gpus = run_policy(in, "sjf", "key=gpus");
    const double start_g[] = {0, 10, 10, 15}, finish_g[] = {10, 15, 13, 16};
    for (std::size_t j = 0; j < 4; ++j) {
        INFO("job " << in.trace.jobs[j].id);
        CHECK(start_s(by_duration, j) == start_d[j]);
        CHECK(finish_s(by_duration, j) == finish_d[j]);
        CHECK(start_s(by_gpus, j) == start_g[j]);
        CHECK(finish_s(by_gpus, j) == finish_g[j]);
        CHECK(by_duration.jobs[j].preemptions == 0);
        CHECK(by_gpus.jobs[j].preemptions == 0);
    }
    CHECK(by_duration.summary.avg_jct == Approx((10 + 15 + 13 + 9) / 4.0));
    // key=gpu_time ranks d (2 × 1 = 2) before c (3) and b (5): the same schedule as key=duration here.
    const auto by_gpu_time = run_policy(in, "sjf", "key=gpu_time");
    for (std::size_t j = 0; j < 4; ++j) CHECK(finish_s(by_gpu_time, j) == finish_d[j]);
}

TEST_CASE("sjf: strict stops at the first job that does not fit; strict=false lets smaller ones pass",
          "[schedule][sjf]") {
    // One node with 2 GPUs. a (1 GPU, 10 s) at 0; b (2 GPUs, 2 s) at 1 is the shortest but needs both;
    // c (1 GPU, 5 s) at 2.
    //  strict: b heads the queue and blocks c: t=10 b 10-12, then c 12-17.
    //  strict=false: c starts at once 2-7; b waits for both GPUs: 10-12.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,1,2,2\nc,2,1,5\n");
    const auto strict = run_policy(in, "sjf");
    CHECK(start_s(strict, 1) == 10);
    CHECK(finish_s(strict, 1) == 12);
    CHECK(start_s(strict, 2) == 12);
    CHECK(finish_s(strict, 2) == 17);
    const auto skip = run_policy(in, "sjf", "strict=false");
    CHECK(start_s(skip, 2) == 2);
    CHECK(finish_s(skip, 2) == 7);
    CHECK(start_s(skip, 1) == 10);
    CHECK(finish_s(skip, 1) == 12);
}

TEST_CASE("sjf: durations are estimated on the reference type, and the job runs on the fastest free one",
          "[schedule][sjf]") {
    // Two types, one 1-GPU node each, "fast" first in cluster order; the reference type is "slow". Model m
    // runs 1 it/s on slow and 4 on fast, model n 1 it/s on both. Durations on slow: x (m) 8 s = 8
    // iterations, y (n) 4 s = 4 iterations. Both arrive at 0: y's estimate (4 s) beats x's (8 s), so y
    // picks first and takes its fastest free type (a tie at 1 it/s: cluster order, fast): 0-4. x gets
    // slow: 8 iterations at 1 it/s, 0-8 (ranked on the reference type, not on the fast type it missed).
    const std::string cluster = R"({"gpu_types": {"fast": {}, "slow": {}}, "reference_gpu_type": "slow",
        "node_types": {"f": {"gpu_type": "fast", "gpus": 1}, "s": {"gpu_type": "slow", "gpus": 1}},
        "racks": [{"node_type": "f", "nodes": 1}, {"node_type": "s", "nodes": 1}]})";
    const std::string profile = R"({"models": {"m": {"throughput": {"fast": 4, "slow": 1}},
        "n": {"throughput": {"fast": 1, "slow": 1}}}})";
    const auto in = inputs_from_text(
        cluster, profile, "job_id,submit_time,num_gpus,duration,model,gpu_type\nx,0,1,8,m,slow\ny,0,1,4,n,slow\n");
    const auto o = run_policy(in, "sjf");
    CHECK(finish_s(o, 1) == 4);  // y on fast at 1 it/s: 4 iterations
    CHECK(finish_s(o, 0) == 8);  // x on slow at 1 it/s: 8 iterations
}

TEST_CASE("las: a newcomer with less service preempts; equal jobs alternate once per quantum", "[schedule][las]") {
    SECTION("an arrival displaces the running job at once") {
        // One GPU. a (30 s) at 0; b (10 s) at 5 has no service (0 < 5): a is preempted, b runs 5-15,
        // then a resumes with its 5 s: 15-40.
        const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                         "job_id,submit_time,num_gpus,duration\na,0,1,30\nb,5,1,10\n");
        const auto o = run_policy(in, "las", "quantum=10");
        CHECK(start_s(o, 1) == 5);
        CHECK(finish_s(o, 1) == 15);
        CHECK(finish_s(o, 0) == 40);
        CHECK(o.jobs[0].preemptions == 1);
        CHECK(o.jobs[1].preemptions == 0);
    }
    SECTION("two equal jobs, quantum 5 s: ties keep the incumbent") {
        // One GPU, a and b (20 s each) at 0. t=0 a (trace order). t=5 a has 5 > 0: b runs. t=10 tie 5/5: b
        // keeps. t=15 b 10 > a 5: a runs. t=20 tie: a keeps. t=25 a 15 > b 10: b runs. t=30 tie: b keeps;
        // b reaches 20 s at 35. a then needs 5 s more: 35-40.
        const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                         "job_id,submit_time,num_gpus,duration\na,0,1,20\nb,0,1,20\n");
        const auto o = run_policy(in, "las", "quantum=5");
        CHECK(finish_s(o, 1) == 35);
        CHECK(finish_s(o, 0) == 40);
        CHECK(o.jobs[0].preemptions == 2);  // at 5 and 25
        CHECK(o.jobs[1].preemptions == 1);  // at 15
    }
    SECTION("GPU service: a 2-GPU gang accrues service twice as fast; wall service does not") {
        // Two GPUs, quantum 4 s; w (2 GPUs, 12 s) and x (1 GPU, 12 s) at 0; w first in trace order.
        //  gpu: t=4 w has 8 GPU-s, x 0: x runs (w no longer fits, one GPU idles). t=8 x 4 < w 8: x keeps.
        //       t=12 tie 8/8: x keeps; x done at 16; w resumes with 4 s done: 16-24.
        //  wall: t=4 w 4 > x 0: x runs. t=8 tie 4/4: x keeps. t=12 x 8 > w 4: w runs (x preempted), t=16
        //       tie 8/8: w keeps; w done at 20; x resumes with 8 s done: 20-24.
        const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                         "job_id,submit_time,num_gpus,duration\nw,0,2,12\nx,0,1,12\n");
        const auto gpu = run_policy(in, "las", "quantum=4");
        CHECK(finish_s(gpu, 1) == 16);
        CHECK(finish_s(gpu, 0) == 24);
        CHECK(gpu.jobs[0].preemptions == 1);
        CHECK(gpu.jobs[1].preemptions == 0);
        RunConfig c;
        c.policy = "las";
        add_param(c, "quantum=4");
        add_param(c, "service=wall");
        const auto wall = simulate(in, c);
        CHECK(finish_s(wall, 0) == 20);
        CHECK(finish_s(wall, 1) == 24);
        CHECK(wall.jobs[0].preemptions == 1);
        CHECK(wall.jobs[1].preemptions == 1);
    }
}

TEST_CASE("las: a displacement must gain more than the restart cost", "[schedule][las]") {
    // One GPU, restart cost 8 s. a (30 s) at 0; b (10 s) at 5: b's service (0) is lower than a's (5) by 5 s,
    // less than a's restart cost plus the margin (8.001): a keeps its GPU. At the next quantum (t=15)
    // a has 15 > 0 + 8.001: b displaces it, 15-25 (b's first start pays no restart), and a restarts at 25
    // with 15 s done: 8 s without progress, then 15 s: 25-48.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,30\nb,5,1,10\n");
    RunConfig c;
    c.policy = "las";
    add_param(c, "quantum=10");
    c.restart.restart_cost = 8;
    const auto o = simulate(in, c);
    CHECK(start_s(o, 1) == 15);
    CHECK(finish_s(o, 1) == 25);
    CHECK(finish_s(o, 0) == 48);
    CHECK(o.jobs[0].preemptions == 1);
}

TEST_CASE("tiresias: demotion to the next queue, running jobs ahead within a queue", "[schedule][tiresias]") {
    // One GPU, two queues split at 10 GPU-s. a (30 s) at 0; b (15 s) at 5 joins Q0 behind the running a.
    //  t=10 a crosses 10 GPU-s: to Q1; b (Q0) takes the GPU, a is preempted.
    //  t=20 b crosses 10: to Q1 behind a, but running jobs come first in a queue: b keeps its GPU, done at 25.
    //  a resumes with 10 s done: 25-45.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,30\nb,5,1,15\n");
    const auto o = run_policy(in, "tiresias", "thresholds=10");
    CHECK(start_s(o, 1) == 10);
    CHECK(finish_s(o, 1) == 25);
    CHECK(finish_s(o, 0) == 45);
    CHECK(o.jobs[0].preemptions == 1);
    CHECK(o.jobs[1].preemptions == 0);
}

TEST_CASE("tiresias: starvation promotion (knob) against starvation without it", "[schedule][tiresias]") {
    // One GPU, queues split at 10 GPU-s. a (30 s) at 0, b (100 s) at 10.
    //  knob=0: t=10 a to Q1, b runs; t=20 b to Q1 but keeps running (running first): b 10-110, a 110-130.
    //  knob=1 (promote once waited as long as run since the last promotion):
    //   t=10 a to Q1 (ran 10 from 0), b runs.  t=20 b to Q1; a waited 10 >= 10: promoted to Q0, runs.
    //   t=30 a to Q1 (10 since promotion); b (ran 10 from 10, waited 10) promoted: runs.
    //   t=40 b to Q1; a (ran 10 from 20, waited 10) promoted: runs its last 10 s, done at 50.
    //   t=50 b promoted again, runs its last 80 s alone: done at 130.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,30\nb,10,1,100\n");
    const auto starve = run_policy(in, "tiresias", "thresholds=10");
    CHECK(finish_s(starve, 1) == 110);
    CHECK(finish_s(starve, 0) == 130);
    CHECK(starve.jobs[0].preemptions == 1);
    RunConfig c;
    c.policy = "tiresias";
    add_param(c, "thresholds=10");
    add_param(c, "knob=1");
    const auto promote = simulate(in, c);
    CHECK(finish_s(promote, 0) == 50);
    CHECK(finish_s(promote, 1) == 130);
    CHECK(promote.jobs[0].preemptions == 2);
    CHECK(promote.jobs[1].preemptions == 2);
}

TEST_CASE("tiresias: GPU service sinks wide gangs sooner; three queues", "[schedule][tiresias]") {
    // Two GPUs, thresholds 10 and 40 GPU-s (K = 3). w (2 GPUs, 30 s) at 0 accrues 2 GPU-s per second: at
    // t=5 it crosses 10 into Q1 (alone, it keeps running). x (1 GPU, 30 s) arrives at 6 in Q0 and goes
    // first; w no longer fits and is preempted with 6 s done. x crosses 10 GPU-s at 16 into Q1 behind w but
    // keeps running (running first within a queue); it would reach 40 at 46 but finishes at 36. w then runs
    // its last 24 s: 36-60.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\nw,0,2,30\nx,6,1,30\n");
    const auto o = run_policy(in, "tiresias", "thresholds=10,40");
    CHECK(finish_s(o, 1) == 36);
    CHECK(finish_s(o, 0) == 60);
    CHECK(o.jobs[0].preemptions == 1);
    // Thresholds must be positive and ascending; the knob non-negative.
    CHECK_THROWS_WITH(run_policy(in, "tiresias", "thresholds=40,10"),
                      Catch::Contains("parameter thresholds: expected positive numbers in ascending order"));
    CHECK_THROWS_WITH(run_policy(in, "tiresias", "thresholds=10;40"),
                      Catch::Contains("parameter thresholds: expected a comma-separated list of numbers, got '10;40'"));
    CHECK_THROWS_WITH(run_policy(in, "tiresias", "knob=-1"), Catch::Contains("parameter knob: expected"));
}

TEST_CASE("srsf: remaining time x GPUs, so a wide job yields to a narrow one that srtf would make wait",
          "[schedule][srtf]") {
    // One node with 2 GPUs. a (2 GPUs, 10 s) at 0; b (1 GPU, 15 s) at 1.
    //  srtf: a's 9 s left beat b's 15: b waits, 10-25.
    //  srsf: a's 9 × 2 = 18 GPU-s lose to b's 15: a is preempted at 1 (b takes one GPU, a needs both), b runs
    //  1-16, a resumes with 9 s left: 16-25.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,1,1,15\n");
    const auto srtf = run_policy(in, "srtf");
    CHECK(finish_s(srtf, 0) == 10);
    CHECK(finish_s(srtf, 1) == 25);
    const auto srsf = run_policy(in, "srsf");
    CHECK(finish_s(srsf, 1) == 16);
    CHECK(finish_s(srsf, 0) == 25);
    CHECK(srsf.jobs[0].preemptions == 1);
    CHECK(srsf.jobs[0].migrations == 0);
}

TEST_CASE("fifo backfill=easy: a later job starts only if it does not delay the head's reservation",
          "[schedule][fifo]") {
    // One node with 4 GPUs. a (2 GPUs, 10 s) at 0 runs 0-10. b (4 GPUs, 5 s) at 1 is the head: it reserves
    // t=10 (a's end), with 2 + 2 - 4 = 0 GPUs to spare.
    //  c (2 GPUs, 8 s) at 2 ends by 10: backfilled 2-10. d (1 GPU, 20 s) at 3: no GPU free. t=10 b 10-15,
    //  then d 15-35.  Without backfill: b 10-15, then c 15-23 and d 15-35.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,1,4,5\nc,2,2,8\nd,3,1,20\n");
    const auto easy = run_policy(in, "fifo", "backfill=easy");
    CHECK(start_s(easy, 2) == 2);
    CHECK(finish_s(easy, 2) == 10);
    CHECK(start_s(easy, 1) == 10);  // the head is not delayed
    CHECK(finish_s(easy, 3) == 35);
    const auto plain = run_policy(in, "fifo");
    CHECK(start_s(plain, 2) == 15);
    CHECK(start_s(plain, 1) == 10);
    // c' (2 GPUs, 9 s) would end at 11, after the reservation, and no GPU is spare then: it waits.
    const auto late = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                                       "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,1,4,5\nc,2,2,9\n");
    const auto no = run_policy(late, "fifo", "backfill=easy");
    CHECK(start_s(no, 2) == 15);
    CHECK(start_s(no, 1) == 10);
    // Estimates twice the truth: a is estimated to end at 20, so c' (estimated 18 s, from 2 to 20) fits the
    // reservation and is backfilled; it really ends at 11, so the head starts at 11, one second after its
    // oracle reservation: EASY guarantees the reservation only as well as the estimates.
    RunConfig c;
    c.policy = "fifo";
    add_param(c, "backfill=easy");
    add_param(c, "estimate_factor=2");
    const auto over = simulate(late, c);
    CHECK(start_s(over, 2) == 2);
    CHECK(start_s(over, 1) == 11);
    CHECK_THROWS_WITH(run_policy(in, "fifo", "estimate_factor=0.5"), Catch::Contains("parameter estimate_factor"));
}

}  // namespace dlsim::test::schedules_tests
