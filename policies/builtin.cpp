// The built-in policies and placers, registered explicitly.
#include "models/base/input_error.hpp"
#include "policies/consolidated_placer.hpp"
#include "policies/fifo.hpp"
#include "policies/las.hpp"
#include "policies/random_placer.hpp"
#include "policies/registry.hpp"
#include "policies/sjf.hpp"
#include "policies/spread_placer.hpp"
#include "policies/srtf.hpp"
#include "policies/strict_locality_placer.hpp"
#include "policies/tiresias.hpp"
#include "policies/tiresias_gittins.hpp"
#include "policies/topology_aware_placer.hpp"

#include <fmt/format.h>

namespace dlsim {

namespace {

ParamSpec type_order_param() {
    return {"type_order", ParamType::Choice, "fastest",
            "which GPU type a job gets: the fastest for its model that has room, or the first in cluster order",
            {"fastest", "spec"}};
}

/// `srtf` and `srsf`: one walk, the key weighted by GPUs or not.
RegistryEntry<Policy> srtf_entry(std::string name, std::string description, bool gpu_weighted) {
    return {std::move(name),
            std::move(description),
            {type_order_param(),
             {"migrate", ParamType::Bool, "true",
              "re-place running jobs at every call: move to a faster type that freed up, or to another type instead "
              "of a preemption (each move is a restart)",
              {}},
             {"margin", ParamType::Double, "0.001",
              "seconds: a waiting job displaces a running one, or a running job moves to a faster type, only "
              "when that gains more than the restart cost plus this margin (no swapping back and forth)",
              {}}},
            [gpu_weighted](const Params& p) {
                return std::make_unique<SrtfPolicy>(parse_type_order(p.get("type_order")), p.get("migrate") == "true",
                                                    p.get_double("margin"), gpu_weighted);
            }};
}


/// The reference switch of the policies with a fast path (STYLE.md lesson 8).
ParamSpec full_walk_param() {
    return {"full_walk", ParamType::Bool, "false",
            "walk every running job at every call: the slow reference the incremental path is tested against", {}};
}

/// The MLFQ parameters of `tiresias` and its variants, with the given defaults.
std::vector<ParamSpec> tiresias_params(const std::string& thresholds) {
    return {type_order_param(),
            {"thresholds", ParamType::Numbers, thresholds,
             "service at which a job leaves queue k, ascending (GPU-seconds, or seconds with service=wall); K = "
             "count + 1 queues",
             {}},
            {"service", ParamType::Choice, "gpu", "attained service in GPU-seconds (2D) or seconds held (1D)",
             {"gpu", "wall"}},
            {"knob", ParamType::Double, "0",
             "starvation promotion: back to Q0 once waiting >= knob x time run since the last promotion (0: off)",
             {}}};
}

/// Checked thresholds and knob of a tiresias variant named `name`.
std::pair<std::vector<double>, double> tiresias_queues(const std::string& name, const Params& p) {
    const std::vector<double> th = p.get_numbers("thresholds");
    for (std::size_t i = 0; i < th.size(); ++i)
        if (!(th[i] > 0) || (i > 0 && !(th[i] > th[i - 1])))
            throw InputError("policy " + name + ": parameter thresholds: expected positive numbers in ascending order, "
                             "got '" + p.get("thresholds") + "'");
    const double knob = p.get_double("knob");
    if (!(knob >= 0 && knob <= 1e9))
        throw InputError(fmt::format("policy {}: parameter knob: expected a number in [0, 1e9], got {}", name, knob));
    return {th, knob};
}

/// `tiresias` and its preset `tiresias-sim` (the shipped simulator's queues and late demotion timer).
RegistryEntry<Policy> tiresias_entry(std::string name, std::string description, const std::string& thresholds,
                                     const std::string& timer) {
    std::vector<ParamSpec> params = tiresias_params(thresholds);
    params.push_back({"timer", ParamType::Choice, timer,
                      "when a demotion is due: at the exact crossing, or at Tiresias's simulator's timer ((threshold - "
                      "wall seconds run)/GPUs, late for gangs; the demotion waits for it or the next arrival or "
                      "completion)",
                      {"exact", "tiresias-sim"}});
    params.push_back(full_walk_param());
    return {name, std::move(description), std::move(params), [name](const Params& p) {
                const auto [th, knob] = tiresias_queues(name, p);
                return std::make_unique<TiresiasPolicy>(
                    parse_type_order(p.get("type_order")), th, p.get("service") == "gpu", knob,
                    p.get("timer") == "exact" ? TiresiasPolicy::DemotionTimer::Exact
                                              : TiresiasPolicy::DemotionTimer::TiresiasSim,
                    p.get_bool("full_walk"));
            }};
}

RegistryEntry<Policy> tiresias_gittins_entry() {
    std::vector<ParamSpec> params = tiresias_params("3600");
    params.push_back({"delta", ParamType::Double, "0",
                      "the index's service horizon: 0 = what the job has left before its queue's threshold (the rest "
                      "of the job in the last queue); > 0 a fixed horizon in the service unit",
                      {}});
    params.push_back({"gittins_compat", ParamType::Bool, "false",
                      "Tiresias's simulator's index: E sums the raw service of the jobs that finish within the "
                      "horizon, and the horizon is 3250 unless delta is set",
                      {}});
    params.push_back({"margin", ParamType::Double, "0.001",
                      "seconds: a running job is ranked by the better of its index now and its index this much (plus "
                      "the restart cost) earlier, times its GPUs with gpu service: no swapping for a negligible gain",
                      {}});
    params.push_back(full_walk_param());
    return {"tiresias-gittins",
            "Tiresias's MLFQ with jobs ordered within a queue by the Gittins index of their attained service, over "
            "the distribution of finished jobs (uniform prior until 100 finish); SKIP walk",
            std::move(params), [](const Params& p) {
                const auto [th, knob] = tiresias_queues("tiresias-gittins", p);
                const double delta = p.get_double("delta"), margin = p.get_double("margin");
                if (!(delta >= 0 && delta <= 1e12))
                    throw InputError(fmt::format("policy tiresias-gittins: parameter delta: expected 0 or a service in "
                                                 "(0, 1e12], got {}", delta));
                if (!(margin >= 0 && margin <= 1e9))
                    throw InputError(fmt::format("policy tiresias-gittins: parameter margin: expected seconds in [0, "
                                                 "1e9], got {}", margin));
                return std::make_unique<TiresiasGittinsPolicy>(parse_type_order(p.get("type_order")), th,
                                                               p.get("service") == "gpu", knob, delta,
                                                               p.get_bool("gittins_compat"), margin,
                                                               p.get_bool("full_walk"));
            }};
}

/// `las` and its preset `blox-las` (wall-time service, 300 s rounds).
RegistryEntry<Policy> las_entry(std::string name, std::string description, const std::string& service) {
    return {name,
            std::move(description),
            {type_order_param(),
             {"service", ParamType::Choice, service, "attained service counted in GPU-seconds (gpu) or seconds held (wall)",
              {"gpu", "wall"}},
             {"quantum", ParamType::Double, "300", "seconds between re-rankings while jobs wait (Blox, Synergy: 300)", {}},
             {"margin", ParamType::Double, "0.001",
              "seconds: a waiting job displaces a running one only when its service is lower by more than the "
              "restart cost plus this margin (times the running job's GPUs for gpu service)",
              {}},
             full_walk_param()},
            [name](const Params& p) {
                const double quantum = p.get_double("quantum"), margin = p.get_double("margin");
                if (!(quantum >= 1e-6 && quantum <= 1e9))
                    throw InputError(fmt::format("policy {}: parameter quantum: expected seconds in [1e-6, 1e9], got {}",
                                                 name, quantum));
                if (!(margin >= 0 && margin <= 1e9))
                    throw InputError(fmt::format("policy {}: parameter margin: expected seconds in [0, 1e9], got {}", name,
                                                 margin));
                return std::make_unique<LasPolicy>(parse_type_order(p.get("type_order")), p.get("service") == "gpu",
                                                   quantum, margin, p.get_bool("full_walk"));
            }};
}

}  // namespace

void register_builtin_policies(PolicyRegistry& r) {
    r.add({"fifo", "strict first-come-first-served: nothing overtakes the head of the queue; no preemption",
           {type_order_param(),
            {"backfill", ParamType::Choice, "none",
             "easy: later jobs may start if they do not delay the head's reservation (EASY, per type pool)",
             {"none", "easy"}},
            {"estimate_factor", ParamType::Double, "1",
             "EASY's runtime estimates: the true run time × this (>= 1; 1 = oracle)", {}}},
           [](const Params& p) {
               const double factor = p.get_double("estimate_factor");
               if (!(factor >= 1 && factor <= 1e6))
                   throw InputError(fmt::format("policy fifo: parameter estimate_factor: expected a number in [1, 1e6], got {}", factor));
               return std::make_unique<FifoPolicy>(parse_type_order(p.get("type_order")), p.get("backfill") == "easy",
                                                   factor);
           }});
    r.add(srtf_entry("srtf", "preemptive shortest remaining time first (oracle on remaining work), greedy fill", false));
    r.add(srtf_entry("srsf",
                     "preemptive shortest remaining service first: srtf on remaining time x GPUs (Tiresias shortest-gpu)",
                     true));
    r.add(las_entry("las", "preemptive least attained service (GPU-seconds by default), re-ranked every quantum; SKIP walk",
                    "gpu"));
    r.add(las_entry("blox-las", "preset: las as Blox runs it: service counted in wall seconds held, 300 s rounds",
                    "wall"));
    r.add(tiresias_entry("tiresias",
                         "discretised 2D-LAS (Tiresias): queues by attained GPU service, FIFO by entry within a queue, "
                         "optional starvation promotion; SKIP walk",
                         "3600", "exact"));
    r.add(tiresias_entry("tiresias-sim",
                         "preset: tiresias as its shipped simulator (dlas-gpu): K=3 at 3250 and 7200 GPU-s, knob 0, "
                         "late demotion timer",
                         "3250,7200", "tiresias-sim"));
    r.add(tiresias_gittins_entry());
    r.add({"sjf", "non-preemptive shortest job first on an oracle estimate (Helios); strict walk by default",
           {type_order_param(),
            {"key", ParamType::Choice, "duration",
             "what 'shortest' means: run time on the reference type, that × GPUs, or the number of GPUs",
             {"duration", "gpu_time", "gpus"}},
            {"strict", ParamType::Bool, "true",
             "stop at the first queued job that does not fit (head-of-line blocking); false: skip it", {}}},
           [](const Params& p) {
               return std::make_unique<SjfPolicy>(parse_type_order(p.get("type_order")), parse_sjf_key(p.get("key")),
                                                  p.get_bool("strict"));
           }});
}

void register_builtin_placers(PlacerRegistry& r) {
    r.add({"consolidated", "fewest nodes (best fit), then fewest racks; ties to the lowest node id", {},
           [](const Params&) { return std::make_unique<ConsolidatedPlacer>(); }});
    r.add({"spread",
           "as many nodes and racks as possible: one GPU per node, round-robin over racks, ids in order; then "
           "again",
           {},
           [](const Params&) { return std::make_unique<SpreadPlacer>(); }});
    r.add({"random", "a uniformly random set of free GPUs of the type, from the run seed's 'placement' stream", {},
           [](const Params&, const MakeContext& context) { return std::make_unique<RandomPlacer>(context.seed); }});
    r.add({"strict-locality",
           "Philly YARN-CS: one node (best fit) if the job fits one, else ceil(n/node size) entirely free nodes in "
           "one rack (best-fit rack); otherwise the job waits",
           {},
           [](const Params&) { return std::make_unique<StrictLocalityPlacer>(); }});
    r.add({"topology-aware",
           "of consolidated and each rack's and pod's fewest-nodes fill, the placement where the job's predicted "
           "rate (network model, current link loads) is highest; ties to consolidated",
           {},
           [](const Params&) { return std::make_unique<TopologyAwarePlacer>(); }});
}

}  // namespace dlsim
