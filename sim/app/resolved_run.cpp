#include "sim/app/resolved_run.hpp"

namespace dlsim {

ResolvedRun resolve(const RunConfig& c) {
    check_run_config(c);
    ResolvedRun r;
    r.given = c;
    r.network = effective_network(c);
    r.stop_after_measured = effective_stop_after_measured(c);
    r.rate_mode = effective_rate_mode(c);
    r.policy = find_policy(c.policy, c.params, c.params_dir);
    r.placer = &builtin_placers().find(c.placement);
    const std::vector<ParamSpec>& specs = r.policy.entry->params;
    r.policy_params = resolve_params("policy " + c.policy, specs, compat_params(c, specs), c.params_dir);
    r.placer_params = resolve_params("placement " + c.placement, r.placer->params, {});
    return r;
}

}  // namespace dlsim
