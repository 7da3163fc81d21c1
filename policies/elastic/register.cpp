// The elastic policies register here: policies that change running jobs' GPU counts (policies/elastic/README.md).
#include "policies/elastic/register.hpp"

#include "policies/elastic/afs.hpp"
#include "policies/elastic/optimus.hpp"

namespace dlsim {

namespace {

ParamSpec interval_param() {
    return {"interval", ParamType::Double,
            "60",       "seconds between scheduling rounds (Pollux's and Sia's simulators: 60)",
            {},         ParamRange{.lo = 1e-6, .hi = 1e9, .noun = "seconds"}};
}

}  // namespace

void register_elastic_policies(PolicyRegistry& r) {
    r.add(
        {"optimus",
         "Pollux's Optimus+Oracle: every interval one GPU per job, then each next GPU to the largest cut in remaining "
         "time at the job's trace batch size; needs goodput data (others run as rigid gangs, first come first "
         "served)",
         {interval_param()},
         [](const Params& p) { return std::make_unique<OptimusPolicy>(to_time(p.get_double("interval"))); }});
    r.add({"afs",
           "Apathetic Future Share (NSDI'21): GPUs one at a time by a pairwise tournament on remaining-time speed-ups, "
           "at arrivals, completions and every interval; rigid jobs take whole gangs",
           {{"variant",
             ParamType::Choice,
             "concept",
             "concept: every GPU by the tournament (alg_c_concept); one-each: first one GPU (a rigid job its gang) to "
             "every job by shortest remaining time, then the tournament (alg_c)",
             {"concept", "one-each"}},
            {"eps",
             ParamType::Double,
             "1e-7",
             "seconds added to every remaining time (the AFS simulator's epsilon)",
             {},
             ParamRange{.lo = 0, .hi = 1e9, .noun = "seconds"}},
            interval_param()},
           [](const Params& p) {
               return std::make_unique<AfsPolicy>(
                   p.get("variant") == "one-each" ? AfsVariant::OneEach : AfsVariant::Concept, p.get_double("eps"),
                   to_time(p.get_double("interval")));
           }});
}

}  // namespace dlsim
