// Hand-worked schedules of the sharing policies drf and vc-quota (every time derived in the comments).
// Jobs have no model: each runs exactly its duration on its GPU count.
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::vc_tests {

namespace {

struct Expected {
    double start, finish;
    unsigned preemptions;
};

void check_schedule(const RunInputs& in, const RunOutcome& o, const std::vector<Expected>& expected) {
    REQUIRE(o.jobs.size() == expected.size());
    for (std::size_t j = 0; j < expected.size(); ++j) {
        INFO("job " << in.trace.jobs[j].id);
        CHECK(start_s(o, j) == expected[j].start);
        CHECK(finish_s(o, j) == expected[j].finish);
        CHECK(o.jobs[j].preemptions == expected[j].preemptions);
    }
}

/// A quotas file in the temporary folder, removed at the end of the test.
struct QuotaFile {
    std::string path;
    explicit QuotaFile(const std::string& json) {
        const auto dir = std::filesystem::temp_directory_path() / "dlsim-tests";
        std::filesystem::create_directories(dir);
        path = (dir / ("quotas-" + std::to_string(::getpid()) + ".json")).string();
        std::ofstream(path) << json;
    }
    ~QuotaFile() { std::filesystem::remove(path); }
};

RunOutcome run_with(const RunInputs& in, const std::string& policy, const std::vector<std::string>& params) {
    RunConfig c;
    c.policy = policy;
    for (const auto& p : params) add_param(c, p);
    c.out.clear();
    return simulate(in, c);
}

// Two VCs on 4 GPUs: A (first in the trace: id 1) and B (id 2).
const char* kDrfTrace =
    "job_id,submit_time,num_gpus,duration,vc\n"
    "a1,0,1,10,A\na2,0,1,10,A\na3,0,1,6,A\na4,0,1,6,A\nb1,0,1,5,B\nb2,0,1,5,B\nb3,0,2,3,B\n";

}  // namespace

TEST_CASE("drf: progressive filling by weighted share, ties to the lower VC id", "[schedule][drf]") {
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile, kDrfTrace);
    SECTION("weights A:2, B:1") {
        // Share = GPUs held / weight.
        //  t=0  A 0 = B 0 -> A (lower id): a1 (A 0.5); B 0: b1 (B 1); A 0.5: a2 (A 1); A 1 = B 1 -> A: a3 (A 1.5).
        //  t=5  b1 done: B 0 -> b2 (5-10).   t=6  a3 done: A 1 = B 1 -> A: a4 (6-12).
        //  t=10 a1, a2, b2 done: B 0 < A 0.5 -> b3 (2 GPUs, 10-13); A has nothing waiting.
        const auto o = run_with(in, "drf", {"weights=A:2,B:1"});
        check_schedule(in, o, {{0, 10, 0}, {0, 10, 0}, {0, 6, 0}, {6, 12, 0}, {0, 5, 0}, {5, 10, 0}, {10, 13, 0}});
        CHECK(o.summary.preemptions == 0);
    }
    SECTION("equal weights") {
        //  t=0  A a1 (1); B b1 (1); tie -> A a2 (2); B 1 < 2 -> b2 (2). a3, a4, b3 wait.
        //  t=5  b1, b2 done: B 0 -> b3 (2 GPUs, 5-8).   t=8  b3 done: A a3, a4 (8-14).
        const auto o = run_with(in, "drf", {});
        check_schedule(in, o, {{0, 10, 0}, {0, 10, 0}, {8, 14, 0}, {8, 14, 0}, {0, 5, 0}, {0, 5, 0}, {5, 8, 0}});
    }
    SECTION("per=user: the same trace with no user column is one principal: FIFO with SKIP") {
        //  t=0  a1 a2 a3 a4 fill the 4 GPUs.   t=6  a3, a4 done: b1, b2 (6-11).   t=10 a1, a2 done: b3 (10-13).
        const auto o = run_with(in, "drf", {"per=user"});
        check_schedule(in, o, {{0, 10, 0}, {0, 10, 0}, {0, 6, 0}, {0, 6, 0}, {6, 11, 0}, {6, 11, 0}, {10, 13, 0}});
    }
}

TEST_CASE("drf: a weight names a VC of the trace", "[schedule][drf]") {
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile, kDrfTrace);
    CHECK_THROWS_WITH(run_with(in, "drf", {"weights=C:2"}),
                      Catch::Contains("policy drf: parameter weights: no VC 'C'"));
    CHECK_THROWS_WITH(run_with(in, "drf", {"weights=A"}), Catch::Contains("expected name:weight pairs"));
    CHECK_THROWS_WITH(run_with(in, "drf", {"share=demand"}), Catch::Contains("needs per=job"));
}

TEST_CASE("drf preempt=true: an over-share VC gives a GPU back, youngest job first, once", "[schedule][drf]") {
    // 2 GPUs. A's a1 and a2 take both at 0. B's b1 (1 GPU, 3 s) arrives at 2: after the swap A 1 >= B 1,
    // so the youngest of A's jobs goes: both started at 0, the higher id (a2) first. b1 runs 2-5; a2 (8 s
    // left) restarts at 5 and ends at 13. A cannot take it back: B would end at 0 < A's 2.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration,vc\na1,0,1,10,A\na2,0,1,10,A\nb1,2,1,3,B\n");
    const auto o = run_with(in, "drf", {"preempt=true"});
    check_schedule(in, o, {{0, 10, 0}, {0, 13, 1}, {2, 5, 0}});
    CHECK(o.summary.preemptions == 1);
    // Without preemption b1 waits for a1.
    const auto kept = run_with(in, "drf", {});
    check_schedule(in, kept, {{0, 10, 0}, {0, 10, 0}, {10, 13, 0}});
}

TEST_CASE("synergy-drf: the smallest gang first, then arrival, SKIP walk", "[schedule][drf]") {
    // 4 GPUs. x (4 GPUs) runs 0-2. At 2: y (3), z (1), w (2) wait; order by demand: z, w, y.
    // z (1) and w (2) start at 2; y (3) does not fit in the 1 left and waits: z 2-7, w 2-4.
    // At 4 w is done: 3 GPUs free, y 4-5 (FIFO would have started y at 2, before z and w).
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\nx,0,4,2\ny,1,3,1\nz,1,1,5\nw,1,2,2\n");
    const auto o = run_with(in, "synergy-drf", {});
    check_schedule(in, o, {{0, 2, 0}, {4, 5, 0}, {2, 7, 0}, {2, 4, 0}});
}

namespace {

// A (id 1) and B (id 2) on 4 GPUs.
const char* kVcTrace =
    "job_id,submit_time,num_gpus,duration,vc\na1,0,1,10,A\na2,0,1,5,A\nb1,0,2,4,B\nb2,1,2,4,B\nb3,1,1,2,B\n";

}  // namespace

TEST_CASE("vc-quota hard: quotas from a file, strict FIFO inside a VC, idle GPUs stay idle", "[schedule][vc-quota]") {
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile, kVcTrace);
    const QuotaFile quotas(R"({"A": 1, "B": 3})");
    //  t=0  a1 (A 1/1); a2 waits (A full); b1 (B 2/3).
    //  t=1  b2 (2) does not fit B's room 1; b3 (1) would, but waits behind b2 (strict). One GPU idles.
    //  t=4  b1 done: b2 (4-8), b3 (4-6).   t=10 a1 done: a2 (10-15).
    const auto o = run_with(in, "vc-quota", {"quotas=" + quotas.path});
    check_schedule(in, o, {{0, 10, 0}, {10, 15, 0}, {0, 4, 0}, {4, 8, 0}, {4, 6, 0}});
    // helios-vc is the same policy.
    const auto h = run_with(in, "helios-vc", {"quotas=" + quotas.path});
    check_schedule(in, h, {{0, 10, 0}, {10, 15, 0}, {0, 4, 0}, {4, 8, 0}, {4, 6, 0}});
}

TEST_CASE("vc-quota hard: default quotas are the VCs' shares of the trace's GPU-hours, largest remainder",
          "[schedule][vc-quota]") {
    // GPU-seconds: A 10 + 5 = 15, B 8 + 8 + 2 = 18, of 33. On 4 GPUs: A 1.818, B 2.182 -> floors 1 and 2;
    // the spare GPU goes to the larger remainder (A 0.818): A 2, B 2.
    //  t=0  a1, a2 (A 2/2); b1 (B 2/2).   t=1  b2, b3 wait (B full).   t=4  b1 done: b2 (4-8); b3 waits.
    //  t=5  a2 done: a GPU is free but B is full: b3 waits.   t=8  b2 done: b3 (8-10).
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile, kVcTrace);
    const auto o = run_with(in, "vc-quota", {});
    check_schedule(in, o, {{0, 10, 0}, {0, 5, 0}, {0, 4, 0}, {4, 8, 0}, {8, 10, 0}});
}

TEST_CASE("vc-quota borrow: a VC borrows idle GPUs and gives them back on demand", "[schedule][vc-quota]") {
    // 4 GPUs, quotas A 2, B 2. a1 (2 GPUs) is within A's quota; a2 (2 GPUs) is beyond it and runs on B's idle
    // quota. b1 (B, 2 GPUs) arrives at 3: B has room, no GPU is free, so a2 is preempted at 3 and b1 runs 3-7.
    // a2 (7 s left) is lent the freed GPUs again at 7: 7-14. a1 runs 0-10 untouched.
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration,vc\na1,0,2,10,A\na2,0,2,10,A\nb1,3,2,4,B\n");
    const QuotaFile quotas(R"({"A": 2, "B": 2})");
    const auto o = run_with(in, "vc-quota", {"quotas=" + quotas.path, "mode=borrow"});
    check_schedule(in, o, {{0, 10, 0}, {0, 14, 1}, {3, 7, 0}});
    CHECK(o.summary.preemptions == 1);
    // Busy GPU-seconds: a1 20 + a2 2 x (3 + 7) + b1 8 = 48 over 4 GPUs x 14 s.
    CHECK(o.summary.gpu_utilization == Approx(48.0 / 56.0));
    // Hard: a2 waits for A's own quota (a1's end).
    const auto hard = run_with(in, "vc-quota", {"quotas=" + quotas.path});
    check_schedule(in, hard, {{0, 10, 0}, {10, 20, 0}, {3, 7, 0}});
}

TEST_CASE("vc-quota borrow: the youngest lent job goes first, a guaranteed one never", "[schedule][vc-quota]") {
    // 4 GPUs, quotas A 1, B 3. a1 is A's guaranteed job; a2 (t=0) and a3 (t=1) are lent one GPU each.
    // b1 (B, 2 GPUs) at 2: 1 GPU free, so one lent job must go: the youngest, a3 (started at 1). b1 2-4.
    // a3 (4 s left) is lent a GPU again at 4: 4-8. a1 and a2 never stop.
    const auto in =
        inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                         "job_id,submit_time,num_gpus,duration,vc\na1,0,1,10,A\na2,0,1,10,A\na3,1,1,5,A\nb1,2,2,2,B\n");
    const QuotaFile quotas(R"({"A": 1, "B": 3})");
    const auto o = run_with(in, "vc-quota", {"quotas=" + quotas.path, "mode=borrow"});
    check_schedule(in, o, {{0, 10, 0}, {0, 10, 0}, {1, 8, 1}, {2, 4, 0}});
    CHECK(o.summary.preemptions == 1);
}

TEST_CASE("vc-quota: bad quotas are input errors naming the file", "[schedule][vc-quota]") {
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile, kVcTrace);
    {
        const QuotaFile unknown(R"({"A": 2, "C": 2})");
        CHECK_THROWS_WITH(run_with(in, "vc-quota", {"quotas=" + unknown.path}),
                          Catch::Contains(unknown.path) && Catch::Contains("VC 'C' is not in the trace"));
    }
    {
        const QuotaFile missing(R"({"A": 4})");
        CHECK_THROWS_WITH(run_with(in, "vc-quota", {"quotas=" + missing.path}),
                          Catch::Contains("gives VC 'B' no GPUs") && Catch::Contains("mode=borrow"));
        // In borrow mode B's jobs run on lent GPUs.
        CHECK(run_with(in, "vc-quota", {"quotas=" + missing.path, "mode=borrow"}).summary.finished == 5);
    }
    {
        const QuotaFile small(R"({"A": 1, "B": 1})");
        CHECK_THROWS_WITH(run_with(in, "vc-quota", {"quotas=" + small.path}),
                          Catch::Contains("of VC 'B' needs 2 GPUs, more than its VC's quota"));
    }
    {
        const QuotaFile type(R"({"A": {"h100": 1}, "B": 3})");
        CHECK_THROWS_WITH(run_with(in, "vc-quota", {"quotas=" + type.path}),
                          Catch::Contains("a GPU type of the cluster"));
    }
}

}  // namespace dlsim::test::vc_tests
