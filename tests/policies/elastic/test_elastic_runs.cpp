// The elastic policies in whole runs: `pollux` on a two-job case worked out by hand (its objective's choice
// at every tick, each resize, each 30 s restart and both finish times), `gavel-tj` on two cases worked out
// by hand (shares, priorities, leases and restarts round by round), the determinism of every elastic
// policy, and Pollux's job-load study at load 1.0 against the artifact's published means (shared data).
#include "policies/elastic/gavel_tj.hpp"
#include "policies/registry.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::elastic_runs_tests {

namespace {

/// One application of the toy profile: M0 = the largest batch = 64, so every allocation runs at batch 64
/// (efficiency exactly 1 whatever the gradient statistics); micro-batches of 16 to 64, so 1 to 4 GPUs
/// (max_gpus 4); one epoch whose end is `progress` M0-iterations: the job's work is 64 x progress samples.
/// Step time on k GPUs of one node (alpha_c = 0, beta_c = 1, no network cost within the node, gamma = 1):
/// 64/k s for k >= 2, 64 + 1e-8 s on one GPU (Pollux's stand-in for a lone GPU's all-reduce), so the
/// goodput is k samples/s (1 - 1.6e-10 on one GPU: below a microsecond over these runs).
/// `measured`: the goodput block's optional "measured" entry (JSON text, with its key).
std::string toy_application(const char* progress, const char* beta_c = "1", const char* measured = "") {
    return fmt::format(R"({{"throughput": {{"g": 1}}, "goodput": {{
        "init_batch_size": 64, "max_batch_size": 64, "min_local_bsz": 16, "max_local_bsz": 64, "max_epochs": 1,
        "perf": {{"g": {{"alpha_c": 0, "beta_c": {}, "alpha_n": 0, "beta_n": 0, "alpha_r": 0, "beta_r": 0,
                        "gamma": 1}}}}, {}
        "validation": {{"64": {{"progress": [{}], "iteration": [7], "grad_sqr": [1], "grad_var": [1]}}}}}}}})",
                       beta_c, measured, progress);
}

RunConfig pollux_artifact_config(const std::string& policy) {
    RunConfig c;
    c.policy = policy;
    c.restart.restart_cost = 30;
    c.restart.first_start = true;
    c.out.clear();
    return c;
}

}  // namespace

TEST_CASE("pollux by hand: two jobs on one 4-GPU node, a shrink, grows, 30 s restarts and both finishes",
          "[policies]") {
    // A (application a: 64 x 7.03125 = 450 samples) arrives at 0, B (b: 64 x 10.78125 = 690) at 200.
    // Goodput on k GPUs = k samples/s. Pollux decides only at multiples of 60 s; every allocation, the
    // first included, costs 30 s without progress. Its objective: the sum over jobs of 1/(sp + 0.001)
    // (p = -1), least wins; sp = goodput(k) / goodput(fair share ceil(4/J) GPUs) x 1/4 (one node = 1 of
    // 4 GPUs), times the restart factor f = max(age - 30 x restarts, 0) / (age + 30) when the allocation
    // changes; a job may take at most twice the most GPUs it has held (1 before its first start).
    //   60:  A alone (fair 4), cap 1: f = 60/90; A1: sp = 1/16 x 2/3 = 0.0417 -> cost 23.4 < 1000 (none).
    //        A starts on 1 GPU; restart to 90.
    //   120: A: 30 done (90-120 at 1). cap 2. A1 kept: sp 0.0625 -> 15.75; A2: f = 120/150 = 0.8,
    //        sp = 0.125 x 0.8 = 0.1 -> 9.90. A grows to 2; restart to 150.
    //   180: A: 90 done (150-180 at 2). cap 4. A2 kept: 0.125 -> 7.94; A4: f = (180-30)/210 = 0.714,
    //        sp = 0.25 x 0.714 = 0.179 -> 5.57. A grows to 4; restart to 210.
    //   200: B arrives (waits for the tick).
    //   240: A: 210 done (210-240 at 4). Fair share 2: sp = k/8. A: f = (240-60)/270 = 0.667; B (cap 1):
    //        f = 40/70 = 0.571. (A4 kept, B0): 1/0.501 + 1000 = 1002.0; (A2, B1): 1/(0.25 x 0.667 + 0.001)
    //        + 1/(0.125 x 0.571 + 0.001) = 5.96 + 13.81 = 19.77; (A1, B1): 11.86 + 13.81 = 25.67.
    //        A shrinks to 2, B starts on 1 (one GPU idle: B may not take 2 yet); both restart to 270.
    //   300: A: f = (300-90)/330 = 0.636; B: f = 100/130 = 0.769, cap 2. (A2, B1) kept: 3.98 + 7.94 =
    //        11.92; (A2, B2): 3.98 + 1/(0.25 x 0.769 + 0.001) = 3.98 + 5.17 = 9.16; (A1, B2): 12.42 + 5.17.
    //        B grows to 2; restart to 330. B: 30 done (270-300 at 1).
    //   360: (A2, B2) kept: 7.97; every change is worse (a restart factor < 1 on a share no larger).
    //   390: A finishes: 210 + 2 x (390 - 270) = 450.
    //   420: B alone (fair 4): B: 30 + 2 x (420 - 330) = 210 done; f = (220-30)/250 = 0.76, cap 4.
    //        B2 kept: sp = 2/16 -> 7.94; B4: sp = 0.25 x 0.76 = 0.19 -> 5.24. B grows to 4; restart to 450.
    //   480, 540: B4 kept (any change is worse).
    //   570: B finishes: 210 + 4 x (570 - 450) = 690.
    const std::string profile =
        fmt::format(R"({{"models": {{"a": {}, "b": {}}}}})", toy_application("7.03125"), toy_application("10.78125"));
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 4), profile,
                                          "job_id,submit_time,num_gpus,duration,model\nA,0,1,1,a\nB,200,1,1,b\n");
    const RunOutcome o = simulate(in, pollux_artifact_config("pollux"));
    REQUIRE(o.summary.finished == 2);
    const JobInfo& a = o.jobs[0];
    const JobInfo& b = o.jobs[1];
    CHECK(a.first_start == 60'000'000);
    CHECK(a.finish == 390'000'000);
    CHECK(a.resizes == 3);                            // 120: 1 -> 2, 180: 2 -> 4, 240: 4 -> 2
    CHECK(a.restarts == 4);                           // its first start and the three resizes
    CHECK(a.restart_time == 120'000'000);             // 4 x 30 s
    CHECK(a.resize_gpu_seconds == 30 * (2 + 4 + 2));  // each restart on the GPUs of the new allocation
    CHECK(a.preemptions == 0);
    CHECK(b.first_start == 240'000'000);
    CHECK(b.finish == 570'000'000);
    CHECK(b.resizes == 2);  // 300: 1 -> 2, 420: 2 -> 4
    CHECK(b.restarts == 3);
    CHECK(b.restart_time == 90'000'000);
    CHECK(b.resize_gpu_seconds == 30 * (2 + 4));
    CHECK(o.summary.resizes == 5);
    CHECK(o.summary.avg_jct == Approx((390 + 370) / 2.0).epsilon(1e-12));
    REQUIRE(o.elastic.size() == 2);
    CHECK(o.elastic[0].mean_efficiency == Approx(1).epsilon(1e-12));
    CHECK(o.elastic[1].last_batch_size == 64);
}

TEST_CASE(
    "measured step times and calibration slowdowns rate elastic jobs: a measured placement, a shape, "
    "the fitted model elsewhere",
    "[policies]") {
    // One node of 3 GPUs; fifo runs A (application a, 450 samples) on 1 GPU and B (b, 690 samples) on 2, both
    // from 0, at the trace batch 64 (efficiency 1): A at micro-batch 64 on placement "1", B at 32 on "2".
    // Measured step seconds: placement "1" 10 s at 16 and 40 s at 64, so 40 s at 64; placement "2" is not
    // measured as such, so shape 1x2: 20 s at 16, 30 s at 32. Goodputs: A 64/40 = 1.6 samples/s, slowed 2x
    // to 0.8; B 64/30. Each first start costs 30 s: A finishes at 30 + 450/0.8 = 592.5 s, B at
    // 30 + 690 x 30/64 = 353.4375 s. Without the measured entry (the fitted model, 64/k s per step on k GPUs):
    // A at 1 sample/s (less 1.6e-10) finishes at 480 s, B at 2 samples/s at 375 s.
    const char* measured = R"("measured": {"g": {"placements": {"1": [16, 10, 0, 64, 40, 0]},
                                                  "shapes": {"1x2": [16, 20, 5, 32, 30, 10]}}},)";
    const RunInputs in =
        inputs_from_text(homogeneous_cluster_json(1, 3),
                         fmt::format(R"({{"models": {{"a": {}, "b": {}}}}})", toy_application("7.03125", "1", measured),
                                     toy_application("10.78125", "1", measured)),
                         "job_id,submit_time,num_gpus,duration,model\nA,0,1,1,a\nB,0,2,1,b\n");
    RunConfig c = pollux_artifact_config("fifo");
    c.slowdowns = {{"a", 2.0}};
    const RunOutcome o = simulate(in, c);
    REQUIRE(o.summary.finished == 2);
    CHECK(o.jobs[0].finish == 592'500'000);
    CHECK(o.jobs[1].finish == 353'437'500);
    CHECK(o.elastic[0].mean_goodput == Approx(0.8).epsilon(1e-12));

    const RunInputs fitted = inputs_from_text(
        homogeneous_cluster_json(1, 3),
        fmt::format(R"({{"models": {{"a": {}, "b": {}}}}})", toy_application("7.03125"), toy_application("10.78125")),
        "job_id,submit_time,num_gpus,duration,model\nA,0,1,1,a\nB,0,2,1,b\n");
    const RunOutcome f = simulate(fitted, pollux_artifact_config("fifo"));
    CHECK(f.jobs[0].finish == 480'000'000);
    CHECK(f.jobs[1].finish == 375'000'000);

    // A slowdown for a model the profiles lack is an input error, naming it.
    RunConfig unknown = pollux_artifact_config("fifo");
    unknown.slowdowns = {{"c", 2.0}};
    CHECK_THROWS_WITH(simulate(in, unknown), Catch::Contains("slowdowns: model 'c'"));
}

namespace {

/// The toy application on two types: on g as toy_application (goodput k samples/s on k GPUs), on h at half
/// the speed (beta_c = 2: goodput k/2), on any number of nodes (no network cost).
std::string toy_two_types(const char* progress) {
    return fmt::format(R"({{"throughput": {{"g": 1, "h": 1}}, "goodput": {{
        "init_batch_size": 64, "max_batch_size": 64, "min_local_bsz": 16, "max_local_bsz": 64, "max_epochs": 1,
        "perf": {{"g": {{"alpha_c": 0, "beta_c": 1, "alpha_n": 0, "beta_n": 0, "alpha_r": 0, "beta_r": 0,
                        "gamma": 1}},
                 "h": {{"alpha_c": 0, "beta_c": 2, "alpha_n": 0, "beta_n": 0, "alpha_r": 0, "beta_r": 0,
                        "gamma": 1}}}},
        "validation": {{"64": {{"progress": [{}], "iteration": [7], "grad_sqr": [1], "grad_var": [1]}}}}}}}})",
                       progress);
}

}  // namespace

TEST_CASE("pollux types=unaware by hand: one pool of 4-GPU units over two types, jobs rated on the type they land on",
          "[policies]") {
    // Node 0: type g, 4 GPUs; node 1: type h, 8 GPUs (half g's speed). As Sia's harness runs Pollux: units
    // of 4 GPUs (the smallest node), so 3 units, 12 GPUs; a job holds at most 4 (the smallest type's GPUs).
    // A (450 samples) and B (690) arrive at 0. Objective as in the case above with fair share ceil(12/2) = 6
    // and a unit's dominant share 1 (x 3/12); before a job has run its speedup is linear, k/6; after, its
    // goodput on the type it ran on over that type's goodput on the fair share on one unit (6 and 5 GPUs
    // cannot run batch 64 at micro-batch >= 16, so 4 GPUs: 4 samples/s on g).
    //   60:  cap 1, f = 60/90: A1: sp = 1/6 x 1/4 x 2/3 = 0.0278 -> 34.7 < 1000 (none); the same for B.
    //        Both start on 1 GPU of the fullest node that fits: node 0 (g) for both. Restart to 90.
    //   120: 30 done each. Belief g. cap 2, f = 120/150: k1 kept: 1/16 -> 15.75; k2: 2/16 x 0.8 -> 9.90.
    //        Both grow to 2 on their own node 0; restart to 150.
    //   180: 90 done each. cap 4, f = (180-30)/210: k4: 4/16 x 0.714 -> 5.57 < k2 kept: 7.94. Both want 4
    //        (a whole unit). A first: node 0 has 2 + its own 2 free, too few, so node 1 (h): a change of type
    //        and count, a stop and a start at once (a preemption and migration). B then takes node 0 whole
    //        (a resize). Both restart to 210.
    //   240 ...: nothing changes (4 is the cap; any change costs a restart factor).
    //   A on h: 2 samples/s from 210: 90 + 2 x 180 = 450 at 390. B on g: 4/s: 90 + 4 x 150 = 690 at 360.
    const char* two_types = R"({"gpu_types": {"g": {}, "h": {}},
        "node_types": {"ng": {"gpu_type": "g", "gpus": 4}, "nh": {"gpu_type": "h", "gpus": 8}},
        "racks": [{"node_type": "ng", "nodes": 1}, {"node_type": "nh", "nodes": 1}]})";
    const std::string profile =
        fmt::format(R"({{"models": {{"a": {}, "b": {}}}}})", toy_two_types("7.03125"), toy_two_types("10.78125"));
    const RunInputs in =
        inputs_from_text(two_types, profile, "job_id,submit_time,num_gpus,duration,model\nA,0,1,1,a\nB,0,1,1,b\n");
    RunConfig c = pollux_artifact_config("pollux");
    c.params["types"] = "unaware";
    const RunOutcome o = simulate(in, c);
    REQUIRE(o.summary.finished == 2);
    const JobInfo& a = o.jobs[0];
    const JobInfo& b = o.jobs[1];
    CHECK(a.first_start == 60'000'000);
    CHECK(a.finish == 390'000'000);
    CHECK(a.resizes == 1);      // 120: 1 -> 2 on g
    CHECK(a.preemptions == 1);  // 180: 2 on g -> 4 on h, a move
    CHECK(a.migrations == 1);
    CHECK(a.restarts == 3);
    CHECK(a.restart_time == 90'000'000);
    CHECK(b.first_start == 60'000'000);
    CHECK(b.finish == 360'000'000);
    CHECK(b.resizes == 2);  // 120: 1 -> 2, 180: 2 -> 4, both on g
    CHECK(b.preemptions == 0);
    CHECK(b.restarts == 3);
    CHECK(o.summary.avg_jct == Approx((390 + 360) / 2.0).epsilon(1e-12));

    // The default pool is the type with the most GPUs (h) alone: both jobs run at h's speed.
    const RunOutcome pool = simulate(in, pollux_artifact_config("pollux"));
    REQUIRE(pool.summary.finished == 2);
    CHECK(pool.jobs[0].preemptions == 0);
    CHECK(pool.jobs[0].finish > 390'000'000);
}

TEST_CASE("tiresias-elastic and las-elastic by hand: spare GPUs to the largest gain, back to the gang for a start",
          "[policies]") {
    // One node of 4 GPUs, no restart cost, interval 60. A (application a: step 32/k s, goodput 2k samples/s;
    // work 64 x 13.75 = 880) asks for 1 GPU at 0; B (b: goodput k; 64 x 8.125 = 520) for 2 at 100. On 3 GPUs
    // a job's batch of 64 splits as 3 x 21 = 63 (efficiency 128/127 with sqr = var): goodput 3 x 128/127
    // = 3.024 for b, twice that for a. Gains of one more GPU: a 2, 2.047, 1.953; b 1, 1.024, 0.976.
    //   0:   the queue policy starts A on 1 GPU (rate 2).
    //   60:  tick, nothing to start: the 3 free GPUs go to A (gains 2, 2.047, 1.953, up to its max 4); A has
    //        done 120, rate 8.
    //   100: B arrives. On the view of gangs A holds 1 GPU and 3 look free: B starts on 2. Only 0 are free,
    //        so A first goes back to its gang (its first GPU); A has done 120 + 8 x 40 = 440. A 2/s, B 2/s.
    //   120: tick, 1 free: A's gain (1 -> 2: 2) beats B's (2 -> 3: 1.024). A to 2 (4/s), done 480.
    //   220: A finishes: 480 + 4 x 100 = 880.
    //   240: tick, 2 free: B to 3 (gain 1.024), then to 4 (0.976). B has done 2 x 140 = 280; 4/s.
    //   300: B finishes: 280 + 4 x 60 = 520.
    // Rigid tiresias on the same jobs: A 880 / 2 = 440 s; B 520 / 2 = 260 s, finishing at 360.
    const std::string profile =
        fmt::format(R"({{"models": {{"a": {}, "b": {}}}}})", toy_application("13.75", "0.5"), toy_application("8.125"));
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 4), profile,
                                          "job_id,submit_time,num_gpus,duration,model\nA,0,1,1,a\nB,100,2,1,b\n");
    for (const char* policy : {"tiresias-elastic", "las-elastic"}) {
        INFO(policy);
        const RunOutcome o = run_policy(in, policy);
        REQUIRE(o.summary.finished == 2);
        CHECK(o.jobs[0].first_start == 0);
        CHECK(o.jobs[0].finish == 220'000'000);
        CHECK(o.jobs[0].resizes == 3);  // 60: 1 -> 4, 100: 4 -> 1, 120: 1 -> 2
        CHECK(o.jobs[0].preemptions == 0);
        CHECK(o.jobs[1].first_start == 100'000'000);
        CHECK(o.jobs[1].finish == 300'000'000);
        CHECK(o.jobs[1].resizes == 1);  // 240: 2 -> 4
    }
    const RunOutcome rigid = run_policy(in, "tiresias");
    CHECK(rigid.jobs[0].finish == 440'000'000);
    CHECK(rigid.jobs[1].finish == 360'000'000);
    CHECK(rigid.summary.resizes == 0);
}

TEST_CASE("gavel-tj by hand: equal shares alternate by x/f, a lease kept, x = 0 waits, rounds of 360 s", "[policies]") {
    // One node of 4 GPUs; every allocation (the first included) costs 30 s without progress; decisions only
    // at multiples of 360 s. Step time on k GPUs at the batch of 64: 64·beta_c/k s, so T = k/(64·beta_c)
    // steps/s and k/beta_c samples/s. Calibration 1 (the models are not Sia's applications).
    // Case 1: A (4 GPUs, work 64 x 31.25 = 2000) at 0 and B (4 GPUs, 64 x 37.5 = 2400) at 100, both with
    // a's step times: T = 1/16 each, 4x_A + 4x_B <= 4. Identical jobs: x = (0.5, 0.5). p = x / f with
    // f = time on the type ÷ its sum over jobs, each job seeded with 180 s (and the sum with 180 s).
    //   360:  f = 180/360 each: p = 1, 1: tie, A first (arrival). A runs, restart to 390. A 540, sum 720.
    //   720:  p_A = 0.5/(540/720) = 0.667, p_B = 0.5/(180/720) = 2: B runs, A preempted (done 330 x 4 =
    //         1320); B restarts to 750. B 540, sum 1080.
    //   1080: p_A = p_B = 1: A (arrival) runs, B preempted (done 1320); A restarts to 1110. A 900, sum 1440.
    //   1280: A finishes: 1320 + 4 x 170 = 2000. Its GPUs idle until the round ends.
    //   1440: B alone (x = 1): restarts to 1470; finishes at 1470 + (2400 - 1320) / 4 = 1740.
    {
        // B is of application b, a's numbers with B's own work.
        const std::string profile =
            fmt::format(R"({{"models": {{"a": {}, "b": {}}}}})", toy_application("31.25"), toy_application("37.5"));
        const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 4), profile,
                                              "job_id,submit_time,num_gpus,duration,model\nA,0,4,1,a\nB,100,4,1,b\n");
        const RunOutcome o = simulate(in, pollux_artifact_config("gavel-tj"));
        REQUIRE(o.summary.finished == 2);
        const JobInfo& a = o.jobs[0];
        const JobInfo& b = o.jobs[1];
        CHECK(a.first_start == 360'000'000);
        CHECK(a.finish == 1280'000'000);
        CHECK(a.preemptions == 1);
        CHECK(a.restarts == 2);
        CHECK(b.first_start == 720'000'000);
        CHECK(b.finish == 1740'000'000);
        CHECK(b.preemptions == 1);
        CHECK(b.restarts == 2);
        CHECK(o.summary.migrations == 0);
        CHECK(o.summary.avg_jct == Approx((1280 + 1640) / 2.0).epsilon(1e-12));
    }
    // Case 2: A (2 GPUs, application a: T = 1/32, 2 samples/s; work 64 x 16.5625 = 1060) at 0, B (4 GPUs,
    // application b with beta_c = 0.5: T = 1/8, 8 samples/s; 64 x 62.5 = 4000) at 400. With both: max
    // x_A/32 + x_B/8 s.t. 2x_A + 4x_B <= 4 gives x_B = 1, x_A = 0 (B's steps per GPU-second are higher).
    //   360:  A alone, x_A = 1: starts on 2 GPUs, restart to 390. A 540, sum 540.
    //   720:  B seeded (B 180, sum 720): p_B = 1/(180/720) = 4, p_A = 0. B takes the 4 GPUs; A is
    //         preempted (done 330 x 2 = 660). B restarts to 750. B 540, sum 1080.
    //   1080: p_B = 1/(540/1080) = 2: B again, on the same GPUs: its lease is kept (no restart).
    //   1250: B finishes: 8 x (1250 - 750) = 4000.
    //   1440: A alone again: restarts to 1470, finishes at 1470 + (1060 - 660) / 2 = 1670.
    {
        const std::string profile = fmt::format(R"({{"models": {{"a": {}, "b": {}}}}})", toy_application("16.5625"),
                                                toy_application("62.5", "0.5"));
        const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 4), profile,
                                              "job_id,submit_time,num_gpus,duration,model\nA,0,2,1,a\nB,400,4,1,b\n");
        const RunOutcome o = simulate(in, pollux_artifact_config("gavel-tj"));
        REQUIRE(o.summary.finished == 2);
        const JobInfo& a = o.jobs[0];
        const JobInfo& b = o.jobs[1];
        CHECK(a.first_start == 360'000'000);
        CHECK(a.finish == 1670'000'000);
        CHECK(a.preemptions == 1);
        CHECK(a.restarts == 2);
        CHECK(b.first_start == 720'000'000);
        CHECK(b.finish == 1250'000'000);
        CHECK(b.preemptions == 0);
        CHECK(b.restarts == 1);
        CHECK(o.summary.avg_jct == Approx((1670 + 850) / 2.0).epsilon(1e-12));
    }
}

TEST_CASE("gavel-tj: the LP weighs each job's throughput by 1 / its calibration slowdown", "[policies]") {
    // One node of 4 GPUs; A (application a, slowed 2x) and B (b) both want all 4 from 0, with the same step
    // times. Calibrated, T_A = T_B / 2: the LP gives B the node (x_B = 1, x_A = 0) and B starts at the first
    // round (360 s). Uncalibrated, the two are identical: x = (0.5, 0.5), priorities tie, A (trace order) first.
    const std::string profile =
        fmt::format(R"({{"models": {{"a": {}, "b": {}}}}})", toy_application("31.25"), toy_application("37.5"));
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 4), profile,
                                          "job_id,submit_time,num_gpus,duration,model\nA,0,4,1,a\nB,0,4,1,b\n");
    RunConfig c = pollux_artifact_config("gavel-tj");
    c.slowdowns = {{"a", 2.0}};
    const RunOutcome calibrated = simulate(in, c);
    CHECK(calibrated.jobs[1].first_start == 360'000'000);
    CHECK(calibrated.jobs[0].first_start > 360'000'000);
    c.params["calibrate"] = "false";
    const RunOutcome plain = simulate(in, c);
    CHECK(plain.jobs[0].first_start == 360'000'000);
    CHECK(plain.jobs[1].first_start > 360'000'000);
}

namespace {

/// A small Pollux-format workload: four applications whose jobs finish within hours on 64 T4s.
const char* kSmallPolluxWorkload =
    "name,time,application,num_replicas,batch_size\n"
    "cifar10-0,0,cifar10,4,512\n"
    "ncf-1,30,ncf,1,32768\n"
    "deepspeech2-2,95,deepspeech2,8,160\n"
    "bert-3,120,bert,4,96\n"
    "cifar10-4,200,cifar10,2,256\n"
    "ncf-5,260.5,ncf,1,32768\n"
    "cifar10-6,400,cifar10,8,1024\n"
    "bert-7,430,bert,2,48\n"
    "deepspeech2-8,600,deepspeech2,2,40\n"
    "cifar10-9,615,cifar10,1,128\n";

}  // namespace

TEST_CASE("determinism: every elastic policy's two runs are byte-identical outside \"run\"", "[policies][cli]") {
    const std::string trace = write_temp("elastic-det.csv", kSmallPolluxWorkload);
    const std::string a = temp_path("elastic-det-a.json"), b = temp_path("elastic-det-b.json");
    std::vector<std::string> policies = {"pollux", "optimus", "afs", "pollux-tiresias"};
    // Elastic policies registered beside these are checked too.
    for (const char* more : {"sia", "gavel-tj", "tiresias-elastic", "las-elastic"})
        for (const auto& e : builtin_policies().entries())
            if (e.name == more) policies.push_back(more);
    // On Pollux's T4 cluster, then the multi-type policies on Sia's heterogeneous cluster with its per-type
    // measurements and calibration slowdowns.
    std::vector<std::string> setups;
    for (const std::string& policy : policies)
        setups.push_back(
            fmt::format("--cluster {}/models/clusters/pollux_16x4_t4.json --profiles "
                        "{}/models/profiles/pollux_elastic.json --policy {}",
                        DLSIM_SOURCE_DIR, DLSIM_SOURCE_DIR, policy));
    for (const char* policy : {"sia", "pollux --param types=unaware", "gavel-tj"})
        setups.push_back(
            fmt::format("--cluster {}/models/clusters/sia_hetero_64.json --profiles "
                        "{}/models/profiles/sia_elastic.json --slowdowns cifar10=1.8 --slowdowns ncf=1.5 "
                        "--policy {}",
                        DLSIM_SOURCE_DIR, DLSIM_SOURCE_DIR, policy));
    for (const std::string& setup : setups) {
        INFO(setup);
        const std::string args =
            fmt::format("run --trace {} {} --restart-cost 30 --restart-first-start true --seed 5 --out ", trace, setup);
        const CliResult ra = run_cli(args + a), rb = run_cli(args + b);
        REQUIRE(ra.exit_code == 0);
        REQUIRE(rb.exit_code == 0);
        const std::string ta = slurp(a), tb = slurp(b);
        const auto cut_a = ta.find("\n\"run\":"), cut_b = tb.find("\n\"run\":");
        REQUIRE(cut_a != std::string::npos);
        REQUIRE(cut_b != std::string::npos);
        CHECK(ta.substr(0, cut_a) == tb.substr(0, cut_b));
        // The runs really scheduled the workload: every job finished.
        const nlohmann::json doc = nlohmann::json::parse(ta);
        CHECK(doc["summary"]["finished"] == 10);
    }
}

namespace {

/// The mean over Pollux's 8 load-1.0 workloads of each one's average JCT, run as the artifact runs them.
double mean_avg_jct(const std::string& policy, const std::string& params = "") {
    double sum = 0;
    for (int w = 1; w <= 8; ++w) {
        RunConfig c = pollux_artifact_config(policy);
        c.trace = fmt::format("{}/traces/pollux/workloads/workload-{}.csv", DLSIM_SHARED_DATA, w);
        c.trace_format = "pollux";
        c.cluster = fmt::format("{}/models/clusters/pollux_16x4_t4.json", DLSIM_SOURCE_DIR);
        c.profiles = fmt::format("{}/models/profiles/pollux_elastic.json", DLSIM_SOURCE_DIR);
        if (!params.empty()) add_param(c, params);
        const RunOutcome o = simulate(load_inputs(c), c);
        INFO(policy << " " << params << " workload-" << w);
        REQUIRE(o.summary.unfinished == 0);
        REQUIRE(o.summary.rejected == 0);
        sum += o.summary.avg_jct;
    }
    return sum / 8;
}

/// The artifact's figure: the "mean" of results-jobload/<name>-1.0/summary.json (its per-workload average
/// JCTs averaged over the 8 workloads).
double artifact_mean(const std::string& name) {
    const std::string path =
        fmt::format("{}/pollux-results/results-jobload/{}-1.0/summary.json", DLSIM_SHARED_DATA, name);
    return nlohmann::json::parse(slurp(path))["mean"].get<double>();
}

}  // namespace

TEST_CASE("pollux job-load study at load 1.0: mean JCTs within 10% of the artifact's, in its order",
          "[policies][shared-data]") {
    if (!shared_data_present(std::string(DLSIM_SHARED_DATA) + "/traces/pollux/workloads/workload-8.csv")) return;
    if (!shared_data_present(std::string(DLSIM_SHARED_DATA) +
                             "/pollux-results/results-jobload/optimus-1.0/summary.json"))
        return;
    // Published (the artifact's own runs): Pollux 2,751 s, Tiresias 4,038 s, Optimus+Oracle 5,682 s.
    const double pollux = mean_avg_jct("pollux"), tiresias = mean_avg_jct("pollux-tiresias"),
                 optimus = mean_avg_jct("optimus");
    const double want_pollux = artifact_mean("pollux"), want_tiresias = artifact_mean("tiresias"),
                 want_optimus = artifact_mean("optimus");
    CHECK(want_pollux == Approx(2751).margin(1));
    CHECK(want_tiresias == Approx(4038).margin(1));
    CHECK(want_optimus == Approx(5682).margin(1));
    std::printf("pollux job-load 1.0: pollux %.0f s (artifact %.0f), tiresias %.0f s (%.0f), optimus %.0f s (%.0f)\n",
                pollux, want_pollux, tiresias, want_tiresias, optimus, want_optimus);
    CHECK(pollux == Approx(want_pollux).epsilon(0.10));
    CHECK(tiresias == Approx(want_tiresias).epsilon(0.10));
    CHECK(optimus == Approx(want_optimus).epsilon(0.10));
    CHECK(pollux < tiresias);
    CHECK(tiresias < optimus);
    // Longer scheduling intervals, longer JCTs (Pollux's results-period: the same direction).
    const double every_240 = mean_avg_jct("pollux", "interval=240");
    std::printf("pollux job-load 1.0: interval 60 s %.0f s, interval 240 s %.0f s\n", pollux, every_240);
    CHECK(every_240 > pollux);
}

namespace {

/// The mean over Sia's Philly workloads 1-8 of each one's average JCT (hours) on Sia's heterogeneous 64 GPUs,
/// with the choices of models/presets/sia-artifact.json.
double sia_philly_mean_hours(const std::string& policy, const std::string& params = "") {
    double sum = 0;
    for (int w = 1; w <= 8; ++w) {
        RunConfig c = pollux_artifact_config(policy);
        c.trace = fmt::format("{}/traces/sia/workloads/philly/workload-{}.csv", DLSIM_SHARED_DATA, w);
        c.trace_format = "pollux";
        c.cluster = fmt::format("{}/models/clusters/sia_hetero_64.json", DLSIM_SOURCE_DIR);
        c.profiles = fmt::format("{}/models/profiles/sia_elastic.json", DLSIM_SOURCE_DIR);
        c.restart.kind = RestartSpec::Kind::PerModel;
        c.restart.restart_costs = {{"cifar10", 50}, {"deepspeech2", 25}, {"bert", 120},
                                   {"yolov3", 80},  {"imagenet", 250},   {"ncf", 15}};
        c.slowdowns = {{"cifar10", 1.8},     {"ncf", 1.5},      {"bert", 1.2},
                       {"deepspeech2", 1.2}, {"imagenet", 1.2}, {"yolov3", 1.2}};
        if (!params.empty()) add_param(c, params);
        const RunOutcome o = simulate(load_inputs(c), c);
        INFO(policy << " " << params << " workload-" << w);
        REQUIRE(o.summary.unfinished == 0);
        REQUIRE(o.summary.rejected == 0);
        sum += o.summary.avg_jct;
    }
    return sum / 8 / 3600;
}

}  // namespace

TEST_CASE(
    "sia's Table 3 on its Philly workloads: sia, pollux across types and gavel-tj within 15% of the paper, "
    "in its order",
    "[policies][shared-data]") {
    if (!shared_data_present(std::string(DLSIM_SHARED_DATA) + "/traces/sia/workloads/philly/workload-8.csv")) return;
    // Published (Jayaram Subramanya et al., SOSP'23, Table 3, Philly): Sia 0.6 h, Pollux 1.0 h, Gavel+TJ 1.9 h.
    const double sia = sia_philly_mean_hours("sia"), pollux = sia_philly_mean_hours("pollux", "types=unaware"),
                 gavel = sia_philly_mean_hours("gavel-tj");
    std::printf("sia Table 3, Philly: sia %.3f h (paper 0.6), pollux %.3f h (1.0), gavel-tj %.3f h (1.9)\n", sia,
                pollux, gavel);
    CHECK(sia == Approx(0.6).epsilon(0.15));
    CHECK(pollux == Approx(1.0).epsilon(0.15));
    CHECK(gavel == Approx(1.9).epsilon(0.15));
    CHECK(sia <= pollux);
    CHECK(pollux < gavel);
}

}  // namespace dlsim::test::elastic_runs_tests
