// `sia` on a fake view of two GPU types with hand-made goodputs: the integer program's optimum and the
// restart factor, each worked out by hand in the comments (A = round(G^-0.5, 2), λ_n = 1.1).
#include "policies/elastic/sia.hpp"
#include "policies/registry.hpp"
#include "tests/support/hand_view.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <utility>
#include <vector>

using namespace dlsim;

namespace dlsim::test::sia_tests {

namespace {

/// Type a: node 0 with 2 GPUs; type b: node 1 with 2 GPUs. Configurations: a1, a2, b1, b2 (index 0..3).
const char* kTwoTypes = R"({"gpu_types": {"a": {}, "b": {}},
    "node_types": {"na": {"gpu_type": "a", "gpus": 2}, "nb": {"gpu_type": "b", "gpus": 2}},
    "racks": [{"node_type": "na", "nodes": 1}, {"node_type": "nb", "nodes": 1}]})";

/// Goodput per (job, type) and GPU count (index k − 1).
class FakeElastic final : public ElasticView {
public:
    const GoodputProfile* goodput(JobIdx) const override { return &profile; }
    int epoch(JobIdx) const override { return 0; }
    bool adapts_batch() const override { return true; }
    GoodputPoint predict(JobIdx j, GpuTypeIdx t, int, int gpus) const override {
        GoodputPoint p;
        const auto& g = goodputs.at({j, t});
        if (gpus >= 1 && gpus <= static_cast<int>(g.size())) p.goodput = g[static_cast<std::size_t>(gpus - 1)];
        return p;
    }
    double true_step_seconds(JobIdx, GpuTypeIdx, std::span<const int>, BatchConfig) const override { return 0; }
    double slowdown(JobIdx) const override { return 1; }
    GoodputProfile profile;
    std::map<std::pair<JobIdx, GpuTypeIdx>, std::vector<double>> goodputs;
};

class FakeView final : public HandView {
public:
    FakeView() : HandView(kTwoTypes, R"({"models": {"m": {"throughput": {"a": 1, "b": 1}}}})") {}
    const ElasticView* elastic() const override { return &ev; }

    /// A queued elastic job (1..2 GPUs) submitted at 0 with goodputs {a1, a2} on a and {b1, b2} on b.
    JobIdx add(std::vector<double> on_a, std::vector<double> on_b) {
        JobInfo j;
        j.min_gpus = 1;
        j.max_gpus = 2;
        j.runnable = 0b11;
        j.model = 0;
        j.state = JobState::Queued;
        j.work = j.remaining = 100;
        jobs.push_back(j);
        allocs.emplace_back();
        const auto idx = static_cast<JobIdx>(jobs.size() - 1);
        ev.goodputs[{idx, 0}] = std::move(on_a);
        ev.goodputs[{idx, 1}] = std::move(on_b);
        return idx;
    }

    FakeElastic ev;
};

/// Arrivals (no decisions: not a timer call), then one timer call; the actions it returned.
Decisions tick(SiaPolicy& p, FakeView& v, std::vector<JobIdx> arrived) {
    Decisions d;
    p.decide(v, Changes{arrived, {}, false, {}, {}}, d);
    d = Decisions{};
    p.decide(v, Changes{{}, {}, true, {}, {}}, d);
    return d;
}

}  // namespace

TEST_CASE("sia: the integer program's optimum over two types, one job left out", "[policies][unit]") {
    FakeView v;
    // Rows normalised by their smallest entry, then A = round(G^-0.5, 2) over (a1, a2, b1, b2):
    //   job 0: 1, 2, 3, 6       -> 1, 0.71, 0.58, 0.41
    //   job 1: 2, 3, 2, 4 (/2)  -> 1, 0.82, 1, 0.71
    //   job 2: 1, 1.2, 1, 1     -> 1, 0.91, 1, 1
    // 2 GPUs per type; an unallocated job costs λ_n = 1.1. The best assignments:
    //   job 0 b2, job 1 a2, job 2 none: 0.41 + 0.82 + 1.1 = 2.33   <- optimum
    //   job 0 b1, job 1 a2, job 2 b1:   0.58 + 0.82 + 1   = 2.40
    //   job 0 b2, job 1 a1, job 2 a1:   0.41 + 1    + 1   = 2.41
    //   job 0 b2, job 2 a2, job 1 none: 0.41 + 0.91 + 1.1 = 2.42
    const JobIdx j0 = v.add({1, 2}, {3, 6});
    const JobIdx j1 = v.add({2, 3}, {2, 4});
    const JobIdx j2 = v.add({1, 1.2}, {1, 1});
    SiaPolicy p(SiaPolicy::Options{});
    const auto configs = p.configs(v.cluster());
    REQUIRE(configs.size() == 4);
    CHECK(configs[1] == SiaPolicy::Config{0, 1, 2});
    CHECK(configs[3] == SiaPolicy::Config{1, 1, 2});
    Decisions d = tick(p, v, {j0, j1, j2});
    CHECK(p.last_objective() == Approx(2.33).epsilon(1e-9));
    REQUIRE(d.actions.size() == 2);
    // Largest first, in trace order among equals: job 0 on node 1 (type b), job 1 on node 0 (type a).
    CHECK(d.actions[0].kind == Action::Kind::Start);
    CHECK(d.actions[0].job == j0);
    CHECK(d.actions[0].gpu_type == 1);
    CHECK(d.actions[0].num_gpus == 2);
    REQUIRE(d.placement(d.actions[0]).size() == 1);
    CHECK(d.placement(d.actions[0])[0].node == 1);
    CHECK(d.actions[1].job == j1);
    CHECK(d.actions[1].gpu_type == 0);
    CHECK(d.actions[1].num_gpus == 2);
    CHECK(d.placement(d.actions[1])[0].node == 0);
    CHECK(d.next_call == to_time(60.0));
}

TEST_CASE("sia: the restart factor holds a running job, preserve_ckpt_allocs keeps a restarting one",
          "[policies][unit]") {
    // One job on a1, goodputs a1 1, a2 1.2, b1 1.25, b2 1.25 (its row's minimum is 1). S = 30 s (no profile:
    // the default penalty), no restarts yet (N = 0).
    auto setup = [](FakeView& v) {
        const JobIdx j = v.add({1, 1.2}, {1.25, 1.25});
        v.run(j, 0, {{0, 1}});
        return j;
    };
    SECTION("age 20 s < S: factor 1, so b1 at round(1.25^-0.5, 2) = 0.89 < a1's 1: a move to type b") {
        FakeView v;
        const JobIdx j = setup(v);
        v.now_s = 20;
        SiaPolicy p(SiaPolicy::Options{});
        Decisions d = tick(p, v, {j});
        CHECK(p.last_objective() == Approx(0.89).epsilon(1e-9));
        // b1 and b2 tie at 0.89; GLPK's optimum is one of them. A change of type and count: stop and start
        // at the same instant (the engine's move); of type only: a migration.
        REQUIRE(!d.actions.empty());
        const Action& last = d.actions.back();
        CHECK(last.gpu_type == 1);
        if (d.actions.size() == 2) {
            CHECK(d.actions[0].kind == Action::Kind::Preempt);
            CHECK(last.kind == Action::Kind::Start);
        } else {
            CHECK(last.kind == Action::Kind::Migrate);
        }
    }
    SECTION("age 100 s: factor 100/130, b at 1.25 x 0.769 = 0.9615 -> 1.02, a2 at 0.923 -> 1.04: it stays") {
        FakeView v;
        const JobIdx j = setup(v);
        v.now_s = 100;
        SiaPolicy p(SiaPolicy::Options{});
        Decisions d = tick(p, v, {j});
        CHECK(p.last_objective() == Approx(1.0).epsilon(1e-9));
        CHECK(d.actions.empty());
    }
    SECTION("age 20 s but still restarting: it keeps a1") {
        FakeView v;
        const JobIdx j = setup(v);
        v.now_s = 20;
        v.jobs[j].progress_from = to_time(25.0);
        SiaPolicy p(SiaPolicy::Options{});
        Decisions d = tick(p, v, {j});
        CHECK(p.last_objective() == Approx(1.0).epsilon(1e-9));
        CHECK(d.actions.empty());
        SiaPolicy::Options off;
        off.preserve_ckpt_allocs = false;
        SiaPolicy q(off);
        CHECK(!tick(q, v, {j}).actions.empty());
    }
}

TEST_CASE("sia: restart penalties by model name, and its parameters' checks", "[policies][bad-input]") {
    CHECK(SiaPolicy::sia_restart_penalty("cifar10") == 30);
    CHECK(SiaPolicy::sia_restart_penalty("ImageNet") == 250);
    CHECK(SiaPolicy::sia_restart_penalty("bert") == 120);
    CHECK(SiaPolicy::sia_restart_penalty("yolov3") == 45);
    CHECK(SiaPolicy::sia_restart_penalty("deepspeech2") == 25);
    CHECK(SiaPolicy::sia_restart_penalty("ncf") == 30);
    const auto& sia = builtin_policies().find("sia");
    CHECK(sia.make(resolve_params("sia", sia.params, {})) != nullptr);
    CHECK_THROWS_WITH(sia.make(resolve_params("sia", sia.params, {{"lambda_n", "0.9"}})),
                      Catch::Contains("lambda_n") && Catch::Contains("0.9") && Catch::Contains("above 1"));
}

}  // namespace dlsim::test::sia_tests
