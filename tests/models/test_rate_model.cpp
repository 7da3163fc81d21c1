// Single-GPU and job rates (models/rate_model.hpp): a profile's types matched to the cluster's by name and
// alias, types the profile names alone, and jobs without a model.
#include "models/cluster.hpp"
#include "models/profile.hpp"
#include "models/rate_model.hpp"
#include "tests/support/cluster_fixtures.hpp"

#include <catch2/catch.hpp>

#include <optional>

using namespace dlsim;
using namespace dlsim::test;

namespace dlsim::test::rate_model_tests {

TEST_CASE("RateModel: single, rate and single_by_name", "[unit]") {
    const Cluster c = parse_cluster(kMixedCluster, "mixed.json");
    // resnet: V100 through its alias, K80 by name, P100 only in the profile.
    // bert: no K80 entry (cannot run there). both: name beats alias.
    const ProfileSet p = parse_profiles(R"({"models": {
        "resnet": {"throughput": {"V100-SXM2-16GB": 4.0, "k80": 1.0, "P100": 2.5}},
        "bert":   {"throughput": {"tesla v100": 3.0}},
        "both":   {"throughput": {"v100-sxm2-16gb": 6.0, "V100": 5.0, "K80": 0}}}})",
                                        "p.json");
    const RateModel r(c, p);
    const ModelIdx resnet = 0, bert = 1, both = 2;
    CHECK(r.single(resnet, 0) == 4.0);
    CHECK(r.single(resnet, 1) == 1.0);
    CHECK(r.single(bert, 0) == 3.0);
    CHECK(r.single(bert, 1) == 0.0);
    CHECK(r.single(both, 0) == 5.0);
    CHECK(r.single(both, 1) == 0.0);
    CHECK(r.single(kNoModel, 0) == 1.0);
    CHECK(r.single(kNoModel, 1) == 1.0);
    CHECK(r.rate(resnet, 0, 4) == 16.0);
    CHECK(r.rate(resnet, 1, 3) == 3.0);
    CHECK(r.rate(kNoModel, 1, 3) == 3.0);
    CHECK(r.rate(bert, 1, 8) == 0.0);

    CHECK(r.single_by_name(resnet, "v100") == std::optional<double>(4.0));        // cluster type
    CHECK(r.single_by_name(resnet, "Tesla V100") == std::optional<double>(4.0));  // cluster alias
    CHECK(r.single_by_name(resnet, "p100") == std::optional<double>(2.5));        // profile-only type
    CHECK(r.single_by_name(bert, "P100") == std::optional<double>(0.0));          // known type, not for bert
    CHECK(r.single_by_name(bert, "k80") == std::optional<double>(0.0));
    CHECK(r.single_by_name(resnet, "A100") == std::nullopt);
    CHECK(r.single_by_name(kNoModel, "K80") == std::optional<double>(1.0));
    CHECK(r.single_by_name(kNoModel, "P100") == std::optional<double>(1.0));
    CHECK(r.single_by_name(kNoModel, "A100") == std::nullopt);
}

}  // namespace dlsim::test::rate_model_tests
