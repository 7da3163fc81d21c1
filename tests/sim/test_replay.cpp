// Replay identity and determinism.
#include "models/base/random.hpp"
#include "tests/support/shared_data.hpp"
#include "tests/support/test_support.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <filesystem>

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

}  // namespace dlsim::test::replay_tests
