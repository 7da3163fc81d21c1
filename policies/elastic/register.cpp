// The elastic policies register here: policies that change running jobs' GPU counts, and the baselines the
// elastic papers compare against as their artifacts run them (policies/elastic/README.md).
#include "policies/elastic/register.hpp"

#include "policies/elastic/afs.hpp"
#include "policies/elastic/elastic_queue.hpp"
#include "policies/elastic/gavel_tj.hpp"
#include "policies/elastic/interval_tiresias.hpp"
#include "policies/elastic/optimus.hpp"
#include "policies/elastic/pollux.hpp"
#include "policies/elastic/sia.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

namespace dlsim {

namespace {

ParamSpec interval_param() {
    return {"interval",
            ParamType::Double,
            "60",
            "seconds between scheduling rounds; decisions only at its multiples (Pollux's and Sia's simulators: 60)",
            {},
            ParamRange{.lo = 1e-6, .hi = 1e9, .noun = "seconds"}};
}

RegistryEntry<Policy> pollux_entry(std::string name, std::string description) {
    return {std::move(name),
            std::move(description),
            {interval_param(),
             {"p",
              ParamType::Double,
              "-1",
              "power-mean exponent of the speedups (< 0 fairer; 0 geometric mean)",
              {},
              ParamRange{.lo = -10, .hi = 10, .noun = "a number"}},
             {"restart_delay",
              ParamType::Double,
              "30",
              "seconds: the restart penalty's delay, factor max(age - restarts x delay, 0) / (age + delay)",
              {},
              ParamRange{.lo = 0, .hi = 1e6, .noun = "seconds"}},
             {"max_nodes",
              ParamType::Int,
              "16",
              "nodes one job may span",
              {},
              ParamRange{.lo = 1, .hi = 250, .noun = "an integer"}},
             {"max_gpus",
              ParamType::Int,
              "64",
              "GPUs one job may hold",
              {},
              ParamRange{.lo = 1, .hi = 1e7, .noun = "an integer"}},
             {"types",
              ParamType::Choice,
              "pool",
              "pool: the type with the most GPUs only (Pollux's artifact); unaware: every type, cut into units of "
              "the smallest node's GPUs, with type-blind beliefs, each job on one type (Sia's artifact's Pollux)",
              {"pool", "unaware"}}},
            [](const Params& p) {
                PolluxPolicy::Options o;
                o.interval = p.get_double("interval");
                o.p = p.get_double("p");
                o.restart_delay = p.get_double("restart_delay");
                o.max_nodes = static_cast<int>(p.get_int("max_nodes"));
                o.max_gpus = static_cast<int>(p.get_int("max_gpus"));
                o.type_unaware = p.get("types") == "unaware";
                return std::make_unique<PolluxPolicy>(o);
            }};
}

RegistryEntry<Policy> pollux_tiresias_entry() {
    return {"pollux-tiresias",
            "Tiresias as Pollux's artifact runs it: 2 queues at 57,600 GPU-s, rigid gangs, skip-ahead walk, "
            "decisions every interval",
            {interval_param(),
             {"threshold",
              ParamType::Double,
              "57600",
              "GPU-seconds of attained service at which a job leaves Q0",
              {},
              ParamRange{.lo = 0, .hi = 1e12, .noun = "GPU-seconds"}}},
            [](const Params& p) {
                return std::make_unique<IntervalTiresiasPolicy>(p.get_double("interval"), p.get_double("threshold"));
            }};
}

RegistryEntry<Policy> sia_entry() {
    return {"sia",
            "Sia (SOSP'23): every interval, one configuration (GPU type, nodes, GPUs) per job by an integer program "
            "over goodputs normalised per job (p = -0.5, lambda_n = 1.1, GLPK's MIP solver); jobs still restarting "
            "keep theirs",
            {interval_param(),
             {"p",
              ParamType::Double,
              "-0.5",
              "exponent of the normalised goodputs (< 0: minimise the sum of G^p; > 0: maximise it)",
              {},
              ParamRange{.lo = -10, .hi = 10, .noun = "a non-zero number"}},
             {"lambda_n",
              ParamType::Double,
              "1.1",
              "the objective's charge per job left without GPUs (must exceed 1, a job's smallest useful G^p)",
              {},
              ParamRange{.lo = -1e6, .hi = 1e6, .noun = "a number"}},
             {"clip",
              ParamType::Double,
              "3000",
              "largest entry of round(G^p, 2)",
              {},
              ParamRange{.lo = 1, .hi = 1e12, .noun = "a number"}},
             {"max_gpus",
              ParamType::Int,
              "64",
              "GPUs one configuration may hold",
              {},
              ParamRange{.lo = 1, .hi = 1e7, .noun = "an integer"}},
             {"preserve_ckpt_allocs",
              ParamType::Bool,
              "true",
              "a job still paying its restart keeps its configuration (Sia's simulator_config.py)",
              {}}},
            [](const Params& p, const MakeContext& ctx) {
                SiaPolicy::Options o;
                o.interval = p.get_double("interval");
                o.p = p.get_double("p");
                o.lambda_n = p.get_double("lambda_n");
                o.clip = p.get_double("clip");
                o.max_gpus = static_cast<int>(p.get_int("max_gpus"));
                o.preserve_ckpt_allocs = p.get_bool("preserve_ckpt_allocs");
                if (o.p == 0) throw InputError("sia: parameter p: expected a non-zero number, got 0");
                if (o.p < 0 ? o.lambda_n <= 1 : o.lambda_n >= 0)
                    throw InputError(
                        fmt::format("sia: parameter lambda_n: expected a number {} with p = {} (an unallocated job "
                                    "must score worse than "
                                    "its smallest useful configuration), got {}",
                                    o.p < 0 ? "above 1" : "below 0", o.p, o.lambda_n));
                if (ctx.profiles != nullptr)
                    for (const ModelProfile& m : ctx.profiles->models)
                        o.restart_penalty.push_back(SiaPolicy::sia_restart_penalty(m.name));
                return std::make_unique<SiaPolicy>(std::move(o));
            }};
}

RegistryEntry<Policy> gavel_tj_entry() {
    return {"gavel-tj",
            "Gavel+TJ as Sia's artifact runs it: rigid jobs at their workload's GPU count and batch size; every "
            "interval, Gavel's max-sum-throughput shares over their predicted steps/s, realised by time-share "
            "priorities",
            {{"interval",
              ParamType::Double,
              "360",
              "seconds between rounds; decisions only at its multiples (Sia's run_experiment.sh: 360)",
              {},
              ParamRange{.lo = 1e-6, .hi = 1e9, .noun = "seconds"}},
             {"calibrate",
              ParamType::Bool,
              "true",
              "weigh each job's throughput by 1 / its calibration slowdown (run config slowdowns; sia-artifact.json "
              "sets Sia's), as the artifact's LP does",
              {}}},
            [](const Params& p, const MakeContext&) {
                GavelTjPolicy::Options o;
                o.interval = p.get_double("interval");
                o.calibrate = p.get_bool("calibrate");
                return std::make_unique<GavelTjPolicy>(std::move(o));
            }};
}

}  // namespace

void register_elastic_policies(PolicyRegistry& r) {
    r.add(pollux_entry("pollux",
                       "Pollux (OSDI'21): every interval, the allocation maximising the p = -1 power mean of goodput "
                       "speedups with a restart penalty; batch sizes adapted by the elastic model"));
    r.add(pollux_tiresias_entry());
    r.add(sia_entry());
    r.add(gavel_tj_entry());
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
    // Elastic tiresias and las: the queue policies' own entries (registered before these) with an interval.
    for (const auto& [name, base] : {std::pair{"tiresias-elastic", "tiresias"}, std::pair{"las-elastic", "las"}}) {
        const RegistryEntry<Policy>& queue = r.find(base);
        std::vector<ParamSpec> params = queue.params;
        params.push_back(interval_param());
        Factory<Policy> make = queue.make;
        r.add({name,
               std::string(base) +
                   " whose running elastic jobs also take the GPUs no waiting job can use: one at a time to the "
                   "largest goodput gain, every interval; back to their gangs before a start needs them",
               std::move(params), [make](const Params& p, const MakeContext& context) {
                   return std::make_unique<ElasticQueuePolicy>(make(p, context), p.get_double("interval"));
               }});
    }
}

}  // namespace dlsim
