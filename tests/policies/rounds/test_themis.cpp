// Hand-worked schedules of `themis` (policies/rounds/themis.hpp: dlsim's approximation of Themis, Mahajan et
// al., NSDI 2020, which has no public code; policies/rounds/README.md): the filter of the most unfair
// jobs, the greedy auction on log(rho_old / rho_new), leases and their renewal, work conservation, and
// the choice of GPU type. Jobs without a model run their trace duration on their GPU count.
//
// Notation in the comments: I(t) = integral of the number of jobs in the system up to t (job-seconds);
// N̄ = (I(now) - I(arrival)) / age; rho = (age + time left) / (duration x max(1, g N̄ / W)), W the GPUs of
// the job's fastest type; a bidder's gain = log((age + lease + restart + R/rate) / (age + time left on
// the type)): only the numerators of the two rho's, as T_id cancels.
#include "models/base/random.hpp"
#include "tests/support/schedule_checks.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::themis_tests {

namespace {

RunOutcome run_themis(const RunInputs& in, const std::vector<std::string>& params, double restart_cost = 0) {
    return run_seeded(in, "themis", 0, params, restart_cost);
}

// A holds the cluster until 100 while B, C, D, E arrive; at 100 four jobs contend.
// Jobs in the system: 1 on [0,10), 2 on [10,20), 3 on [20,30), 4 on [30,99), 5 on [99,100):
// I(10) = 10, I(20) = 30, I(30) = 60, I(99) = 336, I(100) = 341.
const char* kContention =
    "job_id,submit_time,num_gpus,duration\n"
    "A,0,{g},100\nB,10,1,100\nC,20,1,40\nD,30,1,200\nE,99,1,10\n";

std::string contention(int a_gpus) {
    std::string t = kContention;
    t.replace(t.find("{g}"), 3, std::to_string(a_gpus));
    return t;
}

const char* kFastSlow = R"({"gpu_types": {"fast": {}, "slow": {}},
    "node_types": {"f": {"gpu_type": "fast", "gpus": 1}, "s": {"gpu_type": "slow", "gpus": 1}},
    "racks": [{"node_type": "f", "nodes": 1}, {"node_type": "s", "nodes": 1}]})";

}  // namespace

TEST_CASE("themis: with f = 0.5 only the two most unfair of four contending jobs are offered the GPU",
          "[schedule][themis]") {
    // One GPU, lease 600 s (no lease expires while a job waits: each job ends within its lease).
    //  t=0    A alone: starts, 0-100.
    //  t=100  A done; B, C, D, E contend (M = 4), W = 1 so T_id = duration x N̄:
    //         N̄_B = (341-10)/90 = 3.678, rho_B = (90+100)/(100 x 3.678) = 0.517
    //         N̄_C = (341-30)/80 = 3.888, rho_C = (80+40)/(40 x 3.888)   = 0.772
    //         N̄_D = (341-60)/70 = 4.014, rho_D = (70+200)/(200 x 4.014) = 0.336
    //         N̄_E = (341-336)/1 = 5,     rho_E = (1+10)/(10 x 5)        = 0.220
    //         f = 0.5: candidates = ceil(0.5 x 4) = 2: C and B. Gains: C log(720/120), B log(790/190):
    //         C runs 100-140. (E, with the largest gain log(611/11), is not offered the GPU.)
    //  t=140  I = 341 + 4 x 40 = 501. rho_B = 230/(100 x 491/130) = 0.609, rho_D = 310/(200 x 441/110) =
    //         0.387, rho_E = 51/(10 x 165/41) = 1.267; ceil(1.5) = 2 candidates: E, B. E gains more
    //         (log(651/51) > log(830/230)): E 140-150.
    //  t=150  I = 531. rho_B = 240/(100 x 521/140) = 0.645 > rho_D = 320/(200 x 471/120) = 0.408, one
    //         candidate: B 150-250, then D 250-450.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile, contention(1));
    const auto o = run_themis(in, {"f=0.5"});
    const double start[] = {0, 150, 100, 250, 140};
    const double finish[] = {100, 250, 140, 450, 150};
    check_schedule(in, o, start, finish);
}

TEST_CASE("themis: the auction gives the GPU to the largest log(rho_old / rho_new), not the largest rho",
          "[schedule][themis]") {
    // The same contention with f = 0: every job bids. At 100 the gains are (age + lease + R) / (age + R):
    // E 611/11 = 55.5, C 720/120 = 6, B 790/190 = 4.2, D 870/270 = 3.2: E (the smallest rho, 0.220) runs
    // 100-110. At 110: C 730/130 = 5.6 > B 800/200 = 4 > D 880/280 = 3.1: C 110-150. At 150: B 840/240 =
    // 3.5 > D 920/320 = 2.9: B 150-250, D 250-450.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile, contention(1));
    const auto o = run_themis(in, {"f=0"});
    const double start[] = {0, 150, 110, 250, 100};
    const double finish[] = {100, 250, 150, 450, 110};
    check_schedule(in, o, start, finish);
}

TEST_CASE("themis: GPUs the candidates do not take go to the other jobs by rho (work conservation)",
          "[schedule][themis]") {
    // Two GPUs; A is a 2-GPU gang, 0-100. Same arrivals, so the same N̄; W = 2 halves every T_id
    // (N̄ > 2 for all): at 100 rho_C = 1.543 > rho_B = 1.033 > rho_D = 0.673 > rho_E = 0.440.
    //  t=100  default f = 0.8: ceil(0.2 x 4) = 1 candidate, C: it wins a GPU (100-140). The other GPU is
    //         leftover: by rho, B (100-200), although E would gain more.
    //  t=140  C done, one GPU free; M = 3, one candidate. B runs (left 60): rho_B = (130+60)/(100 x
    //         3.777/2) = 1.006; rho_D = 310/(200 x 4.009/2) = 0.773; rho_E = 51/(10 x 4.024/2) = 2.535:
    //         E wins, 140-150.
    //  t=150  I = 531. rho_B = (140+50)/(100 x 3.721/2) = 1.021 > rho_D = 320/(200 x 3.925/2) = 0.815: the
    //         candidate B holds its lease and does not bid, so the free GPU is leftover: D 150-350.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile, contention(2));
    const auto o = run_themis(in, {});
    const double start[] = {0, 100, 100, 150, 140};
    const double finish[] = {100, 200, 140, 350, 150};
    check_schedule(in, o, start, finish);
    // With f = 0 the two largest gains (E 611/11, C 720/120) start at 100; then B (800/200 > D 880/280)
    // at 110 when E ends, and D at 140 when C ends.
    const auto all = run_themis(in, {"f=0"});
    const double all_start[] = {0, 110, 100, 140, 100};
    const double all_finish[] = {100, 210, 140, 340, 110};
    check_schedule(in, all, all_start, all_finish);
}

TEST_CASE("themis: a lease holds until it expires, then the GPU goes to the most unfair job", "[schedule][themis]") {
    // One GPU, lease 100 s. A (500 s) starts at 0 with a lease to 100. B (20 s) arrives at 10 and C
    // (100 s) at 50: neither gets A's GPU before 100, though B is the more unfair from about 20 on.
    //  t=100  A's lease expires. I(100) = 10 + 2 x 40 + 3 x 50 = 240. rho_A = (100+400)/(500 x 2.4) =
    //         0.417, rho_B = (90+20)/(20 x 230/90) = 2.152, rho_C = (50+100)/(100 x 150/50) = 0.5.
    //         ceil(0.2 x 3) = 1 candidate: B wins (gain log(210/110)); A loses its GPU: B 100-120.
    //  t=120  I = 300. rho_A = (120+400)/(500 x 2.5) = 0.416 < rho_C = (70+100)/(100 x 3) = 0.567: C 120-220.
    //  t=220  A restarts with 400 s left: 220-620.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\nA,0,1,500\nB,10,1,20\nC,50,1,100\n");
    const auto o = run_themis(in, {"lease=100"});
    const double start[] = {0, 100, 120};
    const double finish[] = {620, 120, 220};
    const unsigned preempted[] = {1, 0, 0};
    check_schedule(in, o, start, finish, preempted);
    // With a restart cost of 5 s A pays it once, at 220 (its gain's wait adds the same 5 s: no decision
    // changes): 225 + 400 = 625.
    const auto costly = run_themis(in, {"lease=100"}, 5);
    const double costly_finish[] = {625, 120, 220};
    check_schedule(in, costly, start, costly_finish, preempted);
    CHECK(costly.jobs[0].restarts == 1);
}

TEST_CASE("themis: a lease is auctioned at the first decision after its end", "[schedule][themis]") {
    // One GPU, lease 100 s: decisions at arrivals, completions and every 100 s (100, 200, ...). A (500 s)
    // starts at 30 with a lease to 130; B (20 s) arrives at 50.
    //  t=100  timer: A's lease runs to 130, nothing changes.
    //  t=200  timer: A's lease has ended. I(200) = 20 + 2 x 150 = 320: rho_A = (170+330)/(500 x 320/170) =
    //         0.531, rho_B = (150+20)/(20 x 300/150) = 4.25; one candidate, B: 200-220. A (330 s left)
    //         resumes 220-550.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\nA,30,1,500\nB,50,1,20\n");
    const auto o = run_themis(in, {"lease=100"});
    const double start[] = {30, 200};
    const double finish[] = {550, 220};
    const unsigned preempted[] = {1, 0};
    check_schedule(in, o, start, finish, preempted);
    // An arrival at 150 is a decision after 130: C (1000 s) arrives, I(150) = 20 + 2 x 100 = 220:
    // rho_A = (120+380)/(500 x 220/120) = 0.545, rho_B = (100+20)/(20 x 200/100) = 3, rho_C = 1000/(1000 x 3)
    // = 0.333; one candidate, B: 150-170.
    const auto in2 = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                      "job_id,submit_time,num_gpus,duration\nA,30,1,500\nB,50,1,20\nC,150,1,1000\n");
    const auto o2 = run_themis(in2, {"lease=100"});
    CHECK(start_s(o2, 1) == 150);
    CHECK(finish_s(o2, 1) == 170);
    CHECK(o2.jobs[0].preemptions >= 1);
}

TEST_CASE("themis: a lease won again is renewed in place, without a restart", "[schedule][themis]") {
    // One GPU, lease 100 s, restart cost 5 s. A (300 s) starts at 0; B (1000 s) arrives at 90.
    //  t=100  A's lease expires. I(100) = 90 + 2 x 10 = 110: rho_A = (100+200)/(300 x 1.1) = 0.909 >
    //         rho_B = (10+1000)/(1000 x 2) = 0.505. A is the candidate: kept on its GPUs it finishes in
    //         200 s, waiting a lease would cost it 100 + 5 more: gain log(405/300) > 0. It keeps its GPU.
    //  t=200  I = 310: rho_A = 300/(300 x 1.55) = 0.645 > rho_B = 1110/(1000 x 2) = 0.555: renewed again.
    //  t=300  A done (no restart charged: 0-300 exactly); B's first start pays nothing: 300-1300.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\nA,0,1,300\nB,90,1,1000\n");
    const auto o = run_themis(in, {"lease=100"}, 5);
    const double start[] = {0, 300};
    const double finish[] = {300, 1300};
    check_schedule(in, o, start, finish);
    CHECK(o.jobs[0].restarts == 0);
    CHECK(o.jobs[0].restart_time == 0);
    CHECK(o.summary.preemptions == 0);
}

TEST_CASE("themis: the auction puts each job on the type that improves its rho most", "[schedule][themis]") {
    // One fast and one slow GPU, lease 100 s, f = 0 (both bid). P (model m: 4 it/s on fast, 1 on slow)
    // has 400 it: 100 s on fast, 400 on slow. Q (model n: 2 on fast, 1 on slow).
    // Case 1: Q has 400 it (200 s fast, 400 slow). At 0 both bid for fast, their best type: P gains
    // log((100+100)/100) = log 2, Q log((100+200)/200) = log 1.5: P takes fast, 0-100. On slow Q would
    // lose (400 > 300) so it does not bid, but takes it as leftover: 0-100 on slow (100 it done).
    // At 100 P is done and Q's lease expires with fast free: Q finishes 300 it sooner on fast (150 s)
    // than on slow (300 s): it moves, 100-250.
    const char* profile = R"({"models": {"m": {"throughput": {"fast": 4, "slow": 1}},
                                         "n": {"throughput": {"fast": 2, "slow": 1}}}})";
    {
        const auto in = inputs_from_text(kFastSlow, profile,
                                         "job_id,submit_time,num_gpus,duration,model,gpu_type\n"
                                         "P,0,1,100,m,fast\nQ,0,1,200,n,fast\n");
        const auto o = run_themis(in, {"f=0", "lease=100"});
        const double start[] = {0, 0};
        const double finish[] = {100, 250};
        const unsigned preempted[] = {0, 1};
        check_schedule(in, o, start, finish, preempted);
        CHECK(o.jobs[1].migrations == 1);
        CHECK(o.jobs[0].gpu_type == 0);  // fast
        CHECK(o.jobs[1].gpu_type == 0);  // its last allocation: fast
    }
    // Case 1 again with a restart cost of 200 s, or a margin of 200 s: at 100 the move would finish Q in
    // 200 + 150 (or 150 + 200) s against 300 s where it is: it stays on slow, 0-400, never preempted.
    for (const auto& [restart, margin] : {std::pair{200.0, "margin=0.001"}, std::pair{0.0, "margin=200"}}) {
        INFO("restart " << restart << ", " << margin);
        const auto in = inputs_from_text(kFastSlow, profile,
                                         "job_id,submit_time,num_gpus,duration,model,gpu_type\n"
                                         "P,0,1,100,m,fast\nQ,0,1,200,n,fast\n");
        const auto o = run_themis(in, {"f=0", "lease=100", margin}, restart);
        const double start[] = {0, 0};
        const double finish[] = {100, 400};
        check_schedule(in, o, start, finish);
        CHECK(o.jobs[1].gpu_type == 1);  // slow
    }
    // Case 2: Q has 100 it (50 s fast, 100 slow): Q gains log((100+50)/50) = log 3 > P's log 2, so Q takes
    // fast (0-50) and P the slow GPU as leftover (0-100, 100 it done). Fast idles from 50 (nobody waits
    // and P holds a lease) until P's lease expires at 100: P moves to fast, 300/4 = 75 s: 100-175.
    {
        const auto in = inputs_from_text(kFastSlow, profile,
                                         "job_id,submit_time,num_gpus,duration,model,gpu_type\n"
                                         "P,0,1,100,m,fast\nQ,0,1,50,n,fast\n");
        const auto o = run_themis(in, {"f=0", "lease=100"});
        const double start[] = {0, 0};
        const double finish[] = {175, 50};
        const unsigned preempted[] = {1, 0};
        check_schedule(in, o, start, finish, preempted);
        CHECK(o.jobs[0].migrations == 1);
    }
}

TEST_CASE("themis: payments=true: an auction winner keeps its GPUs for its share of the lease", "[schedule][themis]") {
    // One GPU, lease 100 s, f = 0. A (60 s) and B (100 s) arrive at 0, C (5 s) at 20.
    //  t=0   A gains log((100+60)/60) > B's log((100+100)/100): A wins. Without A, B would have won and
    //        finished in 100 s instead of waiting (200): A keeps the GPU for 100/200 of the lease, to 50.
    //  t=50  A's lease ends (10 s left). Gains: A log(160/60) = 0.98, B log((50+100+100)/150) = 0.51,
    //        C log((30+100+5)/35) = 1.35: C wins, A is preempted. (C's share, 60/160 = 0.375 of the
    //        lease, is longer than its run.) C 50-55.
    //  t=55  A log((55+100+10)/65) = 0.93 > B log(255/155) = 0.50: A 55-65 (share 155/255). B 65-165.
    // Without payments A holds its lease until it ends at 60, then C (40+100+5)/45 beats B: C 60-65.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\nA,0,1,60\nB,0,1,100\nC,20,1,5\n");
    const auto paid = run_themis(in, {"f=0", "lease=100", "payments=true"});
    const double start[] = {0, 65, 50};
    const double finish[] = {65, 165, 55};
    const unsigned preempted[] = {1, 0, 0};
    check_schedule(in, paid, start, finish, preempted);
    const auto free = run_themis(in, {"f=0", "lease=100"});
    const double free_start[] = {0, 65, 60};
    const double free_finish[] = {60, 165, 65};
    check_schedule(in, free, free_start, free_finish);
}

TEST_CASE("themis: the fast path gives the full ranking's schedule", "[schedule][themis]") {
    // 2,000 jobs of 1, 2 or 4 GPUs, two models, on 4 fast and 4 slow GPUs (2 nodes each), overloaded and
    // at about 0.6, lease 30 s: many expired leases, moves between the types, preemptions, and calls where
    // every bidder fits. Every finish time, preemption and move must match with full_walk=true.
    for (const double gap : {20.0, 40.0}) {  // overloaded; about 0.6
        std::string csv = "job_id,submit_time,num_gpus,duration,model,gpu_type\n";
        Rng rng(11, "test/themis");
        double t = 0;
        for (int i = 0; i < 2000; ++i) {
            t += rng.exponential(1.0 / gap);
            csv += fmt::format("j{},{:.3f},{},{:.3f},{},fast\n", i, t, 1 << rng.below(3), 1 + rng.exponential(1.0 / 60),
                               rng.below(2) == 0 ? "m" : "n");
        }
        const auto in = inputs_from_text(R"({"gpu_types": {"fast": {}, "slow": {}},
            "node_types": {"f": {"gpu_type": "fast", "gpus": 2}, "s": {"gpu_type": "slow", "gpus": 2}},
            "racks": [{"node_type": "f", "nodes": 2}, {"node_type": "s", "nodes": 2}]})",
                                         R"({"models": {"m": {"throughput": {"fast": 3, "slow": 1}},
                                                        "n": {"throughput": {"fast": 1.5, "slow": 1}}}})",
                                         csv);
        for (const auto& [restart, payments] :
             {std::pair{0.0, "payments=false"}, std::pair{2.0, "payments=false"}, std::pair{0.0, "payments=true"}}) {
            INFO("mean gap " << gap << " s, restart cost " << restart << ", " << payments);
            const auto fast = run_themis(in, {"lease=30", payments}, restart);
            const auto full = run_themis(in, {"lease=30", payments, "full_walk=true"}, restart);
            REQUIRE(fast.summary.finished == 2000);
            CHECK(fast.summary.preemptions > 100);
            std::size_t differ = 0, moves = 0;
            for (std::size_t j = 0; j < fast.jobs.size(); ++j) {
                const JobInfo &a = fast.jobs[j], &b = full.jobs[j];
                differ += a.finish != b.finish || a.preemptions != b.preemptions || a.migrations != b.migrations;
                moves += fast.jobs[j].migrations;
            }
            CHECK(differ == 0);
            CHECK(moves > 5);
            CHECK(fast.stats.policy_calls == full.stats.policy_calls);
        }
    }
}

TEST_CASE("themis: parameters are checked", "[bad-input][themis]") {
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\nA,0,1,1\n");
    CHECK_THROWS_WITH(run_themis(in, {"f=1"}),
                      Catch::Contains("policy themis: parameter f: expected a number in [0, 1)"));
    CHECK_THROWS_WITH(run_themis(in, {"f=-0.1"}), Catch::Contains("policy themis: parameter f"));
    CHECK_THROWS_WITH(run_themis(in, {"lease=0"}), Catch::Contains("policy themis: parameter lease"));
    CHECK_THROWS_WITH(run_themis(in, {"margin=-1"}), Catch::Contains("policy themis: parameter margin"));
    CHECK_NOTHROW(run_themis(in, {"f=0", "lease=1"}));
}

}  // namespace dlsim::test::themis_tests
