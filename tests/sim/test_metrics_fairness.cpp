// Summary metrics worked by hand: finish-time fairness ρ (as Themis defines it, Mahajan et al., NSDI 2020:
// JCT ÷ the time alone on an equal share 1/N̄ of the fastest type's GPUs, N̄ the mean number of jobs in the
// system over the job's lifetime), JCT by VC and by user, GPU-hours by type, jobs that waited longer than a
// threshold, and the policy-call timing histogram of `run`.
#include "models/base/json_fields.hpp"
#include "sim/app/run.hpp"
#include "sim/duration_histogram.hpp"
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::metrics_fairness_tests {

namespace {

// One GPU, fifo. a [0, 10), b waits from 2 and runs [10, 14), c waits from 5 and runs [14, 20).
// Jobs in the system N(t): 1 on [0, 2), 2 on [2, 5), 3 on [5, 10), 2 on [10, 14), 1 on [14, 20).
// Lifetime integrals: a 2 + 6 + 15 = 23, b 6 + 15 + 8 = 29, c 15 + 8 + 6 = 29 (job-seconds).
// ρ = JCT² ÷ (T_alone × ∫N): a 100 / (10 × 23) = 10/23, b 144 / (4 × 29) = 36/29, c 225 / (6 × 29) = 225/174.
const char* kTrace =
    "job_id,submit_time,num_gpus,duration,user,vc\n"
    "a,0,1,10,u1,vcB\nb,2,1,4,u2,vcA\nc,5,1,6,u1,vcA\n";

RunOutcome run(const std::string& trace, RunConfig c = {}) {
    c.out.clear();
    return simulate(inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile, trace), c);
}

}  // namespace

TEST_CASE("finish-time fairness: three jobs on one GPU, exact N-bar", "[engine]") {
    const RunOutcome o = run(kTrace);
    REQUIRE(o.ftf_rho.size() == 3);
    CHECK(o.ftf_rho[0] == Approx(10.0 / 23).epsilon(1e-12));
    CHECK(o.ftf_rho[1] == Approx(36.0 / 29).epsilon(1e-12));
    CHECK(o.ftf_rho[2] == Approx(225.0 / 174).epsilon(1e-12));
    CHECK(o.summary.ftf_rho_max == Approx(225.0 / 174).epsilon(1e-12));
    CHECK(o.summary.ftf_rho_mean == Approx((10.0 / 23 + 36.0 / 29 + 225.0 / 174) / 3).epsilon(1e-12));
    CHECK(o.summary.ftf_share_above_1 == Approx(2.0 / 3).epsilon(1e-12));

    // Over the measurement window (arrival indices 1 and 2): b and c only, both above 1.
    RunConfig window;
    window.measure = parse_measure_jobs("1:");
    const RunOutcome w = run(kTrace, window);
    CHECK(w.summary.ftf_rho_max == Approx(225.0 / 174).epsilon(1e-12));
    CHECK(w.summary.ftf_rho_mean == Approx((36.0 / 29 + 225.0 / 174) / 2).epsilon(1e-12));
    CHECK(w.summary.ftf_share_above_1 == 1.0);

    // A job alone in the system is exactly 1.
    const RunOutcome alone = run("job_id,submit_time,num_gpus,duration\nx,3,1,7\n");
    CHECK(alone.ftf_rho[0] == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("finish-time fairness: the time alone is on the job's fastest type", "[engine]") {
    // Types fast (2 it/s) and slow (1 it/s), one GPU each. m's work is 10 s on slow = 10 iterations, 5 s on fast.
    // fifo takes the fastest type with room: x runs on fast [0, 5); y (submitted at 1) finds only slow:
    // [1, 11). N: 1 on [0, 1), 2 on [1, 5), 1 on [5, 11). y: JCT 10, ∫N = 8 + 6 = 14, alone 5 s:
    // ρ = 100 / (5 × 14) = 10/7. x: JCT 5, ∫N = 1 + 8 = 9, alone 5: ρ = 25 / 45 = 5/9.
    const std::string cluster = R"({"gpu_types": {"fast": {}, "slow": {}},
        "node_types": {"f": {"gpu_type": "fast", "gpus": 1}, "s": {"gpu_type": "slow", "gpus": 1}},
        "racks": [{"node_type": "f", "nodes": 1}, {"node_type": "s", "nodes": 1}]})";
    const std::string profile = R"({"models": {"m": {"throughput": {"fast": 2, "slow": 1}}}})";
    RunConfig c;
    c.out.clear();
    const RunOutcome o = simulate(inputs_from_text(cluster, profile,
                                                   "job_id,submit_time,num_gpus,duration,model,gpu_type\n"
                                                   "x,0,1,10,m,slow\ny,1,1,10,m,slow\n"),
                                  c);
    CHECK(o.jobs[0].finish == 5'000'000);
    CHECK(o.jobs[1].finish == 11'000'000);
    CHECK(o.ftf_rho[0] == Approx(5.0 / 9).epsilon(1e-12));
    CHECK(o.ftf_rho[1] == Approx(10.0 / 7).epsilon(1e-12));
    // GPU-hours by type: 5 GPU-s on fast, 10 on slow.
    REQUIRE(o.summary.gpu_hours_by_type.size() == 2);
    CHECK(o.summary.gpu_hours_by_type[0].first == "fast");
    CHECK(o.summary.gpu_hours_by_type[0].second == Approx(5.0 / 3600).epsilon(1e-12));
    CHECK(o.summary.gpu_hours_by_type[1].second == Approx(10.0 / 3600).epsilon(1e-12));
}

TEST_CASE("summary: JCT by VC and by user in name order; jobs that waited longer than a threshold", "[engine]") {
    const RunOutcome o = run(kTrace);
    // JCTs a 10, b 12, c 15. vcA = {b, c}, vcB = {a}; u1 = {a, c}, u2 = {b}. vcB was seen first.
    REQUIRE(o.summary.by_vc.size() == 2);
    CHECK(o.summary.by_vc[0].name == "vcA");
    CHECK(o.summary.by_vc[0].jobs == 2);
    CHECK(o.summary.by_vc[0].avg_jct == 13.5);
    CHECK(o.summary.by_vc[1].name == "vcB");
    CHECK(o.summary.by_vc[1].jobs == 1);
    CHECK(o.summary.by_vc[1].avg_jct == 10.0);
    REQUIRE(o.summary.by_user.size() == 2);
    CHECK(o.summary.by_user[0].name == "u1");
    CHECK(o.summary.by_user[0].avg_jct == 12.5);
    CHECK(o.summary.by_user[1].name == "u2");
    CHECK(o.summary.by_user[1].avg_jct == 12.0);

    // Queueing delays: a 0, b 8, c 9. The default threshold (3600 s) counts none.
    CHECK(o.summary.jobs_waited_over_threshold == 0);
    CHECK(o.summary.wait_threshold == 3600.0);
    RunConfig eight;
    eight.wait_threshold = 8;  // strictly longer: c only
    CHECK(run(kTrace, eight).summary.jobs_waited_over_threshold == 1);
    RunConfig shorter;
    shorter.wait_threshold = 7.5;
    CHECK(run(kTrace, shorter).summary.jobs_waited_over_threshold == 2);

    // In the result file: objects in name order, per-job ρ, and the policy-call timing in `run`.
    RunConfig c;
    c.out = temp_path("metrics-fairness.json");
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile, kTrace);
    const RunOutcome out = simulate(in, c);
    write_outputs(in, c, out, {});
    const auto result = json_fields::parse_file(c.out);
    CHECK(result["summary"]["by_vc"].dump() == R"({"vcA":{"jobs":2,"avg_jct":13.5},"vcB":{"jobs":1,"avg_jct":10}})");
    CHECK(result["summary"]["by_user"]["u1"]["jobs"] == 2);
    CHECK(result["jobs"][2]["ftf_rho"].get<double>() == Approx(225.0 / 174).epsilon(1e-12));
    const auto& calls = result["run"]["policy_call_seconds"];
    CHECK(calls["p50"].get<double>() <= calls["p99"].get<double>());
    CHECK(calls["p99"].get<double>() <= calls["max"].get<double>());
    CHECK(calls["max"].get<double>() > 0);

    // A trace without the columns: empty objects.
    const RunOutcome none = run("job_id,submit_time,num_gpus,duration\nx,0,1,5\n");
    CHECK(none.summary.by_vc.empty());
    CHECK(none.summary.by_user.empty());
}

TEST_CASE("policy call timing: log-spaced histogram percentiles", "[unit]") {
    DurationHistogram h;
    CHECK(h.percentile(50) == 0);
    for (int i = 0; i < 98; ++i) h.add(2e-6);
    h.add(1e-3);
    h.add(0.5);
    CHECK(h.count() == 100);
    CHECK(h.max() == 0.5);
    // The 50th and 98th calls are 2 µs: the upper edge of its bin, within 12.2% above.
    CHECK(h.percentile(50) >= 2e-6);
    CHECK(h.percentile(50) <= 2e-6 * 1.1221);
    CHECK(h.percentile(98) == h.percentile(50));
    // The 99th is 1 ms, the 100th the exact maximum.
    CHECK(h.percentile(99) >= 1e-3);
    CHECK(h.percentile(99) <= 1e-3 * 1.1221);
    CHECK(h.percentile(100) == 0.5);
}

TEST_CASE("finish-time fairness: on a cluster wider than g x N-bar the share is the job's own GPUs", "[engine]") {
    // 4 GPUs (one node). a (2 GPUs, 10 s) at 0, b (1 GPU, 6 s) at 1: fifo runs both at once.
    // N: 1 on [0, 1), 2 on [1, 7), 1 on [7, 10). a: JCT 10, ∫N = 1 + 12 + 3 = 16, N̄ = 1.6; its share
    // 4 / 1.6 = 2.5 GPUs >= 2, so T_id = T_alone = 10 and ρ = 1. b: JCT 6, N̄ = 2, share 2 >= 1: ρ = 1.
    // With a 3-GPU job c (4 s) at 2 as well, c waits for a (b holds 1, a 2, 1 free): c [10, 14), JCT 12.
    // N for c: 3 on [2, 7), 2 on [7, 10), 1 on [10, 14): ∫ = 15 + 6 + 4 = 25, N̄ = 25/12; share
    // 4 / (25/12) = 1.92 GPUs < 3: T_id = 4 × 3 / 1.92 = 6.25, ρ = 12 / 6.25 = 1.92.
    RunConfig c;
    c.out.clear();
    const auto two = simulate(inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                                               "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,1,1,6\n"),
                              c);
    CHECK(two.ftf_rho[0] == Approx(1.0).epsilon(1e-12));
    CHECK(two.ftf_rho[1] == Approx(1.0).epsilon(1e-12));
    const auto three = simulate(inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                                                 "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,1,1,6\nc,2,3,4\n"),
                                c);
    CHECK(finish_s(three, 2) == 14);
    CHECK(three.ftf_rho[2] == Approx(1.92).epsilon(1e-12));
}

}  // namespace dlsim::test::metrics_fairness_tests
