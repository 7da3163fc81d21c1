// Policy parameters and the registry (policies/registry.hpp): resolve_params fills defaults, canonicalises
// values and names what is valid when a name or value is not; the built-in entries are found by name.
#include "models/base/input_error.hpp"
#include "policies/registry.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace dlsim;

namespace dlsim::test::registry_tests {

using Catch::Matchers::Contains;

namespace {
std::vector<ParamSpec> sample_specs() {
    return {{"type_order", ParamType::Choice, "fastest", "which type", {"fastest", "spec"}},
            {"window", ParamType::Int, "10", "jobs looked at", {}},
            {"alpha", ParamType::Double, "0.5", "weight", {}},
            {"backfill", ParamType::Bool, "false", "allow backfill", {}}};
}
}  // namespace

TEST_CASE("resolve_params: defaults filled and values canonicalised", "[unit]") {
    const Params d = resolve_params("policy demo", sample_specs(), {});
    CHECK(d.values().size() == 4u);
    CHECK(d.get("type_order") == "fastest");
    CHECK(d.get_int("window") == 10);
    CHECK(d.get_double("alpha") == 0.5);
    CHECK_FALSE(d.get_bool("backfill"));
    CHECK(d.values().at("window").first == ParamType::Int);
    CHECK_THROWS_AS(d.get("nope"), InternalError);

    const Params p = resolve_params("policy demo", sample_specs(),
                                    {{"type_order", "spec"}, {"window", "7"}, {"alpha", "2.50"}, {"backfill", "1"}});
    CHECK(p.get("type_order") == "spec");
    CHECK(p.get_int("window") == 7);
    CHECK(p.get("alpha") == "2.5");
    CHECK(p.get_double("alpha") == 2.5);
    CHECK(p.get("backfill") == "true");
    CHECK(p.get_bool("backfill"));
}

TEST_CASE("resolve_params: unknown names and bad values are InputErrors naming what is valid", "[unit]") {
    const auto specs = sample_specs();
    CHECK_THROWS_AS(resolve_params("policy demo", specs, {{"widnow", "3"}}), InputError);
    CHECK_THROWS_WITH(resolve_params("policy demo", specs, {{"widnow", "3"}}),
                      Contains("widnow") && Contains("policy demo") && Contains("type_order") && Contains("window") &&
                          Contains("alpha") && Contains("backfill"));
    CHECK_THROWS_AS(resolve_params("policy demo", specs, {{"type_order", "slowest"}}), InputError);
    CHECK_THROWS_WITH(resolve_params("policy demo", specs, {{"type_order", "slowest"}}),
                      Contains("slowest") && Contains("fastest, spec") && Contains("type_order"));
    CHECK_THROWS_AS(resolve_params("d", specs, {{"window", "7x"}}), InputError);
    CHECK_THROWS_AS(resolve_params("d", specs, {{"window", ""}}), InputError);
    CHECK_THROWS_AS(resolve_params("d", specs, {{"window", "1.5"}}), InputError);
    CHECK_THROWS_AS(resolve_params("d", specs, {{"alpha", "inf"}}), InputError);
    CHECK_THROWS_AS(resolve_params("d", specs, {{"alpha", "x"}}), InputError);
    CHECK_THROWS_AS(resolve_params("d", specs, {{"backfill", "yes"}}), InputError);
    CHECK_THROWS_WITH(resolve_params("d", {}, {{"x", "1"}}), Contains("none"));
}

TEST_CASE("registry: built-in entries by name, unknown names list the valid ones", "[unit]") {
    const auto& fifo = builtin_policies().find("fifo");
    const Params p = resolve_params("fifo", fifo.params, {});
    CHECK(p.get("type_order") == "fastest");
    CHECK(fifo.make(p) != nullptr);
    CHECK_THROWS_AS(builtin_policies().find("fifoo"), InputError);
    CHECK_THROWS_WITH(builtin_policies().find("fifoo"), Contains("fifoo") && Contains("fifo, srtf"));
    CHECK_THROWS_WITH(builtin_placers().find("randomly"),
                      Contains("randomly") && Contains("consolidated, spread, random, strict-locality"));
}

}  // namespace dlsim::test::registry_tests
