// Replay identity and determinism.
#include "models/base/random.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::replay_tests {

TEST_CASE("replay identity: every job on its original type and count finishes in its duration", "[replay]") {
    // Gavel's measured profile; 300 jobs of random models on their original types (as allowed types,
    // so the fastest-type rule cannot move them), on a cluster big enough to start them all at once.
    RunInputs in;
    in.cluster = parse_cluster(R"({"gpu_types": {"V100": {"aliases": ["v100"]}, "P100": {"aliases": ["p100"]},
        "K80": {"aliases": ["k80"]}},
        "node_types": {"v": {"gpu_type": "V100", "gpus": 8}, "p": {"gpu_type": "P100", "gpus": 8},
                       "k": {"gpu_type": "K80", "gpus": 8}},
        "racks": [{"node_type": "v", "nodes": 100}, {"node_type": "p", "nodes": 100}, {"node_type": "k", "nodes": 100}]})",
                               "cluster.json");
    in.profiles = load_profiles(std::string(DLSIM_SOURCE_DIR) + "/models/profiles/gavel.json");
    Rng rng(7, "test/replay");
    std::string csv = "job_id,submit_time,num_gpus,duration,model,gpu_type,allowed_gpu_types\n";
    const char* types[] = {"v100", "p100", "k80"};
    std::size_t rows = 0;
    while (rows < 300) {
        const auto& model = in.profiles.models[rng.below(in.profiles.models.size())];
        const char* type = types[rng.below(3)];
        if (model.throughput.at(type) <= 0) continue;  // e.g. a model Gavel measured as infeasible there
        const int gpus = 1 << rng.below(4);
        csv += fmt::format("j{},{},{},{},{},{},{}\n", rows, std::round(rng.uniform(0, 1e5) * 1e6) / 1e6, gpus,
                           std::round(rng.uniform(1, 1e6) * 1e6) / 1e6, model.name, type, type);
        ++rows;
    }
    in.trace = parse_canonical_csv(csv, "trace.csv");
    const auto o = run_policy(in, "fifo");
    REQUIRE(o.summary.finished == 300);
    for (std::size_t j = 0; j < 300; ++j) {
        INFO(in.trace.jobs[j].id);
        CHECK(o.jobs[j].first_start == o.jobs[j].submit);
        CHECK(o.jobs[j].finish - o.jobs[j].submit == to_time(in.trace.jobs[j].duration));
    }
}

TEST_CASE("replay identity on Gavel's Philly job distribution (33,192 jobs)", "[replay][shared-data]") {
    const std::string path = std::string(DLSIM_SHARED_DATA) + "/gavel/philly_job_distribution.csv";
    if (!shared_data_present(path)) return;
    // duration_s,num_gpus -> a canonical trace, all submitted at 0, on 9,015 nodes of 8 GPUs (72,120 GPUs
    // for the 72,114 the jobs need together).
    std::string csv = "job_id,submit_time,num_gpus,duration\n", text = slurp(path);
    std::size_t n = 0, gpus = 0;
    for (std::size_t pos = text.find('\n') + 1; pos < text.size();) {
        const std::size_t end = text.find('\n', pos);
        std::string row = text.substr(pos, end - pos);
        if (!row.empty() && row.back() == '\r') row.pop_back();  // the file has CRLF line ends
        pos = end == std::string::npos ? text.size() : end + 1;
        if (row.empty()) continue;
        const auto comma = row.find(',');
        gpus += std::stoul(row.substr(comma + 1));
        csv += fmt::format("{},0,{},{}\n", n++, row.substr(comma + 1), row.substr(0, comma));
    }
    REQUIRE(n == 33192);
    REQUIRE(gpus == 72114);
    const auto in = inputs_from_text(homogeneous_cluster_json(9015, 8), kUnusedProfile, csv);
    const auto o = run_policy(in, "fifo");
    REQUIRE(o.summary.finished == n);
    std::size_t exact = 0;
    for (std::size_t j = 0; j < n; ++j)
        exact += o.jobs[j].first_start == 0 && o.jobs[j].finish == to_time(in.trace.jobs[j].duration);
    CHECK(exact == n);
    CHECK(o.summary.makespan == 5196151);  // the longest job (PROVENANCE.txt: max 5,196,151 s)
}

TEST_CASE("determinism: two runs are byte-identical outside \"run\"", "[replay][cli]") {
    const std::string a = temp_path("det-a.json"), b = temp_path("det-b.json");
    const std::string ca = temp_path("det-a.csv"), cb = temp_path("det-b.csv");
    for (const char* policy : {"fifo", "srtf"}) {
        INFO(policy);
        REQUIRE(run_cli(fmt::format("run --policy {} --out {} --jobs-csv {}", policy, a, ca)).exit_code == 0);
        REQUIRE(run_cli(fmt::format("run --policy {} --out {} --jobs-csv {}", policy, b, cb)).exit_code == 0);
        const std::string ta = slurp(a), tb = slurp(b);
        const auto cut_a = ta.find("\n\"run\":"), cut_b = tb.find("\n\"run\":");
        REQUIRE(cut_a != std::string::npos);
        CHECK(ta.substr(0, cut_a) == tb.substr(0, cut_b));
        CHECK(slurp(ca) == slurp(cb));
        CHECK(ta.size() > 100000);  // 1,000 job records and the time series are really there
    }
}

namespace {

/// Job id -> GPU type of every job of a result file.
std::map<std::string, std::string> types_of(const std::string& result) {
    std::map<std::string, std::string> out;
    const nlohmann::json doc = nlohmann::json::parse(slurp(result));
    for (const auto& j : doc["jobs"]) out[j["job_id"]] = j["gpu_type"];
    return out;
}

/// The openb pods of the hand-made node list's cluster (G2 16 GPUs, P100 3, T4 2; dlsim trace cluster).
std::string openb_cluster() {
    const std::string spec = temp_path("openb-sample-cluster.json");
    REQUIRE(run_cli(fmt::format("trace cluster {}/traces/alibaba_openb/openb_node_list_sample.csv --out {}",
                                DLSIM_TEST_DATA, spec))
                .exit_code == 0);
    return spec;
}

const std::string kPodHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";

}  // namespace

TEST_CASE("replay realism: model-less openb pods on their imported cluster spread over its types", "[replay][cli]") {
    // Six 1-GPU pods without a gpu_spec, all at 0 and running 1000 s: every type is equally fast for them.
    // type_ties=most_free takes the largest share of a type's GPUs free, then the most free GPUs:
    //   all types wholly free -> G2 (16 GPUs); then P100 3/3 and T4 2/2 tie on share -> P100 (more GPUs);
    //   then T4 2/2 -> T4; then G2 15/16 beats P100 2/3 and T4 1/2 -> G2, G2 14/16 -> G2, G2 13/16 -> G2.
    // type_ties=cluster_order puts them all on G2, the first type.
    std::string pods = kPodHeader;
    for (int i = 0; i < 6; ++i) pods += fmt::format("pod-{},1000,1024,1,1000,,LS,Succeeded,0,1000,0\n", i);
    const std::string trace = write_temp("openb_pod_list_ties.csv", pods), cluster = openb_cluster();
    const std::string out = temp_path("openb-ties.json");
    REQUIRE(run_cli(fmt::format("run --trace {} --cluster {} --out {}", trace, cluster, out)).exit_code == 0);
    const std::map<std::string, std::string> spread = types_of(out);
    CHECK(spread ==
          std::map<std::string, std::string>{
              {"pod-0", "G2"}, {"pod-1", "P100"}, {"pod-2", "T4"}, {"pod-3", "G2"}, {"pod-4", "G2"}, {"pod-5", "G2"}});
    const auto hours = nlohmann::json::parse(slurp(out))["summary"]["gpu_hours_by_type"];
    CHECK(hours["G2"].get<double>() == Approx(4000.0 / 3600));
    CHECK(hours["P100"].get<double>() == Approx(1000.0 / 3600));
    CHECK(hours["T4"].get<double>() == Approx(1000.0 / 3600));

    REQUIRE(run_cli(fmt::format("run --trace {} --cluster {} --param type_ties=cluster_order --out {}", trace, cluster,
                                out))
                .exit_code == 0);
    for (const auto& [job, type] : types_of(out)) CHECK(type == "G2");
}

TEST_CASE("replay realism: --type-choice original keeps every job on the type its record names", "[replay][cli]") {
    // openb: a gpu_spec naming one model is the pod's original type. Three pods name T4, P100 and G2; three
    // name none (they spread as above, from what the named ones leave).
    std::string pods = kPodHeader;
    pods += "named-t4,1000,1024,1,1000,T4,LS,Succeeded,0,1000,0\n";
    pods += "named-p100,1000,1024,1,1000,P100,LS,Succeeded,0,1000,0\n";
    pods += "named-g2,1000,1024,2,1000,G2,LS,Succeeded,0,1000,0\n";
    for (int i = 0; i < 3; ++i) pods += fmt::format("free-{},1000,1024,1,1000,,LS,Succeeded,0,1000,0\n", i);
    const std::string trace = write_temp("openb_pod_list_original.csv", pods), cluster = openb_cluster();
    const std::string out = temp_path("openb-original.json");
    REQUIRE(run_cli(fmt::format("run --trace {} --cluster {} --type-choice original --out {}", trace, cluster, out))
                .exit_code == 0);
    const std::map<std::string, std::string> got = types_of(out);
    CHECK(got.at("named-t4") == "T4");
    CHECK(got.at("named-p100") == "P100");
    CHECK(got.at("named-g2") == "G2");

    // The canonical CSV's gpu_type is not a restriction: under fastest a job goes where the rule puts it, under
    // original it stays on its type. Three 1-GPU jobs that ran on T4, with no model, at 0: fastest puts the
    // first on G2 (every type wholly free: the most GPUs); original puts all three on T4 (2 GPUs: the third
    // waits for the first to finish at 1000 s). A type the cluster lacks (V100) falls back to fastest.
    const std::string csv = write_temp("original.csv",
                                       "job_id,submit_time,num_gpus,duration,gpu_type\n"
                                       "a,0,1,1000,T4\nb,0,1,1000,T4\nc,0,1,1000,T4\nd,0,1,1000,V100\n");
    REQUIRE(run_cli(fmt::format("run --trace {} --cluster {} --out {}", csv, cluster, out)).exit_code == 0);
    CHECK(types_of(out).at("a") == "G2");
    REQUIRE(run_cli(fmt::format("run --trace {} --cluster {} --type-choice original --out {}", csv, cluster, out))
                .exit_code == 0);
    const auto kept = types_of(out);
    CHECK(kept == std::map<std::string, std::string>{{"a", "T4"}, {"b", "T4"}, {"c", "T4"}, {"d", "G2"}});
    const auto doc = nlohmann::json::parse(slurp(out));
    CHECK(doc["jobs"][2]["start_time"].get<double>() == 1000);
    CHECK(doc["config"]["type_choice"] == "original");
}

}  // namespace dlsim::test::replay_tests
