// The engine's contract with policies: one call per instant, timers, lazy cancellation, and
// always-on checks of every decision and of the end state.
#include "models/base/input_error.hpp"
#include "sim/app/resolved_run.hpp"
#include "sim/app/run.hpp"
#include "tests/support/engine_support.hpp"

#include <catch2/catch.hpp>

#include <random>

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

// Random answers (any action on any job index, type, GPU count and placement; any timer) over a small
// cluster with an elastic job: each is applied or refused as an InvalidDecision, never reported as a broken
// invariant of the engine (a plain InternalError, exit 1) nor a crash.
TEST_CASE("engine: any answer is applied or refused as an invalid decision, never a broken invariant", "[engine]") {
    EngineFixture f(2, 2, "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,0,1,5\nc,1,1,7\nd,2,3,4\n");
    f.jobs.jobs[1].min_gpus = 1;
    f.jobs.jobs[1].max_gpus = 4;
    int refused = 0, completed = 0;
    for (std::uint64_t seed = 1; seed <= 3000; ++seed) {
        std::mt19937_64 rng(seed);
        auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
        int calls = 0;
        const int random_calls = std::uniform_int_distribution<int>(0, 6)(rng);
        ScriptedPolicy p([&](const ClusterView& v, const Changes&, Decisions& out) {
            if (++calls > random_calls) {  // then a fifo that finishes the run
                for (JobIdx j = 0; j < 4; ++j) {
                    const JobInfo& job = v.job(j);
                    if (job.state == JobState::Queued && v.free_gpus(0) >= job.num_gpus) out.start(j, 0, job.num_gpus);
                    if (job.state == JobState::Queued || job.state == JobState::Pending)
                        out.next_call = v.now() + 1'000'000;  // until every job has run
                }
                return;
            }
            // Mostly plausible answers, so that runs also go on past them: a job of the trace, its own gang.
            for (int k = pick(0, 2); k > 0; --k) {
                const auto j = static_cast<JobIdx>(pick(0, 9) == 0 ? 4 : pick(0, 3));
                const auto t = static_cast<GpuTypeIdx>(pick(0, 7) == 0 ? 1 : 0);
                const int n = j < 4 && pick(0, 3) != 0 ? v.job(j).num_gpus + pick(0, 1) : pick(-1, 5);
                std::vector<NodeShare> nodes;
                if (pick(0, 4) == 0)
                    for (int m = pick(1, 2); m > 0; --m)
                        nodes.push_back({static_cast<NodeIdx>(pick(0, 2)), pick(0, 3), pick(0, 3) ? kWholeGpu : 500});
                switch (pick(0, 4)) {
                    case 0:
                        out.start(j, t, n, nodes);
                        break;
                    case 1:
                        out.preempt(j);
                        break;
                    case 2:
                        out.resize(j, n);
                        break;
                    case 3:
                        out.migrate(j, t, nodes);
                        break;
                    case 4:
                        out.pack(j, static_cast<JobIdx>(pick(0, 4)));
                        break;
                }
            }
            if (pick(0, 3) == 0) out.next_call = v.now() + (pick(0, 3) == 0 ? pick(-2, 0) : pick(1, 3)) * 1'000'000;
        });
        Simulator sim(f.in.cluster, f.rates, f.jobs, p, f.placer, {});
        try {
            sim.run();
            ++completed;
        } catch (const InvalidDecision&) {
            ++refused;
        } catch (const InternalError& e) {
            FAIL("seed " << seed << ": " << e.what());
        }
    }
    INFO(refused << " refused, " << completed << " completed");
    CHECK(refused > 300);
    CHECK(completed > 300);
}

// The run names the policy, the rule (with the time) and the job by its trace id; whose mistake it is decides
// the exit code: code written outside dlsim (py:, exec:) gets an InputError (exit 2), a built-in an
// InternalError (exit 1). A scripted policy stands in for both, under the name of the run's policy.
TEST_CASE("run: an invalid decision names the policy, the rule and the job; exit 2 for foreign code", "[engine]") {
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                          "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,3,1,10\n");
    RunConfig c;
    c.policy = "fifo";
    ResolvedRun run = resolve(c);
    auto with_policy = [&](ScriptedPolicy::Script script, bool external) {
        auto entry = std::make_shared<RegistryEntry<Policy>>(*run.policy.entry);
        entry->make = [script](const Params&, const MakeContext&) {
            return std::unique_ptr<Policy>(std::make_unique<ScriptedPolicy>(script));
        };
        ResolvedRun r = run;
        r.policy = PolicySource{entry, external};
        return r;
    };
    const ScriptedPolicy::Script start_twice = [](const ClusterView& v, const Changes&, Decisions& out) {
        if (v.now() == 0) out.start(0, 0, 2);
        if (v.now() == s(3)) out.start(0, 0, 2);
    };
    const ScriptedPolicy::Script timer_now = [](const ClusterView& v, const Changes&, Decisions& out) {
        out.next_call = v.now();
    };
    const std::string twice =
        "policy fifo: invalid decision: policy started job 0 which is not queued at 3000000 us (job 'a' (index 0, ";
    const std::string timer = "policy fifo: invalid decision: policy asked to be called at 0 us, not after now at 0 us";
    for (const bool external : {false, true}) {
        INFO((external ? "foreign" : "built-in"));
        for (const auto& [script, message] : {std::pair{start_twice, twice}, std::pair{timer_now, timer}}) {
            try {
                simulate(in, with_policy(script, external));
                FAIL("no error");
            } catch (const InputError& e) {
                CHECK(external);
                CHECK_THAT(e.what(), Catch::StartsWith(message));
            } catch (const InternalError& e) {
                CHECK_FALSE(external);
                CHECK_THAT(e.what(), Catch::StartsWith(message));
            }
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
