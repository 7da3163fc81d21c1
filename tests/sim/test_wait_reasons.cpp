// Pending reasons and preemption causes, worked by hand: strict FIFO's head-of-line blocking, EASY's
// reservation, a VC quota, fragmentation on two nodes, a round-based policy's spent share, and a policy
// that gives its own reasons; every job's time per reason is exact and sums to its pending time. Each
// preemption's cause names the job that took the GPUs, the round, the quota or the move.
#include "models/base/json_fields.hpp"
#include "sim/app/run.hpp"
#include "tests/support/test_support.hpp"

#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::wait_reasons_tests {

namespace {

double waited_s(const RunOutcome& o, JobIdx j, WaitReason r) {
    return to_seconds(o.waited[j][static_cast<std::size_t>(r)]);
}

/// Every finished job's times per reason add up to its pending time, to the microsecond, and the time
/// series of queued jobs by reason add up to the queued jobs' series.
void check_sums(const RunOutcome& o) {
    for (JobIdx j = 0; j < o.jobs.size(); ++j) {
        if (o.jobs[j].state != JobState::Finished) continue;
        Time sum = 0;
        for (Time t : o.waited[j]) sum += t;
        INFO("job " << j);
        CHECK(sum == pending_time(o.jobs[j]));
    }
    REQUIRE(!o.timeseries.time.empty());
    for (std::size_t i = 0; i < o.timeseries.time.size(); ++i) {
        double sum = 0;
        for (const auto& [reason, series] : o.timeseries.queued_by_reason) sum += series[i];
        INFO("bucket " << i);
        CHECK(sum == Approx(o.timeseries.queued[i]).margin(1e-9));
    }
}

/// Only the reasons listed wait any time for job j.
void check_only(const RunOutcome& o, JobIdx j, std::map<WaitReason, double> expected) {
    for (std::size_t r = 0; r < kWaitReasons; ++r) {
        const auto reason = static_cast<WaitReason>(r);
        INFO("job " << j << ", reason " << wait_reason_name(reason));
        CHECK(waited_s(o, j, reason) == (expected.count(reason) ? expected[reason] : 0.0));
    }
}

RunOutcome run_logged(const RunInputs& in, const std::string& policy, const std::string& name,
                      const std::vector<std::string>& params = {}, const std::string& placement = "") {
    RunConfig c;
    c.policy = policy;
    for (const std::string& p : params) add_param(c, p);
    if (!placement.empty()) c.placement = placement;
    c.out.clear();
    c.event_log = temp_path(name + ".jsonl");
    RunOutcome o = simulate(in, c);
    write_outputs(in, c, o, {});
    return o;
}

std::vector<json_fields::Json> events_of(const std::string& name, const std::string& kind = "") {
    std::ifstream f(temp_path(name + ".jsonl"));
    std::vector<json_fields::Json> out;
    for (std::string line; std::getline(f, line);) {
        auto e = json_fields::Json::parse(line);
        if (kind.empty() || e["event"] == kind) out.push_back(std::move(e));
    }
    return out;
}

}  // namespace

TEST_CASE("wait reasons: strict fifo's head waits for GPUs, the job behind it for the head", "[engine][reasons]") {
    // 1 node x 4 GPUs. a (3 GPUs, 10 s) runs 0-10. b (2 GPUs) at 1: 1 GPU free, so it waits for GPUs until
    // a ends. c (1 GPU) at 2 would fit, but strict FIFO keeps it behind b. At 10 both start.
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                                          "job_id,submit_time,num_gpus,duration\na,0,3,10\nb,1,2,5\nc,2,1,4\n");
    const RunOutcome o = run_logged(in, "fifo", "reasons-fifo");
    REQUIRE(start_s(o, 1) == 10);
    REQUIRE(start_s(o, 2) == 10);
    check_only(o, 0, {});
    check_only(o, 1, {{WaitReason::Resources, 9}});
    check_only(o, 2, {{WaitReason::HeadOfLine, 8}});
    check_sums(o);
    // The summary: job-hours and GPU-hours (times the requested GPUs) per reason.
    REQUIRE(o.summary.pending_reasons.size() == 2);
    CHECK(o.summary.pending_reasons[0].reason == WaitReason::Resources);
    CHECK(o.summary.pending_reasons[0].job_hours == Approx(9.0 / 3600));
    CHECK(o.summary.pending_reasons[0].gpu_hours == Approx(18.0 / 3600));
    CHECK(o.summary.pending_reasons[1].reason == WaitReason::HeadOfLine);
    CHECK(o.summary.pending_reasons[1].gpu_hours == Approx(8.0 / 3600));
    // The event log: arrivals, then each job's reason as it changes; c names the head it waits behind.
    const auto arrivals = events_of("reasons-fifo", "arrive");
    REQUIRE(arrivals.size() == 3);
    CHECK(arrivals[2]["time"] == 2);
    CHECK(arrivals[2]["gpus"] == 1);
    const auto waits = events_of("reasons-fifo", "wait");
    REQUIRE(waits.size() == 2);
    CHECK(waits[0]["job_id"] == "b");
    CHECK(waits[0]["reason"] == "resources");
    CHECK(waits[1]["job_id"] == "c");
    CHECK(waits[1]["reason"] == "head_of_line");
    CHECK(waits[1]["behind"] == "b");
    CHECK(waits[1]["rest"] == true);
}

TEST_CASE("wait reasons: EASY keeps a job that would delay the head's reservation waiting for it",
          "[engine][reasons]") {
    // 1 node x 4 GPUs, fifo backfill=easy. a (3 GPUs, 10 s) runs 0-10; b (4 GPUs, 5 s) at 1 is the head:
    // reservation at 10, no GPU to spare. c (1 GPU, 20 s) at 2 fits in the free GPU but would run past
    // 10: reserved for b until 10, then (b holding all 4) waiting for GPUs until 15. d (1 GPU, 5 s) at 3
    // ends by 8 and is backfilled at once.
    const RunInputs in =
        inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                         "job_id,submit_time,num_gpus,duration\na,0,3,10\nb,1,4,5\nc,2,1,20\nd,3,1,5\n");
    const RunOutcome o = run_logged(in, "fifo", "reasons-easy", {"backfill=easy"});
    REQUIRE(start_s(o, 1) == 10);
    REQUIRE(start_s(o, 2) == 15);
    REQUIRE(start_s(o, 3) == 3);
    check_only(o, 1, {{WaitReason::Resources, 9}});
    check_only(o, 2, {{WaitReason::Reserved, 8}, {WaitReason::Resources, 5}});
    check_only(o, 3, {});
    check_sums(o);
    const auto waits = events_of("reasons-easy", "wait");
    bool named = false;
    for (const auto& w : waits)
        if (w["job_id"] == "c" && w["reason"] == "reserved") named = w["behind"] == "b";
    CHECK(named);
}

TEST_CASE("wait reasons: a VC over its quota waits for the quota, and a reclaim names the VC's job",
          "[engine][reasons]") {
    // 1 node x 4 GPUs; VCs A and B with 2 GPUs each.
    const RunInputs in =
        inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                         "job_id,submit_time,num_gpus,duration,vc\na,0,2,10,A\nb,1,1,5,A\nc,2,1,4,A\nd,3,2,6,B\n");
    const std::string quotas = write_temp("reasons-quotas.json", R"({"A": 2, "B": 2})");
    SECTION("hard quotas: b waits for A's quota (2 GPUs are free), c behind b") {
        const RunOutcome o = run_logged(in, "vc-quota", "reasons-quota", {"quotas=" + quotas});
        REQUIRE(start_s(o, 1) == 10);
        REQUIRE(start_s(o, 2) == 10);
        REQUIRE(start_s(o, 3) == 3);
        check_only(o, 1, {{WaitReason::Quota, 9}});
        check_only(o, 2, {{WaitReason::HeadOfLine, 8}});
        check_sums(o);
        const auto waits = events_of("reasons-quota", "wait");
        REQUIRE(!waits.empty());
        CHECK(waits[0]["job_id"] == "b");
        CHECK(waits[0]["reason"] == "quota");
        CHECK(waits[0]["vc"] == "A");
    }
    SECTION("borrowing: A's 4-GPU job runs on B's idle quota until B's job reclaims it") {
        // a (A, 4 GPUs, 10 s) borrows 2 of B's GPUs at 0; d (B, 2 GPUs, 6 s... here at 1) reclaims them: a is
        // preempted for B's job and waits for A's quota (its gang is larger than A's 2 GPUs) until d ends at 7.
        const RunInputs borrow = inputs_from_text(homogeneous_cluster_json(1, 4), kUnusedProfile,
                                                  "job_id,submit_time,num_gpus,duration,vc\na,0,4,10,A\nd,1,2,6,B\n");
        const RunOutcome o = run_logged(borrow, "vc-quota", "reasons-reclaim", {"quotas=" + quotas, "mode=borrow"});
        REQUIRE(o.jobs[0].preemptions == 1);
        REQUIRE(start_s(o, 1) == 1);
        const auto preempts = events_of("reasons-reclaim", "preempt");
        REQUIRE(preempts.size() == 1);
        CHECK(preempts[0]["job_id"] == "a");
        CHECK(preempts[0]["cause"] == "quota");
        CHECK(preempts[0]["by"] == "d");
        CHECK(preempts[0]["vc"] == "B");
        check_only(o, 0, {{WaitReason::Quota, 6}});
        check_sums(o);
    }
}

TEST_CASE("wait reasons: two free GPUs on two nodes cannot hold a 2-GPU job that must stay on one node",
          "[engine][reasons]") {
    // 2 nodes x 2 GPUs, strict-locality placement (a gang on one node). a, b (1 GPU, 10 s and 20 s) share
    // node 0; c, d (1 GPU, 5 s and 30 s) node 1. e (2 GPUs) at 1 waits for GPUs until c ends at 5 (one GPU
    // free) and a at 10 (two, one per node): from 10 its starts are declined until b ends at 20.
    const RunInputs in =
        inputs_from_text(homogeneous_cluster_json(2, 2), kUnusedProfile,
                         "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,0,1,20\nc,0,1,5\nd,0,1,30\ne,1,2,5\n");
    const RunOutcome o = run_logged(in, "fifo", "reasons-fragmentation", {}, "strict-locality");
    REQUIRE(start_s(o, 4) == 20);
    check_only(o, 4, {{WaitReason::Resources, 9}, {WaitReason::Fragmentation, 10}});
    check_sums(o);
}

TEST_CASE("wait reasons: a preemptive priority walk names the lowest-ranked job that runs", "[engine][reasons]") {
    // 1 GPU, sjf preemptive=true strict=false (shortest total duration first). a (10 s) runs from 0; b (3 s) at 1 ranks
    // first and displaces it: a waits behind b until b ends at 4, then runs 4-13. c (20 s) at 2 ranks last:
    // behind b until 4, then behind a until 13; it runs 13-33.
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                          "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,1,1,3\nc,2,1,20\n");
    const RunOutcome o = run_logged(in, "sjf", "reasons-priority", {"preemptive=true", "strict=false"});
    REQUIRE(finish_s(o, 0) == 13);
    REQUIRE(start_s(o, 2) == 13);
    check_only(o, 0, {{WaitReason::Priority, 3}});
    check_only(o, 1, {});
    check_only(o, 2, {{WaitReason::Priority, 11}});
    check_sums(o);
    // In the log: c joins the queue's common reason (behind b) at 2; at 4 the common reason names a.
    std::vector<std::string> lines;
    for (const auto& e : events_of("reasons-priority"))
        if ((e["event"] == "wait" && e["job_id"] == "c") || e["event"] == "wait_rest")
            lines.push_back(fmt::format("{} {} {} {}", e["time"].dump(), e["event"].get<std::string>(),
                                        e["reason"].get<std::string>(), e["behind"].get<std::string>()));
    CHECK(lines == std::vector<std::string>{"2 wait priority b", "4 wait_rest priority a"});
    const auto preempts = events_of("reasons-priority", "preempt");
    REQUIRE(preempts.size() == 1);
    CHECK(preempts[0]["by"] == "b");
}

TEST_CASE("wait reasons: a round-based policy's job left out of a round has spent its share", "[engine][reasons]") {
    // 1 GPU, gavel-las, 360 s rounds: a and b (720 s each) arrive at 0 and take the GPU by turns. a runs
    // 0-360 and 720-1080 (its share spent 360-720); b runs 360-720 and 1080-1440 (spent 0-360, 720-1080).
    // Each round's end preempts the job whose turn is over.
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                          "job_id,submit_time,num_gpus,duration\na,0,1,720\nb,0,1,720\n");
    const RunOutcome o = run_logged(in, "gavel-las", "reasons-rounds");
    REQUIRE(finish_s(o, 0) == 1080);
    REQUIRE(finish_s(o, 1) == 1440);
    check_only(o, 0, {{WaitReason::Share, 360}});
    check_only(o, 1, {{WaitReason::Share, 720}});
    check_sums(o);
    const auto preempts = events_of("reasons-rounds", "preempt");
    REQUIRE(preempts.size() == 2);
    for (const auto& p : preempts) CHECK(p["cause"] == "round_end");
    CHECK(preempts[0]["job_id"] == "a");
    CHECK(preempts[0]["time"] == 360);
}

TEST_CASE("wait reasons: a policy that decides every second holds a job that arrives between its ticks",
          "[engine][reasons]") {
    // helios-srtf decides at whole seconds. 1 GPU: a (2 s) arrives at 0.5 on a free GPU and starts at the
    // tick at 1: it waited for the policy's timer. b (1 s) at 1.25 waits for the tick at 2 too, then for
    // a's GPU (at 2, a has 1 s left, no more than b: srtf keeps a) until a ends at 3; it runs 3-4. A
    // call between ticks settles only the jobs queued since the last one: at 2.5 (c arrives and waits for
    // the tick at 3), b keeps waiting for GPUs.
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 1), kUnusedProfile,
                                          "job_id,submit_time,num_gpus,duration\na,0.5,1,2\nb,1.25,1,1\nc,2.5,1,1\n");
    const RunOutcome o = run_logged(in, "helios-srtf", "reasons-tick");
    REQUIRE(start_s(o, 0) == 1);
    REQUIRE(start_s(o, 1) == 3);
    REQUIRE(start_s(o, 2) == 4);
    check_only(o, 0, {{WaitReason::PolicyTimer, 0.5}});
    check_only(o, 1, {{WaitReason::PolicyTimer, 0.75}, {WaitReason::Resources, 1}});
    check_only(o, 2, {{WaitReason::PolicyTimer, 0.5}, {WaitReason::Resources, 1}});
    check_sums(o);
}

TEST_CASE("wait reasons: a policy's own reasons (Python) hold as given", "[python]") {
    // Hold keeps every job until 3 s (placement declined), then starts in order what fits. 1 node x 2 GPUs:
    // a (1 GPU, 2 s) at 0 runs 3-5; b (2 GPUs) at 1 waits for GPUs from 3 until a ends.
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(1, 2), kUnusedProfile,
                                          "job_id,submit_time,num_gpus,duration\na,0,1,2\nb,1,2,2\n");
    const RunOutcome o =
        run_logged(in, "py:" + std::string(DLSIM_SOURCE_DIR) + "/tests/data/python/hold.py:Hold", "reasons-python");
    REQUIRE(start_s(o, 0) == 3);
    REQUIRE(start_s(o, 1) == 5);
    check_only(o, 0, {{WaitReason::PlacementDeclined, 3}});
    check_only(o, 1, {{WaitReason::PlacementDeclined, 2}, {WaitReason::Resources, 2}});
    check_sums(o);
}

TEST_CASE("preemption causes: srtf's preempted job names the shorter job that took its GPUs", "[engine][reasons]") {
    // 2 nodes x 2 GPUs, srtf: a (10 s) on node 0, b (20 s) on node 1 from 1; c (3 s) at 2 displaces b.
    const RunInputs in = inputs_from_text(homogeneous_cluster_json(2, 2), kUnusedProfile,
                                          "job_id,submit_time,num_gpus,duration\na,0,2,10\nb,1,2,20\nc,2,2,3\n");
    const RunOutcome o = run_logged(in, "srtf", "causes-srtf");
    const auto preempts = events_of("causes-srtf", "preempt");
    REQUIRE(preempts.size() == 1);
    CHECK(preempts[0]["job_id"] == "b");
    CHECK(preempts[0]["time"] == 2);
    CHECK(preempts[0]["cause"] == "displaced");
    CHECK(preempts[0]["by"] == "c");
    // b waits for GPUs from 2 until c ends at 5 (a ranks before it and holds the rest).
    check_only(o, 1, {{WaitReason::Resources, 3}});
    check_sums(o);
    // The preemption line comes before the start that displaced it.
    const auto all = events_of("causes-srtf");
    std::size_t preempt_at = 0, start_at = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (all[i]["event"] == "preempt") preempt_at = i;
        if (all[i]["event"] == "start" && all[i]["job_id"] == "c") start_at = i;
    }
    CHECK(preempt_at < start_at);
}

namespace {

/// Checks an event log's preemption causes against its own lines: every preemption has a cause; one
/// displaced names a job that got GPUs at that instant on a node the preempted job held; one moved runs
/// again at that instant; resizes and migrations say so. Returns how many of them had each cause.
std::map<std::string, int> check_causes(const std::string& path) {
    std::map<std::string, int> count;
    std::ifstream f(path);
    std::vector<json_fields::Json> lines;
    for (std::string line; std::getline(f, line);) lines.push_back(json_fields::Json::parse(line));
    std::map<std::string, std::vector<int>> nodes_of;  // job -> the nodes it holds now
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const auto& e = lines[i];
        const std::string what = e["event"], job = e.value("job_id", std::string());
        if (what == "start" || what == "migrate" || what == "resize") {
            nodes_of[job].clear();
            for (const auto& n : e["nodes"]) nodes_of[job].push_back(n[0].get<int>());
        }
        if (what == "migrate" || what == "resize") {  // an elastic resize, a move to another type
            CHECK(e["cause"] == (what == "migrate" ? "moved" : "resized"));
            ++count[e["cause"]];
        }
        if (what != "preempt") continue;
        INFO(path << " line " << i + 1 << ": " << e.dump());
        REQUIRE(e.contains("cause"));
        const std::string cause = e["cause"];
        ++count[cause];
        // The instant's lines that follow it.
        auto later_at_same_time = [&](auto&& pred) {
            for (std::size_t k = i + 1; k < lines.size() && lines[k]["time"] == e["time"]; ++k)
                if (pred(lines[k])) return true;
            return false;
        };
        if (cause == "displaced") {
            const std::string by = e["by"];
            const std::vector<int> held = nodes_of[job];
            CHECK(later_at_same_time([&](const json_fields::Json& l) {
                if (l.value("job_id", std::string()) != by || !l.contains("nodes")) return false;
                for (const auto& n : l["nodes"])
                    if (std::find(held.begin(), held.end(), n[0].get<int>()) != held.end()) return true;
                return false;
            }));
        } else if (cause == "moved") {
            CHECK(later_at_same_time(
                [&](const json_fields::Json& l) { return l.value("job_id", std::string()) == job && l["event"] == "start"; }));
        } else {
            CHECK((cause == "round_end" || cause == "quota" || cause == "policy" || cause == "resized" ||
                   cause == "no_place"));
        }
        nodes_of[job].clear();
    }
    return count;
}

}  // namespace

TEST_CASE("preemption causes: every preempting policy's causes agree with its event log", "[engine][reasons]") {
    // The bundled trace's first 120 jobs on Gavel's 108-GPU cluster at 6x load (the queue and round
    // policies), and a small Pollux workload on 2 x 4 T4s (the elastic ones). For each policy: it did
    // preempt (or resize), each cause agrees with the lines around it, and each job's time per reason sums
    // to its pending time.
    struct Case {
        std::string policy;
        const char* expected;  // a cause it must give at least once
    };
    const std::vector<Case> queue_cases = {{"srtf", "displaced"},
                                           {"srsf", "displaced"},
                                           {"helios-srtf", "displaced"},
                                           {"las", "displaced"},
                                           {"blox-las", "displaced"},
                                           {"tiresias", "displaced"},
                                           {"tiresias-gittins", "displaced"},
                                           {"tiresias-sjf", "displaced"},
                                           {"themis", "displaced"},
                                           {"gavel-las", "round_end"},
                                           {"gavel-las --param space_sharing=true", "round_end"},
                                           {"gavel-ftf", "round_end"},
                                           {"gavel-makespan", "round_end"},
                                           {"gavel-max-throughput", "round_end"},
                                           {"gavel-isolated", "round_end"},
                                           {"fifo-het", "round_end"}};
    for (const Case& c : queue_cases) {
        INFO(c.policy);
        const std::string name = c.policy.substr(0, c.policy.find(' ')) + std::to_string(c.policy.size());
        const std::string log = temp_path("causes-" + name + ".jsonl"), out = temp_path("causes-" + name + ".json");
        const CliResult r = run_cli(
            fmt::format("run --cluster {}/models/clusters/gavel_108.json --max-jobs 120 --load-scale 6 --policy {} "
                        "--event-log {} --out {}",
                        DLSIM_SOURCE_DIR, c.policy, log, out));
        REQUIRE(r.exit_code == 0);
        const auto count = check_causes(log);
        CHECK(count.count(c.expected) == 1);
        const auto doc = json_fields::parse_file(out);
        for (const auto& job : doc["jobs"]) {
            if (job["state"] != "finished") continue;
            double sum = 0;
            for (const auto& [reason, seconds] : job["pending_reasons"].items()) sum += seconds.get<double>();
            CHECK(sum == Approx(job["pending_time"].get<double>()).margin(1e-6));
        }
    }
    const std::string trace = write_temp("causes-pollux.csv",
                                         "name,time,application,num_replicas,batch_size\n"
                                         "cifar10-0,0,cifar10,4,512\nncf-1,30,ncf,1,32768\n"
                                         "deepspeech2-2,95,deepspeech2,8,160\nbert-3,120,bert,4,96\n"
                                         "cifar10-4,200,cifar10,2,256\nncf-5,260.5,ncf,1,32768\n"
                                         "cifar10-6,400,cifar10,8,1024\nbert-7,430,bert,2,48\n");
    const std::string cluster = write_temp(
        "causes-2x4.json",
        R"({"gpu_types": {"T4": {}}, "node_types": {"n": {"gpu_type": "T4", "gpus": 4}}, "racks": [{"node_type": "n", "nodes": 2}]})");
    for (const char* policy : {"pollux", "sia", "optimus", "afs", "pollux-tiresias", "tiresias-elastic", "gavel-tj"}) {
        INFO(policy);
        const std::string log = temp_path(std::string("causes-") + policy + ".jsonl");
        const CliResult r = run_cli(
            fmt::format("run --trace {} --cluster {} --profiles {}/models/profiles/pollux_elastic.json --policy {} "
                        "--restart-cost 30 --event-log {} --out {}",
                        trace, cluster, DLSIM_SOURCE_DIR, policy, log, temp_path("causes-elastic.json")));
        REQUIRE(r.exit_code == 0);
        const auto count = check_causes(log);
        int all = 0;
        for (const auto& [cause, n] : count) all += n;
        CHECK(all > 0);
    }
}

}  // namespace dlsim::test::wait_reasons_tests
