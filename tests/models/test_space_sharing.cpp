// Space sharing (Decisions::pack): two jobs on the same GPUs, each at its measured pair rate; the
// survivor speeds back up when its partner leaves; a GPU counts once in utilisation; invalid packs are
// invalid decisions; the profile's `pairs` are checked field by field; fifo's space_sharing uses it.
//
// Hand-worked numbers: model A runs 1 it/s alone on "g", model B 2 it/s. Co-located (pairs.g.B of A =
// [0.6, 1.0]) A runs 0.6 it/s (0.6 of alone) and B 1.0 it/s (0.5 of alone).
#include "models/base/input_error.hpp"
#include "sim/metrics.hpp"
#include "tests/support/engine_support.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::space_sharing_tests {

namespace {

std::string profile_with_pair(double a_with_b, double b_with_a) {
    return fmt::format(R"({{"models": {{
        "A": {{"throughput": {{"g": 1}}, "pairs": {{"g": {{"B": [{}, {}]}}}}}},
        "B": {{"throughput": {{"g": 2}}}},
        "C": {{"throughput": {{"g": 1}}}}}}}})",
                       a_with_b, b_with_a);
}

/// A cluster of `nodes` × `gpus` GPUs of type g, the pair profile, a trace; the Simulator's inputs.
struct PackFixture {
    RunInputs in;
    RateModel rates;
    ResolvedJobs jobs;
    ConsolidatedPlacer placer;
    PackFixture(int nodes, int gpus, const std::string& trace, double a_with_b = 0.6, double b_with_a = 1.0)
        : in(inputs_from_text(homogeneous_cluster_json(nodes, gpus), profile_with_pair(a_with_b, b_with_a), trace)),
          rates(in.cluster, in.profiles),
          jobs(resolve_jobs(in.trace, in.cluster, in.profiles, rates, false)) {}
};

// a: 100 iterations of A (100 s alone), b: 100 iterations of B (50 s alone), b arrives at 10 s.
const char* kPairTrace = "job_id,submit_time,num_gpus,duration,model\na,0,1,100,A\nb,10,1,50,B\n";

}  // namespace

TEST_CASE("space sharing: a packed pair runs at its pair rates; the survivor speeds back up", "[engine]") {
    PackFixture f(1, 1, kPairTrace);
    REQUIRE(f.rates.pair(0, 1, 0) == std::array<double, 2>{0.6, 1.0});
    REQUIRE(f.rates.pair(1, 0, 0) == std::array<double, 2>{1.0, 0.6});  // listed under A, found from B too
    CHECK_FALSE(f.rates.pair(0, 2, 0).has_value());
    double a_rate = -1, b_rate = -1;
    int free_packed = -1;
    Allocation a_alloc, b_alloc;
    ScriptedPolicy policy([&](const ClusterView& v, const Changes& c, Decisions& out) {
        if (v.now() == 0) out.start(0, 0, 1);
        if (v.now() == s(10)) {
            out.pack(1, 0);
            out.next_call = s(50);
        }
        if (c.timer) {  // at 50 s, while packed
            a_rate = v.job(0).rate;
            b_rate = v.job(1).rate;
            free_packed = v.free_gpus(0);
            a_alloc = v.allocation(0);
            b_alloc = v.allocation(1);
        }
    });
    Simulator sim(f.in.cluster, f.rates, f.jobs, policy, f.placer, {});
    Metrics metrics(f.in.cluster, 2, 0, 10);
    sim.add_observer(metrics);
    const SimStats st = sim.run();
    CHECK(a_rate == Approx(0.6));
    CHECK(b_rate == Approx(1.0));
    CHECK(free_packed == 0);
    CHECK(a_alloc.partner == 1u);
    CHECK(b_alloc.partner == 0u);
    REQUIRE(b_alloc.shares.size() == 1);
    CHECK(a_alloc.shares == b_alloc.shares);
    CHECK(b_alloc.shares[0].milli == kHalfGpu);
    // a: 10 it alone by 10 s, then 0.6 it/s; b: 100 it at 1.0 it/s, done at 110 s. a has 90 - 60 = 30 it
    // left then, alone at 1 it/s again: done at 140 s.
    const auto& jobs = sim.jobs();
    CHECK(jobs[1].first_start == s(10));
    CHECK(jobs[1].finish == s(110));
    CHECK(jobs[0].finish == s(140));
    CHECK(jobs[0].packed_time == s(100));
    CHECK(jobs[1].packed_time == s(100));
    CHECK(jobs[0].preemptions == 0);
    // The one GPU is busy from 0 to 140 s, with one job or two: utilisation 1, not 240/140.
    const Summary sum = metrics.summarize(jobs, st.events);
    CHECK(sum.makespan == Approx(140));
    CHECK(sum.gpu_utilization == Approx(1.0));
    CHECK(sum.packed_gpu_seconds == Approx(100));
}

TEST_CASE("space sharing: preempting one of a pair leaves the other running, alone and faster", "[engine]") {
    PackFixture f(1, 1, kPairTrace);
    double b_rate_alone = -1;
    Allocation b_alone;
    ScriptedPolicy policy([&](const ClusterView& v, const Changes& c, Decisions& out) {
        if (v.now() == 0) out.start(0, 0, 1);
        if (v.now() == s(10)) {
            out.pack(1, 0);
            out.next_call = s(60);
        }
        if (c.timer && v.now() == s(60)) {
            out.preempt(0);  // the host leaves; b keeps the GPU
            out.next_call = s(70);
        }
        if (c.timer && v.now() == s(70)) {
            b_rate_alone = v.job(1).rate;
            b_alone = v.allocation(1);
        }
        for (JobIdx j : c.finished)
            if (j == 1) out.start(0, 0, 1);
    });
    Simulator sim(f.in.cluster, f.rates, f.jobs, policy, f.placer, {});
    Metrics metrics(f.in.cluster, 2, 0, 10);
    sim.add_observer(metrics);
    const SimStats st = sim.run();
    CHECK(b_rate_alone == Approx(2.0));
    CHECK(b_alone.partner == kNoPartner);
    REQUIRE(b_alone.shares.size() == 1);
    CHECK(b_alone.shares[0].milli == kWholeGpu);
    // b: 50 it by 60 s at 1.0 it/s, the other 50 at 2 it/s: done at 85 s. a: 10 + 0.6 × 50 = 40 it by
    // 60 s, restarted at 85 s with 60 it left: done at 145 s.
    const auto& jobs = sim.jobs();
    CHECK(jobs[1].finish == s(85));
    CHECK(jobs[1].preemptions == 0);
    CHECK(jobs[0].preemptions == 1);
    CHECK(jobs[0].finish == s(145));
    CHECK(jobs[0].packed_time == s(50));
    CHECK(jobs[1].packed_time == s(50));
    const Summary sum = metrics.summarize(jobs, st.events);
    CHECK(sum.gpu_utilization == Approx(1.0));  // busy throughout [0, 145]
    CHECK(sum.packed_gpu_seconds == Approx(50));
}

TEST_CASE("space sharing: a packed job that moves leaves its partner alone on the GPU", "[engine]") {
    PackFixture f(1, 2, kPairTrace);
    ScriptedPolicy policy([&](const ClusterView& v, const Changes& c, Decisions& out) {
        if (v.now() == 0) out.start(0, 0, 1);  // GPU 0
        if (v.now() == s(10)) {
            out.pack(1, 0);
            out.next_call = s(30);
        }
        if (c.timer) {
            const NodeShare other_gpu{0, 1};
            out.migrate(1, 0, std::span<const NodeShare>(&other_gpu, 1));  // to GPU 1, alone
        }
    });
    Simulator sim(f.in.cluster, f.rates, f.jobs, policy, f.placer, {});
    Metrics metrics(f.in.cluster, 2, 0, 10);
    sim.add_observer(metrics);
    const SimStats st = sim.run();
    // By 30 s: a 10 + 0.6 × 20 = 22 it, b 20 it. Then both alone: b's 80 it at 2 it/s end at 70 s, a's
    // 78 at 1 it/s at 108 s.
    const auto& jobs = sim.jobs();
    CHECK(jobs[1].finish == s(70));
    CHECK(jobs[1].migrations == 1);
    CHECK(jobs[0].finish == s(108));
    CHECK(jobs[0].preemptions == 0);
    CHECK(jobs[0].packed_time == s(20));
    CHECK(jobs[1].packed_time == s(20));
    // GPU 0 busy 0-108 s, GPU 1 30-70 s: 148 of 2 × 108 GPU-seconds.
    const Summary sum = metrics.summarize(jobs, st.events);
    CHECK(sum.gpu_utilization == Approx(148.0 / 216.0));
    CHECK(sum.packed_gpu_seconds == Approx(20));
}

TEST_CASE("space sharing: two 2-GPU jobs packed run at 2 × their pair rates", "[engine]") {
    // a: 200 it of A on 2 GPUs (2 it/s alone), b: 200 it of B (4 it/s alone), b packed onto a at 10 s:
    // a at 1.2 it/s, b at 2.0 it/s: b done at 110 s with a at 20 + 120 = 140 it, a's last 60 at 2 it/s.
    PackFixture f(1, 2, "job_id,submit_time,num_gpus,duration,model\na,0,2,100,A\nb,10,2,50,B\n");
    ScriptedPolicy policy([&](const ClusterView& v, const Changes&, Decisions& out) {
        if (v.now() == 0) out.start(0, 0, 2);
        if (v.now() == s(10)) out.pack(1, 0);
    });
    Simulator sim(f.in.cluster, f.rates, f.jobs, policy, f.placer, {});
    Metrics metrics(f.in.cluster, 2, 0, 10);
    sim.add_observer(metrics);
    const SimStats st = sim.run();
    const auto& jobs = sim.jobs();
    CHECK(jobs[1].finish == s(110));
    CHECK(jobs[0].finish == s(140));
    const Summary sum = metrics.summarize(jobs, st.events);
    CHECK(sum.gpu_utilization == Approx(1.0));
    CHECK(sum.packed_gpu_seconds == Approx(200));  // 100 s on 2 GPUs
}

TEST_CASE("space sharing: every invalid pack is an invalid decision naming the jobs", "[engine]") {
    // Jobs: 0 a (A, 1 GPU), 1 b (B), 2 c (C, no pair with A), 3 d (A, 2 GPUs), 4 e (B).
    PackFixture f(1, 3,
                  "job_id,submit_time,num_gpus,duration,model\na,0,1,100,A\nb,0,1,50,B\nc,0,1,100,C\n"
                  "d,0,2,100,A\ne,0,1,50,B\n");
    auto expect = [&](ScriptedPolicy::Script script, const std::string& message) {
        ScriptedPolicy p(std::move(script));
        Simulator sim(f.in.cluster, f.rates, f.jobs, p, f.placer, {});
        CHECK_THROWS_WITH(sim.run(), Catch::Contains(message));
    };
    SECTION("partner not running") {
        expect([](const ClusterView&, const Changes&, Decisions& out) { out.pack(1, 0); },
               "policy packed job 1 with job 0, which is not running");
    }
    SECTION("partner does not exist") {
        expect([](const ClusterView&, const Changes&, Decisions& out) { out.pack(1, 99); },
               "packed job 1 with job 99, which is not running");
    }
    SECTION("the job is not queued") {
        expect(
            [](const ClusterView&, const Changes& c, Decisions& out) {
                if (c.arrived.empty()) return;
                out.start(0, 0, 1);
                out.start(1, 0, 1);
                out.pack(1, 0);
            },
            "packed job 1 which is not queued");
    }
    SECTION("partner already packed") {
        expect(
            [](const ClusterView&, const Changes& c, Decisions& out) {
                if (c.arrived.empty()) return;
                out.start(0, 0, 1);
                out.pack(1, 0);
                out.pack(4, 0);
            },
            "packed job 4 with job 0, which is packed with job 1 already");
    }
    SECTION("sizes differ") {
        expect(
            [](const ClusterView&, const Changes& c, Decisions& out) {
                if (c.arrived.empty()) return;
                out.start(3, 0, 2);
                out.pack(1, 3);
            },
            "packed job 1 (1 GPUs) with job 3, which holds 2");
    }
    SECTION("no pair throughput for the two models") {
        expect(
            [](const ClusterView&, const Changes& c, Decisions& out) {
                if (c.arrived.empty()) return;
                out.start(0, 0, 1);
                out.pack(2, 0);
            },
            "packed job 2 with job 0 on g: the profile has no pair throughput");
    }
}

TEST_CASE("space sharing: ClusterState holds at most two jobs per GPU, the second only by sharing", "[engine]") {
    const Cluster c = parse_cluster(homogeneous_cluster_json(1, 2), "cluster.json");
    ClusterState st(c);
    GpuIdx h1 = ClusterState::kNoGpu, h2 = ClusterState::kNoGpu, h3 = ClusterState::kNoGpu;
    st.allocate(0, 1, 1, h1);  // GPU 0
    st.share(h1, 1, 2, h2);
    CHECK(h2 == 0u);
    CHECK(st.holders(0) == 2);
    CHECK(st.free_gpus(0) == 1);  // a shared GPU is one busy GPU
    CHECK(st.held() == 1u);
    CHECK_THROWS_WITH(st.share(h1, 1, 3, h3), Catch::Contains("more than two holders"));
    CHECK(st.release(h1, 1) == 1);  // the host leaves: the GPU stays with job 2
    CHECK(st.owner(0) == 2u);
    CHECK(st.free_gpus(0) == 1);
    CHECK(st.release(h2, 2) == 1);
    CHECK(st.free_gpus(0) == 2);
    CHECK(st.held() == 0u);
}

TEST_CASE("space sharing: profile pairs are checked, errors name the field", "[engine]") {
    auto load = [](const std::string& pairs_of_a) {
        return parse_profiles(R"({"models": {"A": {"throughput": {"g": 1}, "pairs": )" + pairs_of_a +
                                  R"(}, "B": {"throughput": {"g": 2, "h": 0}, "pairs": {"g": {"A": [1.0, 0.6]}}}}})",
                              "p.json");
    };
    CHECK(load(R"({"g": {"B": [0.6, 1.0]}})").models[0].pairs.at("g").at("B") == std::array<double, 2>{0.6, 1.0});
    CHECK_THROWS_WITH(load(R"({"g": {"Z": [0.6, 1.0]}})"),
                      Catch::Contains("models.A.pairs.g.Z") && Catch::Contains("the name of a model"));
    CHECK_THROWS_WITH(load(R"({"g": {"B": [0.6]}})"), Catch::Contains("models.A.pairs.g.B"));
    CHECK_THROWS_WITH(load(R"({"g": {"B": [0, 1.0]}})"), Catch::Contains("models.A.pairs.g.B"));
    CHECK_THROWS_WITH(load(R"({"g": {"B": [0.6, "x"]}})"), Catch::Contains("models.A.pairs.g.B[1]"));
    CHECK_THROWS_WITH(load(R"({"g": {"B": [0.7, 1.0]}})"),
                      Catch::Contains("models.A.pairs.g.B") && Catch::Contains("mirror"));
    CHECK_THROWS_WITH(load(R"({"h": {"B": [0.6, 1.0]}})"),
                      Catch::Contains("models.A.pairs.h.B") && Catch::Contains("both models run on"));
    CHECK_THROWS_WITH(load(R"({"g": {"B": [0.6, 1.0]}, "G": {}})"), Catch::Contains("models.A.pairs.G"));
    CHECK_THROWS_WITH(load(R"([1])"), Catch::Contains("models.A.pairs"));
}

TEST_CASE("space sharing: fifo space_sharing packs a blocked head only above Gavel's 1.5", "[engine]") {
    const std::string cluster = homogeneous_cluster_json(1, 1);
    SECTION("pair sum 0.9 + 0.7 = 1.6: b packs onto a at 10 s") {
        const auto in = inputs_from_text(cluster, profile_with_pair(0.9, 1.4), kPairTrace);
        const auto o = run_policy(in, "fifo", "space_sharing=true");
        // b: 100 it at 1.4 it/s from 10 s, done at 10 + 71.428571 s; a: 10 + 0.9 × 71.428571 = 74.285714
        // it by then, the last 25.714286 alone at 1 it/s.
        CHECK(start_s(o, 1) == 10);
        CHECK(finish_s(o, 1) == Approx(81.428571).margin(2e-6));
        CHECK(finish_s(o, 0) == Approx(107.142857).margin(2e-6));
        CHECK(to_seconds(o.jobs[0].packed_time) == Approx(71.428571).margin(2e-6));
        CHECK(o.summary.packed_gpu_seconds == Approx(71.428571).margin(2e-6));
        CHECK(o.summary.gpu_utilization == Approx(1.0));
    }
    SECTION("pair sum 0.6 + 0.5 = 1.1: b waits for a") {
        const auto in = inputs_from_text(cluster, profile_with_pair(0.6, 1.0), kPairTrace);
        const auto o = run_policy(in, "fifo", "space_sharing=true");
        CHECK(start_s(o, 1) == 100);
        CHECK(finish_s(o, 1) == 150);
        CHECK(o.summary.packed_gpu_seconds == 0);
    }
    SECTION("off by default") {
        const auto in = inputs_from_text(cluster, profile_with_pair(0.9, 1.4), kPairTrace);
        const auto o = run_policy(in, "fifo");
        CHECK(start_s(o, 1) == 100);
        CHECK(o.jobs[0].packed_time == 0);
    }
}

}  // namespace dlsim::test::space_sharing_tests
