// The built-in policies and placers: each family registers its own entries (explicitly: static
// self-registration is silently dropped from static libraries).
#include "policies/elastic/register.hpp"
#include "policies/placement/register.hpp"
#include "policies/queue/register.hpp"
#include "policies/registry.hpp"
#include "policies/rounds/register.hpp"

namespace dlsim {

void register_builtin_policies(PolicyRegistry& r) {
    register_queue_policies(r);
    register_round_policies(r);
    register_elastic_policies(r);
}

void register_builtin_placers(PlacerRegistry& r) { register_placers(r); }

}  // namespace dlsim
