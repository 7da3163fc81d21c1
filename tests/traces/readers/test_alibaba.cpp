// The Alibaba readers (GPU 2023 "openb" pod lists, PAI 2020 job+task tables) and the cluster imports from their
// machine lists: hand-made fixtures in the published shapes with exact records, malformed rows, and the real
// openb files from ../shared/data where present.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "models/base/input_error.hpp"
#include "models/cluster.hpp"
#include "models/profile.hpp"
#include "sim/app/run.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"
#include "traces/import/cluster_import.hpp"
#include "traces/readers/trace_format.hpp"

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::alibaba_tests {

namespace {

const std::string kFixtures = std::string(DLSIM_TEST_DATA) + "/traces";
const std::string kOpenbPods = kFixtures + "/alibaba_openb/openb_pod_list_sample.csv";
const std::string kOpenbNodes = kFixtures + "/alibaba_openb/openb_node_list_sample.csv";
const std::string kPaiJobs = kFixtures + "/alibaba_pai2020/pai_job_table.csv";
const std::string kPaiMachines = kFixtures + "/alibaba_pai2020/pai_machine_spec.csv";
const std::string kOpenbHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

/// One expected canonical record; strings are compared through the trace's string table.
struct Expected {
    std::string id;
    double submit;
    int gpus;
    double duration;
    std::string gpu_type, allowed;
    double fraction;
    std::string user, status;
    JobOutcome outcome;
};

void check_job(const Trace& t, std::size_t i, const Expected& e) {
    INFO("job " << i << " (" << e.id << ")");
    REQUIRE(i < t.jobs.size());
    const JobRecord& j = t.jobs[i];
    CHECK(j.id == e.id);
    CHECK(j.submit_time == Approx(e.submit).margin(1e-9));
    CHECK(j.num_gpus == e.gpus);
    CHECK(j.duration == Approx(e.duration).margin(1e-9));
    CHECK(t.strings[j.model].empty());
    CHECK(t.strings[j.gpu_type] == e.gpu_type);
    CHECK(t.strings[j.allowed_gpu_types] == e.allowed);
    CHECK(j.gpu_fraction == Approx(e.fraction));
    CHECK(t.strings[j.user] == e.user);
    CHECK(t.strings[j.vc].empty());
    CHECK(t.strings[j.status] == e.status);
    CHECK(j.outcome == e.outcome);
    CHECK(j.work == 0);
}

/// Writes a PAI job table and its task table side by side under fresh names; returns the job table's path.
std::string write_pai(const std::string& tag, const std::string& jobs, const std::string& tasks) {
    test::write_temp("pai_task_table_" + tag + ".csv", tasks);
    return test::write_temp("pai_job_table_" + tag + ".csv", jobs);
}

}  // namespace

// ---------------------------------------------------------------- openb

TEST_CASE("alibaba-openb: the hand-made pod list gives exact records and report", "[traces]") {
    const Trace t = read_alibaba_openb_trace(kOpenbPods, ReadOptions{});
    CHECK(t.format == "alibaba-openb");
    CHECK(t.path == kOpenbPods);
    CHECK_FALSE(t.wall_clock);
    CHECK(t.time_origin == 100);
    REQUIRE(t.jobs.size() == 4);
    using O = JobOutcome;
    check_job(t, 0, {"openb-pod-0000", 0, 1, 1000, "", "", 1.0, "", "Running", O::Unknown});
    check_job(t, 1, {"openb-pod-0001", 50, 1, 300, "", "V100M16|V100M32", 0.46, "", "Succeeded", O::Completed});
    check_job(t, 2, {"openb-pod-0004", 100, 8, 3600, "G2", "G2", 1.0, "", "Failed", O::Failed});
    check_job(t, 3, {"openb-pod-0007", 300, 4, 600, "", "T4|A10", 1.0, "", "Succeeded", O::Completed});
    CHECK(t.jobs[0].line == 2);
    CHECK(t.jobs[3].line == 9);

    const ReadReport& r = t.report;
    CHECK(r.rows_read == 8);
    CHECK(r.kept == 4);
    CHECK(r.dropped == std::map<std::string, std::uint64_t>{{"pending (never scheduled)", 2},
                                                            {"cpu-only", 1},
                                                            {"zero run time (deletion_time = scheduled_time)", 1}});
    CHECK(r.repaired.empty());
    auto said = [&](const std::string& words) {
        return std::any_of(r.assumptions.begin(), r.assumptions.end(),
                           [&](const std::string& a) { return a.find(words) != std::string::npos; });
    };
    CHECK(said("run time = deletion_time - scheduled_time"));
    CHECK(said("Pending"));
    CHECK(said("Running pods still have a deletion_time"));
    CHECK(said("zero run time"));
    CHECK(said("gpu_fraction = gpu_milli/1000"));
}

TEST_CASE("alibaba-openb: --time-unit scales the time columns", "[traces]") {
    ReadOptions o;
    o.time_unit = 0.001;
    const Trace t = read_alibaba_openb_trace(kOpenbPods, o);
    REQUIRE(t.jobs.size() == 4);
    CHECK(t.jobs[1].submit_time == Approx(0.05));
    CHECK(t.jobs[2].duration == Approx(3.6));
    CHECK(t.time_origin == Approx(0.1));
}

TEST_CASE("alibaba-openb: detection by header, and auto-detection reads the fixture", "[traces]") {
    CHECK(detect_alibaba_openb("x.csv", kOpenbHeader.substr(0, kOpenbHeader.size() - 1)));
    CHECK(detect_alibaba_openb("x.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli"));  // multigpu: clear error
    CHECK_FALSE(detect_alibaba_openb("x.csv", "job_id,submit_time,num_gpus,duration"));
    CHECK_FALSE(detect_alibaba_openb("x.csv", "name,time,application,num_replicas,batch_size"));
    CHECK_FALSE(detect_alibaba_pai2020("openb_pod_list_default.csv", kOpenbHeader));
    const Trace t = read_trace(kOpenbPods, "auto", ReadOptions{});
    CHECK(t.format == "alibaba-openb");
    CHECK(t.jobs.size() == 4);
}

TEST_CASE("alibaba-openb: a multigpu variant without time columns is an input error", "[traces]") {
    const std::string p =
        test::write_temp("openb_pod_list_multigpu_x.csv",
                         "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nopenb-pod-0000,12000,16384,1,1000\n");
    CHECK_THROWS_AS(read_alibaba_openb_trace(p, ReadOptions{}), InputError);
    CHECK_THROWS_WITH(read_trace(p, "auto", ReadOptions{}), Catch::Contains(p + ":1: missing column 'gpu_spec'") &&
                                                                Catch::Contains("multigpu") &&
                                                                Catch::Contains("no time columns"));
    const std::string q = test::write_temp("openb_no_sched.csv",
                                           "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                                           "creation_time,deletion_time\np,1,1,1,1000,,LS,Running,0,1\n");
    CHECK_THROWS_WITH(read_alibaba_openb_trace(q, ReadOptions{}),
                      Catch::Contains(q + ":1: missing column 'scheduled_time'"));
}

TEST_CASE("alibaba-openb: malformed rows name file:line and the column, or are skipped by reason", "[traces]") {
    const std::string good = "openb-pod-0000,12000,16384,1,1000,,LS,Running,0,100,0\n";
    struct Case {
        std::string row, expect, reason;
    };
    const std::vector<Case> cases = {
        {"p,1,1,1,1000,,LS,Running,0,100\n", ":3: expected 11 fields as in the header, got 10",
         "wrong number of fields"},
        {",1,1,1,1000,,LS,Running,0,100,0\n", ":3: column 'name': expected a non-empty pod name", "bad name"},
        {"p,1,1,x,1000,,LS,Running,0,100,0\n", ":3: column 'num_gpu': expected an integer number of GPUs >= 0, got 'x'",
         "bad num_gpu"},
        {"p,1,1,1,1500,,LS,Running,0,100,0\n", ":3: column 'gpu_milli': expected an integer share of a GPU in 0..1000",
         "bad gpu_milli"},
        {"p,1,1,2,0,,LS,Running,0,100,0\n", ":3: column 'gpu_milli': expected a share of 1..1000 for a pod with GPUs",
         "bad gpu_milli"},
        {"p,1,1,1,1000,T4||G2,LS,Running,0,100,0\n", ":3: column 'gpu_spec': expected GPU type names separated by '|'",
         "bad gpu_spec"},
        {"p,1,1,1,1000,,LS,Running,abc,100,0\n", ":3: column 'creation_time': expected a time in seconds",
         "bad creation_time"},
        {"p,1,1,1,1000,,LS,Running,0,-5,0\n", ":3: column 'deletion_time': expected a time in seconds",
         "bad deletion_time"},
        {"p,1,1,1,1000,,LS,Running,0,50,60\n",
         ":3: column 'deletion_time': expected a time >= scheduled_time (60), got '50'", "bad deletion_time"},
        {"p,1,1,1,1000,,LS,Running,0,100,1e99\n", ":3: column 'scheduled_time': expected a time in seconds",
         "bad scheduled_time"},
        {"openb-pod-0000,1,1,1,1000,,LS,Running,0,100,0\n",
         ":3: column 'name': duplicate pod name 'openb-pod-0000' (first on line 2)", "duplicate name"},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        INFO("case " << i << ": " << c.row);
        const std::string p = test::write_temp("openb_bad_" + std::to_string(i) + ".csv", kOpenbHeader + good + c.row);
        CHECK_THROWS_WITH(read_alibaba_openb_trace(p, ReadOptions{}), Catch::Contains(p + c.expect));
        const Trace t = read_alibaba_openb_trace(p, skip_bad());
        CHECK(t.report.rows_read == 2);
        CHECK(t.jobs.size() == 1);
        CHECK(t.report.dropped == std::map<std::string, std::uint64_t>{{c.reason, 1}});
        REQUIRE(t.report.first_errors.size() == 1);
        CHECK_THAT(t.report.first_errors[0], Catch::Contains(c.expect));
    }
    // Several bad rows together are counted by reason.
    const std::string all = test::write_temp(
        "openb_bad_all.csv", kOpenbHeader + good + cases[0].row + cases[2].row + cases[3].row + cases[4].row + good);
    const Trace t = read_alibaba_openb_trace(all, skip_bad());
    CHECK(t.report.rows_read == 6);
    CHECK(t.jobs.size() == 1);
    CHECK(t.report.dropped ==
          std::map<std::string, std::uint64_t>{
              {"wrong number of fields", 1}, {"bad num_gpu", 1}, {"bad gpu_milli", 2}, {"duplicate name", 1}});
    // Nothing usable left is an input error, not an empty trace.
    const std::string none = test::write_temp("openb_none.csv", kOpenbHeader + "p,1,1,0,0,,LS,Running,0,100,0\n");
    CHECK_THROWS_WITH(read_alibaba_openb_trace(none, ReadOptions{}), Catch::Contains("none of the 1 rows"));
}

// ---------------------------------------------------------------- PAI 2020

TEST_CASE("alibaba-pai2020: the hand-made job and task tables give exact records and report", "[traces]") {
    const Trace t = read_alibaba_pai2020_trace(kPaiJobs, ReadOptions{});
    CHECK(t.format == "alibaba-pai2020");
    CHECK(t.path == kPaiJobs);
    CHECK_FALSE(t.wall_clock);
    CHECK(t.time_origin == 494319);
    REQUIRE(t.jobs.size() == 5);
    using O = JobOutcome;
    // One task of 1 instance at 50% of a T4: 1 GPU, fraction 0.5; run time 494420 - 494320.
    check_job(t, 0, {"6a1f0c1e2b3d4e5f60718293", 0, 1, 100, "T4", "", 0.5, "58540f191766", "Terminated", O::Completed});
    // ps (2 x no GPU, 494410..495010) + worker (4 x 100%, V100): 4 GPUs, run time 495010 - 494410.
    check_job(t, 1, {"7b2e1d0c3f4a5b6c7d8e9f00", 81, 4, 600, "V100", "", 1.0, "2b9c3d4e5f6a", "Failed", O::Failed});
    // worker 2 x ceil(150/100) + evaluator 1 x ceil(25/100) = 5 GPUs of MISC (no type); 494910 - 494510.
    check_job(t, 2, {"8c3f2e1d4a5b6c7d8e9f0011", 181, 5, 400, "", "", 1.0, "58540f191766", "Terminated", O::Completed});
    // start = end: run time set to 1 s (repaired).
    check_job(t, 3,
              {"f3a09f8e1122334455667788", 281, 1, 1, "P100", "", 1.0, "58540f191766", "Terminated", O::Completed});
    // plan_gpu 800 on one instance: 8 GPUs; submit 494700.5.
    check_job(t, 4,
              {"04b1a09f2233445566778899", 381.5, 8, 3600, "V100M32", "", 1.0, "2b9c3d4e5f6a", "Failed", O::Failed});
    CHECK(t.jobs[0].line == 1);
    CHECK(t.jobs[4].line == 11);

    const ReadReport& r = t.report;
    CHECK(r.rows_read == 11);
    CHECK(r.kept == 5);
    CHECK(r.dropped == std::map<std::string, std::uint64_t>{{"still running", 1},
                                                            {"never started", 1},
                                                            {"cpu-only", 1},
                                                            {"no submit time (empty start_time)", 1},
                                                            {"no tasks in the task table", 1},
                                                            {"a task has no start_time or end_time", 1}});
    CHECK(r.repaired == std::map<std::string, std::uint64_t>{{"zero run time set to 1 s", 1}});
    auto said = [&](const std::string& words) {
        return std::any_of(r.assumptions.begin(), r.assumptions.end(),
                           [&](const std::string& a) { return a.find(words) != std::string::npos; });
    };
    CHECK(said("inst_num * ceil(plan_gpu / 100)"));
    CHECK(said("run time = latest task end_time - earliest task start_time"));
    CHECK(said("1 task rows name no job of the job table"));
    CHECK(said("pai_task_table.csv"));
}

TEST_CASE("alibaba-pai2020: a job with no task rows is dropped; --time-unit scales times", "[traces]") {
    const std::string jobs = "a,i1,u1,Terminated,10,20\nb,i2,u2,Terminated,12,30\n";
    const std::string tasks = "a,worker,1.0,Terminated,11,19,600.0,29.3,100.0,T4\n";
    const std::string p = write_pai("notasks", jobs, tasks);
    const Trace t = read_alibaba_pai2020_trace(p, ReadOptions{});
    REQUIRE(t.jobs.size() == 1);
    CHECK(t.jobs[0].id == "a");
    CHECK(t.jobs[0].duration == 8);
    CHECK(t.report.dropped == std::map<std::string, std::uint64_t>{{"no tasks in the task table", 1}});
    ReadOptions ms;
    ms.time_unit = 0.001;
    const Trace u = read_alibaba_pai2020_trace(p, ms);
    CHECK(u.jobs[0].duration == Approx(0.008));
    CHECK(u.time_origin == Approx(0.01));
}

TEST_CASE("alibaba-pai2020: detection by file name; the task table must be beside the job table", "[traces]") {
    CHECK(detect_alibaba_pai2020("/data/pai/pai_job_table.csv", ""));
    CHECK(detect_alibaba_pai2020("pai_job_table_sample.csv", "x,y"));
    CHECK_FALSE(detect_alibaba_pai2020("/data/pai/pai_task_table.csv", ""));
    CHECK_FALSE(detect_alibaba_pai2020("/data/pai_job_table/jobs.csv", ""));
    CHECK_FALSE(detect_alibaba_openb("/data/pai/pai_job_table.csv", "a,b,c,Terminated,1,2"));
    const Trace t = read_trace(kPaiJobs, "auto", ReadOptions{});
    CHECK(t.format == "alibaba-pai2020");
    CHECK(t.jobs.size() == 5);

    const std::string lonely = test::write_temp("pai_job_table_lonely.csv", "a,i1,u1,Terminated,10,20\n");
    CHECK_THROWS_WITH(read_alibaba_pai2020_trace(lonely, ReadOptions{}),
                      Catch::Contains("pai_task_table_lonely.csv") && Catch::Contains("task table"));
}

TEST_CASE("alibaba-pai2020: malformed job and task rows name file:line and the column, or are skipped", "[traces]") {
    const std::string good_job = "a,i1,u1,Terminated,10,20\n";
    const std::string good_task = "a,worker,1.0,Terminated,11,19,600.0,29.3,100.0,T4\n";
    struct Case {
        std::string jobs, tasks, expect_file, expect, reason;
    };
    const std::vector<Case> cases = {
        {"b,i2,u2,Terminated,12\n", "", "job", ":2: expected 6 fields", "wrong number of fields"},
        {"b,i2,u2,Terminated,abc,30\n", "", "job",
         ":2: column 'start_time': expected a time in seconds >= 0, or empty, got 'abc'", "bad start_time"},
        {"b,i2,u2,,12,30\n", "", "job", ":2: column 'status': expected a status", "bad status"},
        {",i2,u2,Terminated,12,30\n", "", "job", ":2: column 'job_name': expected a non-empty job name",
         "bad job_name"},
        {"a,i2,u2,Terminated,12,30\n", "", "job", ":2: column 'job_name': duplicate job 'a' (first on line 1)",
         "duplicate job_name"},
        {"b,i2,u2,Terminated,12,30\n", "b,worker,0,Terminated,12,20,600.0,29.3,100.0,T4\n", "task",
         ":2: column 'inst_num': expected a whole number of instances >= 1, got '0'", "a task row was malformed"},
        {"b,i2,u2,Terminated,12,30\n", "b,worker,1.5,Terminated,12,20,600.0,29.3,100.0,T4\n", "task",
         ":2: column 'inst_num'", "a task row was malformed"},
        {"b,i2,u2,Terminated,12,30\n", "b,worker,1.0,Terminated,12,20,600.0,29.3,50%,T4\n", "task",
         ":2: column 'plan_gpu': expected a percentage of a GPU >= 0, or empty, got '50%'", "a task row was malformed"},
        {"b,i2,u2,Terminated,12,30\n", "b,worker,1.0,Terminated,12,20,600.0,29.3,100.0,K80\n", "task",
         ":2: column 'gpu_type': expected one of V100, V100M32, P100, T4, MISC, or empty, got 'K80'",
         "a task row was malformed"},
        {"b,i2,u2,Terminated,12,30\n", "b,worker,1.0,Terminated,20,12,600.0,29.3,100.0,T4\n", "task",
         ":2: column 'end_time': expected a time >= start_time (20), got '12'", "a task row was malformed"},
        {"b,i2,u2,Terminated,12,30\n", "b,worker,1.0,Terminated,12,20,600.0,100.0,T4\n", "task",
         ":2: expected 10 fields", "a task row was malformed"},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        INFO("case " << i << ": " << c.jobs << c.tasks);
        const std::string tag = "bad" + std::to_string(i);
        const std::string p = write_pai(tag, good_job + c.jobs, good_task + c.tasks);
        const std::string file = c.expect_file == "job" ? p : test::temp_path("pai_task_table_" + tag + ".csv");
        CHECK_THROWS_WITH(read_alibaba_pai2020_trace(p, ReadOptions{}), Catch::Contains(file + c.expect));
        const Trace t = read_alibaba_pai2020_trace(p, skip_bad());
        CHECK(t.report.rows_read == 2);
        REQUIRE(t.jobs.size() == 1);
        CHECK(t.jobs[0].id == "a");
        CHECK(t.report.dropped == std::map<std::string, std::uint64_t>{{c.reason, 1}});
        REQUIRE_FALSE(t.report.first_errors.empty());
        CHECK_THAT(t.report.first_errors[0], Catch::Contains(file + c.expect));
    }
}

// ---------------------------------------------------------------- cluster imports

TEST_CASE("cluster_from_openb_nodes: one GPU type per model, one node type per shape", "[traces]") {
    const std::string text = cluster_from_openb_nodes(kOpenbNodes);
    const auto doc = nlohmann::json::parse(text);
    CHECK(doc["schema"] == "dlsim.cluster/1");
    CHECK(doc["reference_gpu_type"] == "G2");
    CHECK(doc["gpu_types"] == nlohmann::json::parse(R"({"G2": {}, "P100": {}, "T4": {}})"));
    CHECK(doc["node_types"] == nlohmann::json::parse(R"({
        "G2x8-96cpu-384gb": {"gpu_type": "G2", "gpus": 8, "cpus": 96, "mem_gb": 384},
        "P100x2-64cpu-256gb": {"gpu_type": "P100", "gpus": 2, "cpus": 64, "mem_gb": 256},
        "T4x2-104cpu-512gb": {"gpu_type": "T4", "gpus": 2, "cpus": 104, "mem_gb": 512},
        "P100x1-8cpu-60gb": {"gpu_type": "P100", "gpus": 1, "cpus": 8, "mem_gb": 60}})"));
    CHECK(doc["racks"] == nlohmann::json::parse(R"([
        {"node_type": "G2x8-96cpu-384gb", "nodes": 2}, {"node_type": "P100x2-64cpu-256gb", "nodes": 1},
        {"node_type": "T4x2-104cpu-512gb", "nodes": 1}, {"node_type": "P100x1-8cpu-60gb", "nodes": 1}])"));
    const std::string description = doc["description"];
    CHECK_THAT(description, Catch::Contains("no rack information") && Catch::Contains("1 CPU-only nodes skipped") &&
                                Catch::Contains("5 GPU nodes, 21 GPUs"));
    // Keys in a stable order, as written (ordered_json).
    CHECK(text.find("\"schema\"") < text.find("\"gpu_types\""));
    CHECK(text.find("\"G2\"") < text.find("\"P100\""));

    const Cluster c = parse_cluster(text, "openb.json");
    CHECK(c.nodes.size() == 5);
    CHECK(c.num_gpus() == 21);
    REQUIRE(c.find_gpu_type("P100"));
    CHECK(c.gpus_of_type(*c.find_gpu_type("P100")) == 3);
    CHECK(c.gpu_types[c.reference_gpu_type].name == "G2");
}

TEST_CASE("cluster_from_openb_nodes: malformed lines name file:line and the column", "[traces]") {
    const std::string header = "sn,cpu_milli,memory_mib,gpu,model\n";
    const std::string good = "n0,96000,393216,8,G2\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"n1,96000,393216,x,G2\n", ":3: column 'gpu': expected an integer number of GPUs in 0..4096, got 'x'"},
        {"n1,9.5,393216,8,G2\n", ":3: column 'cpu_milli': expected milli-cores >= 0, got '9.5'"},
        {"n1,96000,-1,8,G2\n", ":3: column 'memory_mib'"},
        {"n1,96000,393216,8,\n", ":3: column 'model': expected the GPU model of a node with GPUs"},
        {"n0,96000,393216,8,G2\n", ":3: column 'sn': expected a node name not listed before, got 'n0'"},
        {"n1,96000,393216,8\n", ":3: expected 5 fields"},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        INFO(cases[i].first);
        const std::string p =
            test::write_temp("openb_nodes_bad" + std::to_string(i) + ".csv", header + good + cases[i].first);
        CHECK_THROWS_WITH(cluster_from_openb_nodes(p), Catch::Contains(p + cases[i].second));
    }
    const std::string bad_header =
        test::write_temp("openb_nodes_badh.csv", "sn,cpu_milli,memory_mib,gpus,model\n" + good);
    CHECK_THROWS_WITH(cluster_from_openb_nodes(bad_header), Catch::Contains(":1: header column 4 should be 'gpu'"));
    const std::string cpu_only = test::write_temp("openb_nodes_cpu.csv", header + "n0,32000,262144,0,\n");
    CHECK_THROWS_WITH(cluster_from_openb_nodes(cpu_only), Catch::Contains("no GPU nodes"));
}

TEST_CASE("cluster_from_pai_machines: headerless machine list, CPU-only machines skipped", "[traces]") {
    const std::string text = cluster_from_pai_machines(kPaiMachines);
    const auto doc = nlohmann::json::parse(text);
    CHECK(doc["schema"] == "dlsim.cluster/1");
    CHECK(doc["reference_gpu_type"] == "V100");  // 16 GPUs, more than any other type
    CHECK(doc["gpu_types"] ==
          nlohmann::json::parse(R"({"V100M32": {}, "P100": {}, "T4": {}, "MISC": {}, "V100": {}})"));
    CHECK(doc["node_types"] == nlohmann::json::parse(R"({
        "V100M32x8-96cpu-384gb": {"gpu_type": "V100M32", "gpus": 8, "cpus": 96, "mem_gb": 384},
        "P100x2-64cpu-512gb": {"gpu_type": "P100", "gpus": 2, "cpus": 64, "mem_gb": 512},
        "T4x2-96cpu-512gb": {"gpu_type": "T4", "gpus": 2, "cpus": 96, "mem_gb": 512},
        "MISCx8-96cpu-512gb": {"gpu_type": "MISC", "gpus": 8, "cpus": 96, "mem_gb": 512},
        "V100x8-96cpu-384gb": {"gpu_type": "V100", "gpus": 8, "cpus": 96, "mem_gb": 384},
        "V100x8-96cpu-512gb": {"gpu_type": "V100", "gpus": 8, "cpus": 96, "mem_gb": 512}})"));
    CHECK(doc["racks"][1] == nlohmann::json::parse(R"({"node_type": "P100x2-64cpu-512gb", "nodes": 2})"));
    CHECK(doc["racks"].size() == 6);
    const std::string description = doc["description"];
    CHECK_THAT(description, Catch::Contains("no rack information") && Catch::Contains("1 CPU-only machines skipped") &&
                                Catch::Contains("7 GPU machines, 38 GPUs"));
    const Cluster c = parse_cluster(text, "pai.json");
    CHECK(c.nodes.size() == 7);
    CHECK(c.num_gpus() == 38);

    // The PAI fixture trace resolves against it: every GPU type it names is a type of this cluster.
    RunInputs in;
    in.cluster = c;
    in.profiles = parse_profiles(R"({"models": {"unused": {"throughput": {"V100": 1}}}})", "p.json");
    in.trace = read_alibaba_pai2020_trace(kPaiJobs, ReadOptions{});
    RunConfig cfg;
    cfg.out.clear();
    const RunOutcome o = simulate(in, cfg);
    CHECK(o.summary.finished == 5);
    CHECK(o.summary.rejected == 0);
}

TEST_CASE("cluster_from_pai_machines: malformed lines name file:line and the column", "[traces]") {
    const std::string good = "m0,V100,96,384,8\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"m1,V100,96,384,x\n", ":2: column 'cap_gpu': expected an integer number of GPUs in 0..4096, got 'x'"},
        {"m1,V100,ninety,384,8\n", ":2: column 'cap_cpu': expected a number of cores >= 0, got 'ninety'"},
        {"m1,V100,96,,8\n", ":2: column 'cap_mem'"},
        {"m1,,96,384,8\n", ":2: column 'gpu_type'"},
        {"m1,CPU,96,384,8\n", ":2: column 'cap_gpu': expected 0 GPUs on a machine of type CPU"},
        {"m0,V100,96,384,8\n", ":2: column 'machine': expected a machine name not listed before"},
        {"m1,V100,96,384\n", ":2: expected 5 fields"},
    };
    for (std::size_t i = 0; i < cases.size(); ++i) {
        INFO(cases[i].first);
        const std::string p = test::write_temp("pai_machines_bad" + std::to_string(i) + ".csv", good + cases[i].first);
        CHECK_THROWS_WITH(cluster_from_pai_machines(p), Catch::Contains(p + cases[i].second));
    }
    // A header line written from pai_machine_spec.header is tolerated.
    const std::string with_header =
        test::write_temp("pai_machines_header.csv", "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n" + good);
    CHECK(parse_cluster(cluster_from_pai_machines(with_header), "x").num_gpus() == 8);
}

// ---------------------------------------------------------------- real data

TEST_CASE("alibaba-openb: the published default pod list, counted independently", "[traces][shared-data]") {
    const std::string dir = std::string(DLSIM_SHARED_DATA) + "/traces/alibaba_gpu_2023/csv";
    const std::string pods = dir + "/openb_pod_list_default.csv";
    if (!shared_data_present(pods)) return;
    // Independent count: rows, pending (empty scheduled_time, the last column), CPU-only among the scheduled.
    const auto rows = read_rows(pods, ',', true);
    REQUIRE(std::all_of(rows.begin(), rows.end(), [](const auto& r) { return r.size() == 11; }));
    std::size_t pending = 0, cpu_only = 0, fractional = 0;
    for (const auto& r : rows) {
        if (r[10].empty())
            ++pending;
        else if (r[3] == "0")
            ++cpu_only;
        else if (r[4] != "1000")
            ++fractional;
    }
    CHECK(rows.size() == 8152);  // the published figures (PROVENANCE.txt)
    CHECK(pending == 897);

    const Trace t = read_trace(pods, "auto", ReadOptions{});
    CHECK(t.format == "alibaba-openb");
    CHECK(t.report.rows_read == rows.size());
    CHECK(t.report.dropped.at("pending (never scheduled)") == pending);
    CHECK(t.report.dropped.at("cpu-only") == cpu_only);
    CHECK(t.report.dropped.count("zero run time (deletion_time = scheduled_time)") == 0);  // none in the file
    CHECK(t.report.kept == rows.size() - pending - cpu_only);
    CHECK(t.jobs.size() == t.report.kept);
    CHECK(static_cast<std::size_t>(std::count_if(t.jobs.begin(), t.jobs.end(),
                                                 [](const JobRecord& j) { return j.gpu_fraction < 1; })) == fractional);

    // The multigpu variants have no time columns.
    const std::string multi = dir + "/openb_pod_list_multigpu20.csv";
    if (std::filesystem::exists(multi))
        CHECK_THROWS_WITH(read_trace(multi, "auto", ReadOptions{}),
                          Catch::Contains(multi + ":1: missing column") && Catch::Contains("multigpu"));
}

TEST_CASE("alibaba-openb: the published GPU node list as a cluster", "[traces][shared-data]") {
    const std::string nodes =
        std::string(DLSIM_SHARED_DATA) + "/traces/alibaba_gpu_2023/csv/openb_node_list_gpu_node.csv";
    if (!shared_data_present(nodes)) return;
    std::map<std::string, long long> gpus_of;
    std::size_t gpu_nodes = 0;
    long long gpus = 0;
    const auto rows = read_rows(nodes, ',', true);
    REQUIRE(std::all_of(rows.begin(), rows.end(), [](const auto& r) { return r.size() == 5; }));
    for (const auto& r : rows) {
        const long long n = std::stoll(r[3]);
        if (n == 0) continue;
        ++gpu_nodes;
        gpus += n;
        gpus_of[r[4]] += n;
    }
    const auto widest = std::max_element(gpus_of.begin(), gpus_of.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
    const Cluster c = parse_cluster(cluster_from_openb_nodes(nodes), "openb.json");
    CHECK(c.nodes.size() == gpu_nodes);
    CHECK(c.num_gpus() == static_cast<std::size_t>(gpus));
    CHECK(c.gpu_types.size() == gpus_of.size());
    for (const auto& [model, n] : gpus_of) {
        INFO(model);
        REQUIRE(c.find_gpu_type(model));
        CHECK(c.gpus_of_type(*c.find_gpu_type(model)) == n);
    }
    CHECK(c.gpu_types[c.reference_gpu_type].name == widest->first);
}

TEST_CASE("alibaba-openb: the published pods replay with fifo on the published GPU nodes", "[traces][shared-data]") {
    const std::string dir = std::string(DLSIM_SHARED_DATA) + "/traces/alibaba_gpu_2023/csv";
    const std::string nodes = dir + "/openb_node_list_gpu_node.csv";
    if (!shared_data_present(nodes)) return;
    std::map<std::string, long long> gpus_of;  // GPU model -> GPUs in the node list
    for (const auto& r : read_rows(nodes, ',', true))
        if (std::stoll(r[3]) > 0) gpus_of[r[4]] += std::stoll(r[3]);
    const Cluster cluster = parse_cluster(cluster_from_openb_nodes(nodes), "openb.json");

    // The default list has no gpu_spec; gpuspec25 constrains a quarter of the GPU pods to named types.
    for (const std::string name : {"openb_pod_list_default.csv", "openb_pod_list_gpuspec25.csv"}) {
        const std::string pods = dir + "/" + name;
        if (!shared_data_present(pods)) continue;
        INFO(pods);
        // Independently: which scheduled GPU pods can never run (no allowed type present, or wider than every
        // allowed type's GPUs)?
        std::size_t expected_jobs = 0, expected_rejected = 0;
        for (const auto& r : read_rows(pods, ',', true)) {
            if (r[10].empty() || r[3] == "0") continue;
            ++expected_jobs;
            const long long need = std::stoll(r[3]);
            long long widest = 0;
            if (r[5].empty()) {
                for (const auto& [model, n] : gpus_of) widest = std::max(widest, n);
            } else {
                for (const auto& type : split(r[5], '|'))
                    if (gpus_of.count(type)) widest = std::max(widest, gpus_of[type]);
            }
            if (widest < need) ++expected_rejected;
        }
        RunInputs in;
        in.cluster = cluster;
        in.profiles = parse_profiles(R"({"models": {"unused": {"throughput": {"T4": 1}}}})", "p.json");
        in.trace = read_alibaba_openb_trace(pods, ReadOptions{});
        REQUIRE(in.trace.jobs.size() == expected_jobs);
        RunConfig cfg;
        cfg.policy = "fifo";
        cfg.out.clear();
        const RunOutcome o = simulate(in, cfg);
        CHECK(o.summary.jobs == expected_jobs);
        CHECK(o.summary.finished + o.summary.rejected == o.summary.jobs);
        CHECK(o.summary.unfinished == 0);
        CHECK(o.summary.rejected == expected_rejected);
        CHECK(expected_rejected == 0);  // every type named in the published gpu_spec lists is in the node list
    }
}

TEST_CASE("cluster_from_pai_machines: the published pai_machine_spec, counted independently", "[traces][shared-data]") {
    const std::string archive = std::string(DLSIM_SHARED_DATA) + "/traces/alibaba_pai_2020/pai_machine_spec.tar.gz";
    if (!shared_data_present(archive)) return;
    const std::filesystem::path dir = std::filesystem::path(test::temp_path("pai_spec"));
    std::filesystem::create_directories(dir);
    const std::string cmd = "tar -xzf '" + archive + "' -C '" + dir.string() + "' 2>/dev/null";
    const std::string csv = (dir / "pai_machine_spec.csv").string();
    // The archive is there: failing to unpack it is a failure, not a skip.
    if (std::system(cmd.c_str()) != 0 || !std::filesystem::exists(csv))
        FAIL("could not extract " << archive << " with tar");
    std::size_t machines = 0, cpu_only = 0;
    long long gpus = 0;
    std::map<std::string, long long> gpus_of;
    const auto rows = read_rows(csv, ',', false);
    REQUIRE(std::all_of(rows.begin(), rows.end(), [](const auto& r) { return r.size() == 5; }));
    for (const auto& r : rows) {
        const long long n = std::stoll(r[4]);
        if (n == 0) {
            ++cpu_only;
            continue;
        }
        ++machines;
        gpus += n;
        gpus_of[r[1]] += n;
    }
    const std::string text = cluster_from_pai_machines(csv);
    std::filesystem::remove_all(dir);
    const Cluster c = parse_cluster(text, "pai.json");
    CHECK(c.nodes.size() == machines);
    CHECK(c.num_gpus() == static_cast<std::size_t>(gpus));
    CHECK(c.gpu_types.size() == gpus_of.size());
    for (const auto& [type, n] : gpus_of) {
        INFO(type);
        REQUIRE(c.find_gpu_type(type));
        CHECK(c.gpus_of_type(*c.find_gpu_type(type)) == n);
    }
    CHECK_THAT(nlohmann::json::parse(text)["description"].get<std::string>(),
               Catch::Contains(std::to_string(cpu_only) + " CPU-only machines skipped"));
}

}  // namespace dlsim::test::alibaba_tests
