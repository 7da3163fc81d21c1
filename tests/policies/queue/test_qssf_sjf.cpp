// Hand-worked schedules of qssf, the sjf variants and their peer presets (helios-sjf, tiresias-sjf,
// helios-qssf), EASY backfilling with noisy estimates, and the noise model they share.
#include "policies/queue/runtime_estimate.hpp"
#include "tests/support/schedule_checks.hpp"

#include <catch2/catch.hpp>

#include <array>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::qssf_sjf_tests {

namespace {

// Three models that run 1 iteration/s on the one type, so a job's run time is its trace duration.
const char* kThreeModels = R"({"models": {"m1": {"throughput": {"g": 1}}, "m2": {"throughput": {"g": 1}},
    "m3": {"throughput": {"g": 1}}}})";

}  // namespace

TEST_CASE("estimate noise: Helios's error bands, per job and order-free, positive factor mirrors in log scale",
          "[unit]") {
    // The draws of seed 0 (pinned: a change in the noise model shows here first).
    const EstimateNoise noise(0);
    CHECK(noise.error(0) == Approx(6.123963).margin(1e-6));
    CHECK(noise.error(2) == Approx(-0.051613).margin(1e-6));
    CHECK(noise.error(2) == noise.error(2));  // a job's draw does not depend on how often it is asked
    CHECK(noise.positive_factor(0) == Approx(1 + 6.123963).margin(1e-6));
    CHECK(noise.positive_factor(2) == Approx(1 / 1.051613).margin(1e-6));
    CHECK(EstimateNoise(1).error(0) != noise.error(0));
    // Band frequencies over 200,000 jobs: 0.1, 0.4, 0.2, 0.2, 0.1 by |u|, half of each negative. The
    // standard error of a frequency is at most 0.0011; the tolerance 0.005 is over 4 of them.
    const int n = 200000;
    std::array<int, 5> band{};
    int negative = 0, out_of_range = 0;
    const EstimateNoise draws(42);
    for (JobIdx j = 0; j < n; ++j) {
        const double u = draws.error(j), a = std::abs(u);
        band[a < 0.1 ? 0 : a < 0.5 ? 1 : a < 1 ? 2 : a < 10 ? 3 : 4] += 1;
        negative += u < 0;
        out_of_range += !(a <= 100) || !(draws.positive_factor(j) > 0);
    }
    CHECK(out_of_range == 0);
    const double expected[] = {0.1, 0.4, 0.2, 0.2, 0.1};
    for (int b = 0; b < 5; ++b) CHECK(band[b] / double(n) == Approx(expected[b]).margin(0.005));
    CHECK(negative / double(n) == Approx(0.5).margin(0.005));
}

TEST_CASE("fifo backfill=easy estimate=noisy: the seeded estimates decide the backfill", "[schedule][fifo]") {
    // One node with 4 GPUs. a (2 GPUs, 10 s) at 0 runs 0-10. b (4 GPUs, 5 s) at 1 is the head: at t=2 it
    // reserves a's estimated end, with 2 + 2 - 4 = 0 GPUs spare. c (2 GPUs, 9 s) at 2 is backfilled only
    // if it is estimated to end by then: 2 + 9 m_c <= max(now, 10 m_a), m = 1 + u or 1 / (1 + |u|).
    //  oracle: 11 > 10, c waits: b 10-15, c 15-24 (tests/sim/test_schedules.cpp).
    //  seed 0: u_a = 6.124 (m_a = 7.124: a ends by 71.2), u_c = -0.0516 (m_c = 0.951: c by 10.56):
    //          c is backfilled 2-11, and the truth delays the head to 11: b 11-16.
    //  seed 4: u_a = -8.399 (m_a = 0.106: a "ends" at 1.06, already past, so now: 2); u_c = -0.854
    //          (c by 6.86 > 2): c waits as with the oracle: b 10-15, c 15-24.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,1,4,5\nc,2,2,9\n");
    CHECK(EstimateNoise(0).error(0) == Approx(6.123963).margin(1e-6));
    CHECK(EstimateNoise(0).error(2) == Approx(-0.051613).margin(1e-6));
    CHECK(EstimateNoise(4).error(0) == Approx(-8.398753).margin(1e-6));
    CHECK(EstimateNoise(4).error(2) == Approx(-0.853509).margin(1e-6));
    const std::vector<std::string> noisy{"backfill=easy", "estimate=noisy"};
    const double start0[] = {0, 11, 2}, finish0[] = {10, 16, 11};
    check_schedule(in, run_seeded(in, "fifo", 0, noisy), start0, finish0);
    const double start4[] = {0, 10, 15}, finish4[] = {10, 15, 24};
    check_schedule(in, run_seeded(in, "fifo", 4, noisy), start4, finish4);
    // The oracle ignores the seed.
    check_schedule(in, run_seeded(in, "fifo", 0, {"backfill=easy"}), start4, finish4);
    // estimate=noisy × estimate_factor=2 at seed 4: a by max(2, 2.13) = 2.13, c by 2 + 9.71: still waits.
    check_schedule(in, run_seeded(in, "fifo", 4, {"backfill=easy", "estimate=noisy", "estimate_factor=2"}), start4,
                   finish4);
}

TEST_CASE(
    "qssf: history by (model, GPUs) in a trace without users, coarser keys when a key has none, estimates "
    "fixed when queued",
    "[schedule][qssf]") {
    // One GPU; models run 1 it/s, so run time = duration. Jobs a..e in trace order.
    //  t=0  a (m1, 20 s) starts (its estimate: the prior, 3600 GPU-s).
    //  t=1  b (m2, 2 s) waits with the prior, 3600, fixed.
    //  t=20 a done: history (m1,1) = (m1) = (1) = all = 20. g (m1, 5 s) arrives: 20 < b's 3600, so g
    //       overtakes b: 20-25 (recomputed, b would fall back to (1) = 20 and win the tie by arrival).
    //  t=25 g done: (m1,1) = 12.5, (1) = 12.5. b 25-27.   t=27 b done: (m2,1) = 2, (1) = all = 9.
    //  t=28 c (m1, 3 s): 12.5; d (m2, 8 s): 2. d 28-36.
    //  t=29 e (m3, 1 s): no (m3,1), no (m3): (1) = 9 < c's 12.5.   t=36 e 36-37, then c 37-40.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kThreeModels,
                                     "job_id,submit_time,num_gpus,duration,model\n"
                                     "a,0,1,20,m1\nb,1,1,2,m2\ng,20,1,5,m1\nc,28,1,3,m1\nd,28,1,8,m2\ne,29,1,1,m3\n");
    const auto o = run_policy(in, "qssf");
    const double start[] = {0, 25, 20, 37, 28, 36}, finish[] = {20, 27, 25, 40, 36, 37};
    check_schedule(in, o, start, finish);

    SECTION("history_key=gpus: one bucket per GPU count") {
        // As above until t=27, where (1) = 9. t=28 c and d both 9: arrival tie, trace order: c 28-31.
        // t=29 e: 9 (nothing finished since), behind d (9, arrived at 28). d 31-39, e 39-40.
        const auto g = run_policy(in, "qssf", "history_key=gpus");
        const double start_g[] = {0, 25, 20, 28, 31, 39}, finish_g[] = {20, 27, 25, 31, 39, 40};
        check_schedule(in, g, start_g, finish_g);
    }
    SECTION("estimator=oracle: the true GPU time") {
        // t=1 b: 2. t=20 g: 5 > b's 2: b 20-22, g 22-27. t=28 c 3 < d 8: c 28-31. t=29 e: 1, ahead of d:
        // e 31-32, d 32-40.
        const auto g = run_policy(in, "qssf", "estimator=oracle");
        const double start_o[] = {0, 20, 22, 28, 32, 31}, finish_o[] = {20, 22, 27, 31, 40, 32};
        check_schedule(in, g, start_o, finish_o);
    }
    CHECK_THROWS_WITH(run_policy(in, "qssf", "prior=-1"), Catch::Contains("policy qssf: parameter prior"));
    CHECK_THROWS_WITH(run_policy(in, "qssf", "history_key=user"), Catch::Contains("history_key"));
}

TEST_CASE(
    "qssf: the default history key holds the user, so two users of one model and size get their own "
    "estimates",
    "[schedule][qssf]") {
    // One GPU; models run 1 it/s, so run time = duration. The key is (user, model, GPUs), falling back to
    // (model, GPUs), (model), (GPUs), all jobs.
    //  t=0  a (u1, m1, 10 s) and b (u2, m1, 2 s): both the prior 3600; arrival tie, trace order: a 0-10.
    //  t=10 a done: (u1,m1,1) = 10, (m1,1) = 10. b 10-12.
    //  t=12 b done: (u2,m1,1) = 2, (m1,1) = (m1) = (1) = all = 6.
    //  t=13 c (u4, m2, 10 s): no (u4,m2,1), (m2,1) or (m2): (1) = 6. The GPU is free: c 13-23.
    //  t=14 d (u1, m1, 1 s): (u1,m1,1) = 10.   t=15 e (u2, m1, 5 s): (u2,m1,1) = 2.
    //  t=16 f (u3, m1, 1 s): no (u3,m1,1), so (m1,1) = 6.
    //  t=23 c done: e (2) 23-28, f (6) 28-29, d (10) 29-30.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kThreeModels,
                                     "job_id,submit_time,num_gpus,duration,model,user\n"
                                     "a,0,1,10,m1,u1\nb,0,1,2,m1,u2\nc,13,1,10,m2,u4\n"
                                     "d,14,1,1,m1,u1\ne,15,1,5,m1,u2\nf,16,1,1,m1,u3\n");
    const double start[] = {0, 10, 13, 29, 23, 28}, finish[] = {10, 12, 23, 30, 28, 29};
    check_schedule(in, run_policy(in, "qssf"), start, finish);
    check_schedule(in, run_policy(in, "qssf", "history_key=user+model+gpus"), start, finish);

    SECTION("history_key=model+gpus: the users share one estimate") {
        // As above until t=13. d, e and f all get (m1,1) = 6: arrival order, d 23-24, e 24-29, f 29-30.
        const double start_m[] = {0, 10, 13, 23, 24, 29}, finish_m[] = {10, 12, 23, 24, 29, 30};
        check_schedule(in, run_policy(in, "qssf", "history_key=model+gpus"), start_m, finish_m);
    }
    SECTION("a job without a user skips the user level instead of pooling with other jobs without one") {
        // b, e and g (m1, 1 s, t=17) have no user. t=12 b done: (m1,1) = 6, and no (no user, m1, 1) bucket.
        // e, f and g all get (m1,1) = 6, d its 10: at t=23 e 23-28, f 28-29, g 29-30, d 30-31. (Pooled as
        // one user, e and g would get b's 2 and g would pass f: g 28-29, f 29-30.)
        const auto nouser = inputs_from_text(homogeneous_cluster_json(1, 1), kThreeModels,
                                             "job_id,submit_time,num_gpus,duration,model,user\n"
                                             "a,0,1,10,m1,u1\nb,0,1,2,m1,\nc,13,1,10,m2,u4\n"
                                             "d,14,1,1,m1,u1\ne,15,1,5,m1,\nf,16,1,1,m1,u3\ng,17,1,1,m1,\n");
        const double start_n[] = {0, 10, 13, 30, 23, 28, 29}, finish_n[] = {10, 12, 23, 31, 28, 29, 30};
        check_schedule(nouser, run_policy(nouser, "qssf"), start_n, finish_n);
    }
}

TEST_CASE("qssf: strict walk by default; strict=false lets a smaller job pass the blocked head", "[schedule][qssf]") {
    // One node with 2 GPUs, oracle. a (1 GPU, 10 s) at 0; b (2 GPUs, 2 s: 4 GPU-s) at 1; c (1 GPU, 5 s:
    // 5 GPU-s) at 2. strict: b heads and blocks c: b 10-12, c 12-17. strict=false: c 2-7, b 10-12.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,1,2,2\nc,2,1,5\n");
    const double start_s1[] = {0, 10, 12}, finish_s1[] = {10, 12, 17};
    check_schedule(in, run_policy(in, "qssf", "estimator=oracle"), start_s1, finish_s1);
    const double start_s2[] = {0, 10, 2}, finish_s2[] = {10, 12, 7};
    check_schedule(in, run_seeded(in, "qssf", 0, {"estimator=oracle", "strict=false"}), start_s2, finish_s2);
}

TEST_CASE("qssf lazy_priority: arrivals that find no queue start by GPU count before getting a priority",
          "[schedule][qssf]") {
    // One node with 2 GPUs, oracle GPU time. a (2 GPUs, 10 s: 20 GPU-s) and b (1 GPU, 20 s: 20) at 0;
    // c (1 GPU, 1 s) at 5.
    //  default: a and b tie at 20: trace order, a 0-10; b needs 1 of 0 free. t=5 c (1) queues ahead of
    //           b. t=10 c 10-11, b 10-30.
    //  lazy:    at 0 nobody waited: by GPU count b first, 0-20; a does not fit and waits without a
    //           priority (strict). t=5 a gets 20, c 1: c 5-6; a blocks. t=20 a 20-30.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,0,1,20\nc,5,1,1\n");
    const double start_d[] = {0, 10, 10}, finish_d[] = {10, 30, 11};
    check_schedule(in, run_policy(in, "qssf", "estimator=oracle"), start_d, finish_d);
    const double start_l[] = {20, 0, 5}, finish_l[] = {30, 20, 6};
    check_schedule(in, run_seeded(in, "qssf", 0, {"estimator=oracle", "lazy_priority=true"}), start_l, finish_l);
    // qssf's default (history) has no history before t=30: the prior, 3600 s × GPUs, ranks b (3600) and
    // c (3600, arrived later) ahead of a (7200): the lazy schedule again.
    check_schedule(in, run_policy(in, "qssf"), start_l, finish_l);
    // A preset is a parameter set: its parameters can still be overridden.
    check_schedule(in, run_seeded(in, "helios-qssf", 0, {"estimator=oracle", "lazy_priority=false"}), start_d,
                   finish_d);
}

TEST_CASE("helios-qssf: Helios's noisy oracle (negative estimates first) against qssf's history prior",
          "[schedule][qssf]") {
    // One GPU. a (10 s) at 0 runs 0-10; x, y, z (1, 2, 3 s) arrive at 1 and wait.
    //  qssf (history): nothing has finished at 1, so all three get the prior: trace order, x 10-11,
    //                  y 11-13, z 13-16.
    //  helios-qssf, seed 3: at 1 only new jobs wait (lazy: no priority yet, none fits). At 10 they get
    //                  d (1 + u): x 1 × 1.4397 = 1.44, y 2 × 0.883 = 1.77, z 3 × (1 - 78.09) = -231:
    //                  z 10-13, x 13-14, y 14-16.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,10\nx,1,1,1\ny,1,1,2\nz,1,1,3\n");
    const EstimateNoise noise(3);
    CHECK(noise.error(1) == Approx(0.439716).margin(1e-6));
    CHECK(noise.error(2) == Approx(-0.117029).margin(1e-6));
    CHECK(noise.error(3) == Approx(-78.085814).margin(1e-6));
    const double start_q[] = {0, 10, 11, 13}, finish_q[] = {10, 11, 13, 16};
    check_schedule(in, run_seeded(in, "qssf", 3), start_q, finish_q);
    const double start_h[] = {0, 13, 14, 10}, finish_h[] = {10, 14, 16, 13};
    check_schedule(in, run_seeded(in, "helios-qssf", 3), start_h, finish_h);
    // The same seed orders the same way with qssf estimator=helios-noise (lazy or not, here).
    check_schedule(in, run_seeded(in, "qssf", 3, {"estimator=helios-noise"}), start_h, finish_h);
}

TEST_CASE("helios-sjf: GPU types ignored (cluster order) where sjf takes the fastest free type", "[schedule][sjf]") {
    // Types slow (first, the reference) and fast, one 1-GPU node each; model m runs 1 it/s on slow, 2 on
    // fast. x (10 s on slow = 10 it) and y (4 s = 4 it) at 0; y is shorter and picks first.
    //  sjf:        y on fast 0-2, x on slow 0-10.
    //  helios-sjf: y on slow (cluster order) 0-4, x on fast 0-5.
    const std::string cluster = R"({"gpu_types": {"slow": {}, "fast": {}},
        "node_types": {"s": {"gpu_type": "slow", "gpus": 1}, "f": {"gpu_type": "fast", "gpus": 1}},
        "racks": [{"node_type": "s", "nodes": 1}, {"node_type": "f", "nodes": 1}]})";
    const auto in = inputs_from_text(cluster, R"({"models": {"m": {"throughput": {"slow": 1, "fast": 2}}}})",
                                     "job_id,submit_time,num_gpus,duration,model\nx,0,1,10,m\ny,0,1,4,m\n");
    const double start[] = {0, 0}, finish_sjf[] = {10, 2}, finish_helios[] = {5, 4};
    check_schedule(in, run_policy(in, "sjf"), start, finish_sjf);
    check_schedule(in, run_policy(in, "helios-sjf"), start, finish_helios);
}

TEST_CASE("tiresias-sjf: fewest GPUs first, preempting wider running jobs; a tie keeps the incumbent",
          "[schedule][sjf]") {
    // One node with 2 GPUs. a (2 GPUs, 10 s) at 0; b (1 GPU, 3 s) at 2; c (1 GPU, 4 s) at 6; d (2 GPUs,
    // 1 s) at 11.
    //  sjf (duration, non-preemptive, strict): a 0-10; t=10 b (3) 10-13 and c (4) 10-14; d (2 GPUs) waits
    //       for both: 14-15.
    //  tiresias-sjf: t=2 b (1 GPU) < a (2): b takes a GPU, a no longer fits and is preempted (8 s left);
    //       the other GPU idles. t=5 b done: a 5-6 (7 left). t=6 c < a: a preempted again, c 6-10.
    //       t=10 a 10-17. t=11 d ties a at 2 GPUs: a keeps them. t=17 d 17-18.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,2,1,3\nc,6,1,4\nd,11,2,1\n");
    const double start_s1[] = {0, 10, 10, 14}, finish_s1[] = {10, 13, 14, 15};
    check_schedule(in, run_policy(in, "sjf"), start_s1, finish_s1);
    const double start_t[] = {0, 2, 6, 17}, finish_t[] = {17, 5, 10, 18};
    const unsigned preempted_t[] = {2, 0, 0, 0};
    const auto t = run_policy(in, "tiresias-sjf");
    check_schedule(in, t, start_t, finish_t, preempted_t);
    CHECK(t.summary.preemptions == 2);
    // A preemptive walk skips what does not fit: strict with preemption is refused, naming the fix.
    CHECK_THROWS_WITH(run_policy(in, "sjf", "preemptive=true"),
                      Catch::Contains("policy sjf: parameter strict") && Catch::Contains("strict=false"));
}

TEST_CASE("sjf preemptive on a time key: a displacement must gain more than the restart cost plus the margin",
          "[schedule][sjf]") {
    // One GPU. a (10 s) at 0, b (8 s) at 1, c (2 s) at 2; sjf key=duration preemptive=true strict=false.
    //  restart cost 0: t=1 b 8 < a's 10 - 0.001: a preempted (9 left), b 1-9... t=2 c 2 < b's 8: b
    //       preempted (7 left), c 2-4. t=4 b (8) before a (10): b 4-11. t=11 a 11-20.
    //  restart cost 5: a counts as 10 - 5.001 = 4.999: b (8) does not displace it; c (2) does at 2: c
    //       2-4. t=4 b (8, never started) before a (10): b 4-12. t=12 a restarts: 5 s without progress,
    //       then its 8 s left: 12-25.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,1,1,8\nc,2,1,2\n");
    const std::vector<std::string> params{"preemptive=true", "strict=false"};
    const double start0[] = {0, 1, 2}, finish0[] = {20, 11, 4};
    const unsigned preempted0[] = {1, 1, 0};
    check_schedule(in, run_seeded(in, "sjf", 0, params, 0), start0, finish0, preempted0);
    const double start5[] = {0, 4, 2}, finish5[] = {25, 12, 4};
    const unsigned preempted5[] = {1, 0, 0};
    check_schedule(in, run_seeded(in, "sjf", 0, params, 5), start5, finish5, preempted5);
}

}  // namespace dlsim::test::qssf_sjf_tests
