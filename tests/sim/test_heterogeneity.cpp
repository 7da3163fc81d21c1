// Heterogeneous speed and rejection: a job runs on one GPU type at a time, at its profile's rate there
// (a job without a model runs its duration on any type); a job that can never run on the cluster (more
// GPUs than any type it may use has, or no type where its rate is non-zero) is rejected and the run goes on.
#include "models/base/input_error.hpp"
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::heterogeneity_tests {

namespace {

const char* kK80Cluster = R"({"gpu_types": {"K80": {"aliases": ["k80"]}},
    "node_types": {"n": {"gpu_type": "K80", "gpus": 4}}, "racks": [{"node_type": "n", "nodes": 2}]})";
const char* kProfile = R"({"models": {
    "fast-on-v100": {"throughput": {"v100": 3.3, "k80": 1.1}},
    "v100-only":    {"throughput": {"v100": 2.0, "k80": 0}}}})";

}  // namespace

TEST_CASE("a job 3x faster on V100 takes exactly 3x its V100 duration on K80s", "[heterogeneity]") {
    const auto in = inputs_from_text(kK80Cluster, kProfile,
                                     "job_id,submit_time,num_gpus,duration,model,gpu_type\n"
                                     "j1,0,2,1000,fast-on-v100,v100\n"
                                     "j2,5,1,123.456789,fast-on-v100,V100\n");
    const auto o = run_policy(in, "fifo");
    CHECK(o.jobs[0].finish - o.jobs[0].submit == 3'000'000'000);  // µs: exactly 3000 s
    CHECK(o.jobs[1].finish - o.jobs[1].submit == 370'370'367);    // 3 x 123.456789 s, to the µs
    CHECK(o.summary.avg_jct == Approx((3000 + 370.370367) / 2));
}

TEST_CASE("a job that can never run is rejected with a reason and the run goes on", "[heterogeneity]") {
    const std::string trace =
        "job_id,submit_time,num_gpus,duration,model,gpu_type\n"
        "ok,0,1,10,fast-on-v100,k80\n"
        "no-type,1,1,10,v100-only,v100\n"      // profile is 0 on every type this cluster has
        "too-wide,2,16,10,fast-on-v100,k80\n"  // 16 GPUs, the cluster has 8 K80s
        "ok2,3,8,10,fast-on-v100,k80\n";
    const auto in = inputs_from_text(kK80Cluster, kProfile, trace);
    const auto o = run_policy(in, "fifo");
    CHECK(o.summary.jobs == 4);
    CHECK(o.summary.finished == 2);
    CHECK(o.summary.rejected == 2);
    CHECK(o.jobs[1].state == JobState::Rejected);
    CHECK(o.jobs[2].state == JobState::Rejected);
    CHECK(o.jobs[1].first_start == kNever);
    CHECK_THAT(o.rejected.at(1), Catch::Contains("no throughput on any GPU type"));
    CHECK_THAT(o.rejected.at(2), Catch::Contains("needs 16 GPUs but the largest GPU type it may use has 8"));
    CHECK(finish_s(o, 0) == 10);
    CHECK(start_s(o, 3) == 10);  // ok2 needs all 8 GPUs: waits for ok
    CHECK(finish_s(o, 3) == 20);

    RunConfig strict;
    strict.strict = true;
    strict.out.clear();
    CHECK_THROWS_WITH(simulate(in, strict), Catch::Contains("trace.csv:3: job 'no-type' can never run"));
}

TEST_CASE("allowed_gpu_types restricts the types a job may use", "[heterogeneity]") {
    const std::string cluster = R"({"gpu_types": {"V100": {}, "K80": {}},
        "node_types": {"v": {"gpu_type": "V100", "gpus": 1}, "k": {"gpu_type": "K80", "gpus": 1}},
        "racks": [{"node_type": "v", "nodes": 1}, {"node_type": "k", "nodes": 1}]})";
    // Without the constraint the job would take the free, 3x faster V100.
    const auto in = inputs_from_text(cluster, kProfile,
                                     "job_id,submit_time,num_gpus,duration,model,gpu_type,allowed_gpu_types\n"
                                     "j,0,1,10,fast-on-v100,v100,k80\n"
                                     "free,0,1,10,fast-on-v100,v100,\n");
    const auto o = run_policy(in, "fifo");
    CHECK(in.cluster.gpu_types[o.job_gpu_type[0]].name == "K80");
    CHECK(finish_s(o, 0) == 30);
    CHECK(in.cluster.gpu_types[o.job_gpu_type[1]].name == "V100");
    CHECK(finish_s(o, 1) == 10);
}

}  // namespace dlsim::test::heterogeneity_tests
