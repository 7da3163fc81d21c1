// The engine's contract with policies: one call per instant, timers, lazy cancellation, and
// always-on checks of every decision and of the end state.
#include "models/base/input_error.hpp"
#include "tests/support/engine_support.hpp"

#include <catch2/catch.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::engine_tests {

TEST_CASE("engine: one policy call per instant, after all of its events, in trace order", "[engine]") {
    EngineFixture f(1, 4, "job_id,submit_time,num_gpus,duration\nx,5,1,1\ny,0,1,2\nz,0,1,2\nw,0,2,5\n");
    ScriptedPolicy policy([](const ClusterView& v, const Changes& c, Decisions& out) {
        for (JobIdx j : c.arrived) out.start(j, 0, v.job(j).num_gpus);
    });
    Simulator sim(f.in.cluster, f.rates, f.jobs, policy, f.placer, {});
    const SimStats st = sim.run();
    // Instants with changes: 0 (y, z, w arrive), 2 (y, z finish), 5 (w finishes, x arrives), 6 (x).
    REQUIRE(policy.calls.size() == 4);
    CHECK(policy.calls[0].now == 0);
    CHECK(policy.calls[0].arrived == std::vector<JobIdx>{1, 2, 3});  // simultaneous: trace order
    CHECK(policy.calls[1].now == s(2));
    CHECK(policy.calls[1].finished.size() == 2);
    CHECK(policy.calls[2].now == s(5));
    CHECK(policy.calls[2].finished == std::vector<JobIdx>{3});  // completion applied before the arrival
    CHECK(policy.calls[2].arrived == std::vector<JobIdx>{0});
    CHECK(st.events == 8);
    CHECK(st.policy_calls == 4);
}

TEST_CASE("engine: a policy timer fires at the asked time; a newer answer supersedes it", "[engine]") {
    EngineFixture f(1, 2, "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,1,1,10\n");
    // Start nothing until a timer at 100 s; the call at t=1 asks for 100 s again (superseding the
    // first request, made at t=0 for 100 s too, which must not cause a second timer call).
    ScriptedPolicy policy([](const ClusterView& v, const Changes& c, Decisions& out) {
        if (c.timer) {
            out.start(0, 0, 1);
            out.start(1, 0, 1);
        } else if (v.now() < s(100)) {
            out.next_call = s(100);
        }
    });
    Simulator sim(f.in.cluster, f.rates, f.jobs, policy, f.placer, {});
    sim.run();
    REQUIRE(policy.calls.size() == 4);  // t=0, t=1, timer at 100, both finish at 110
    CHECK(policy.calls[2].now == s(100));
    CHECK(policy.calls[2].timer);
    CHECK(sim.jobs()[0].first_start == s(100));
    CHECK(sim.jobs()[1].finish == s(110));
}

TEST_CASE("engine: a preempted job's old completion event is dropped (lazy cancellation)", "[engine]") {
    // srtf on one GPU: a (10 s) is preempted at 2 by b (3 s); a's stale completion at 10 must neither
    // finish it nor call the policy. Calls at 0, 2, 5 (b done), 13 (a done).
    const auto in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                     "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,2,1,3\n");
    const auto o = run_policy(in, "srtf");
    CHECK(o.stats.policy_calls == 4);
    CHECK(o.summary.events == 4);
    CHECK(finish_s(o, 0) == 13);
}

TEST_CASE("engine: invalid decisions are InvalidDecisions naming the job and the rule", "[engine]") {
    EngineFixture f(1, 2, "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,0,1,10\n");
    SECTION("more GPUs than free") {
        ScriptedPolicy p([](const ClusterView&, const Changes& c, Decisions& out) {
            if (!c.arrived.empty()) {
                out.start(0, 0, 2);
                out.start(1, 0, 1);
            }
        });
        Simulator sim(f.in.cluster, f.rates, f.jobs, p, f.placer, {});
        CHECK_THROWS_WITH(sim.run(), Catch::Contains("policy started job 1 on 1 g GPUs but only 0 are free"));
    }
    SECTION("wrong gang size") {
        ScriptedPolicy p([](const ClusterView&, const Changes& c, Decisions& out) {
            if (!c.arrived.empty()) out.start(0, 0, 1);
        });
        Simulator sim(f.in.cluster, f.rates, f.jobs, p, f.placer, {});
        CHECK_THROWS_WITH(sim.run(), Catch::Contains("its gang is 2"));
    }
    SECTION("preempting a job that is not running") {
        ScriptedPolicy p([](const ClusterView&, const Changes&, Decisions& out) { out.preempt(1); });
        Simulator sim(f.in.cluster, f.rates, f.jobs, p, f.placer, {});
        CHECK_THROWS_WITH(sim.run(), Catch::Contains("preempted job 1 which is not running"));
    }
    SECTION("starting a job twice") {
        ScriptedPolicy p([](const ClusterView&, const Changes& c, Decisions& out) {
            if (!c.arrived.empty()) {
                out.start(1, 0, 1);
                out.start(1, 0, 1);
            }
        });
        Simulator sim(f.in.cluster, f.rates, f.jobs, p, f.placer, {});
        CHECK_THROWS_WITH(sim.run(), Catch::Contains("started job 1 which is not queued"));
    }
    // A timer at or before now is the policy's mistake (an InvalidDecision naming no job), not a broken
    // invariant of the engine.
    SECTION("a timer now") {
        ScriptedPolicy p([](const ClusterView& v, const Changes&, Decisions& out) { out.next_call = v.now(); });
        Simulator sim(f.in.cluster, f.rates, f.jobs, p, f.placer, {});
        try {
            sim.run();
            FAIL("no error");
        } catch (const InvalidDecision& e) {
            CHECK(std::string(e.what()) ==
                  "invalid decision: policy asked to be called at 0 us, not after now at 0 us");
            CHECK(e.job() == InvalidDecision::kNoJob);
        }
    }
    SECTION("a timer in the past") {
        ScriptedPolicy p([](const ClusterView& v, const Changes& c, Decisions& out) {
            if (!c.arrived.empty()) {
                out.start(0, 0, 2);
                out.next_call = 4'000'000;
            } else if (c.timer) {
                out.next_call = v.now() - 1;
            }
        });
        Simulator sim(f.in.cluster, f.rates, f.jobs, p, f.placer, {});
        try {
            sim.run();
            FAIL("no error");
        } catch (const InvalidDecision& e) {
            CHECK(std::string(e.what()) ==
                  "invalid decision: policy asked to be called at 3999999 us, not after now at 4000000 us");
        }
    }
}

TEST_CASE("engine: the end-of-run audit catches a policy that leaves jobs queued", "[engine]") {
    EngineFixture f(1, 1, "job_id,submit_time,num_gpus,duration\na,0,1,10\n");
    ScriptedPolicy idle([](const ClusterView&, const Changes&, Decisions&) {});
    Simulator sim(f.in.cluster, f.rates, f.jobs, idle, f.placer, {});
    CHECK_THROWS_WITH(sim.run(), Catch::Contains("1 jobs neither finished nor rejected"));
}

}  // namespace dlsim::test::engine_tests
