// The built-in policies and placers, registered explicitly.
#include "models/base/input_error.hpp"
#include "policies/consolidated_placer.hpp"
#include "policies/drf.hpp"
#include "policies/fifo.hpp"
#include "policies/fifo_allocation.hpp"
#include "policies/isolated_allocation.hpp"
#include "policies/las.hpp"
#include "policies/lp/packed_allocation.hpp"
#include "policies/packed_rounds.hpp"
#include "policies/qssf.hpp"
#include "policies/random_placer.hpp"
#include "policies/registry.hpp"
#include "policies/round_scheduler.hpp"
#include "policies/sjf.hpp"
#include "policies/spread_placer.hpp"
#include "policies/srtf.hpp"
#include "policies/strict_locality_placer.hpp"
#include "policies/themis.hpp"
#include "policies/tiresias.hpp"
#include "policies/tiresias_gittins.hpp"
#include "policies/topology_aware_placer.hpp"
#include "policies/vc_quota.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <optional>

namespace dlsim {

namespace {

ParamSpec type_order_param() {
    return {"type_order", ParamType::Choice, "fastest",
            "which GPU type a job gets: the fastest for its model that has room, or the first in cluster order",
            {"fastest", "spec"}};
}

/// Parameter `name` of `owner` ("policy las") as a number in [lo, hi]; else an InputError that names them
/// and what was `expected` ("seconds in [0, 1e9]").
double number_in(const Params& p, const std::string& owner, const char* name, double lo, double hi,
                 const char* expected) {
    const double v = p.get_double(name);
    if (!(v >= lo && v <= hi))
        throw InputError(fmt::format("{}: parameter {}: expected {}, got {}", owner, name, expected, v));
    return v;
}

/// The hysteresis every preemptive policy has (DESIGN.md "Rules of the model"): seconds, 1 ms by default;
/// `description` says what it gates in that policy.
ParamSpec margin_param(std::string description) {
    return {"margin", ParamType::Double, "0.001", std::move(description), {}};
}

/// A margin parameter's value, checked.
double margin_of(const Params& p, const std::string& owner) {
    return number_in(p, owner, "margin", 0, 1e9, "seconds in [0, 1e9]");
}

/// Param specs with some defaults replaced: a peer preset is its policy with a named parameter set, and
/// the run's echo of the resolved parameters shows exactly what it means.
std::vector<ParamSpec> with_defaults(std::vector<ParamSpec> specs, const std::map<std::string, std::string>& defaults) {
    for (ParamSpec& s : specs)
        if (auto it = defaults.find(s.name); it != defaults.end()) s.default_value = it->second;
    return specs;
}

/// `srtf`, `srsf` and their presets: one walk, the key weighted by GPUs or not.
RegistryEntry<Policy> srtf_entry(std::string name, std::string description, bool gpu_weighted,
                                 const std::map<std::string, std::string>& defaults = {}) {
    return {name,
            std::move(description),
            with_defaults({type_order_param(),
             {"migrate", ParamType::Bool, "true",
              "a displaced job moves to free GPUs of another type instead of waiting, and running jobs move up to "
              "a faster type (see move_up); each move is a restart",
              {}},
             margin_param("seconds: a waiting job displaces a running one, or a running job moves to a faster type, "
                          "only when that gains more than the restart cost plus this margin (no swapping back and "
                          "forth)"),
             {"tick", ParamType::Double, "0",
              "seconds: decide only at multiples of this (Helios's simulator loop: 1); 0 = at every change", {}},
             {"move_up", ParamType::Choice, "idle",
              "with migrate: running jobs move to a faster type only into GPUs no waiting job takes (idle), or "
              "also before the waiting jobs when ranked ahead of all of them (ahead: more moves, lower JCT "
              "under heavy load)",
              {"idle", "ahead"}}},
                          defaults),
            [gpu_weighted, name](const Params& p) {
                const double tick = number_in(p, "policy " + name, "tick", 0, 1e9, "seconds in [0, 1e9]");
                return std::make_unique<SrtfPolicy>(parse_type_order(p.get("type_order")), p.get("migrate") == "true",
                                                    margin_of(p, "policy " + name), gpu_weighted, to_time(tick),
                                                    p.get("move_up") == "ahead");
            }};
}

/// `sjf` and its presets.
RegistryEntry<Policy> sjf_entry(std::string name, std::string description,
                                const std::map<std::string, std::string>& defaults) {
    std::vector<ParamSpec> specs{
        type_order_param(),
        {"key", ParamType::Choice, "duration",
         "what 'shortest' means: run time on the reference type, that × GPUs, or the number of GPUs",
         {"duration", "gpu_time", "gpus"}},
        {"strict", ParamType::Bool, "true",
         "stop at the first queued job that does not fit (head-of-line blocking); false: skip it", {}},
        {"preemptive", ParamType::Bool, "false",
         "re-walk all jobs, running ones included, at every call and preempt those left without room (Tiresias; "
         "needs strict=false)",
         {}},
        margin_param("seconds (preemptive, time keys): a waiting job displaces a running one only when its key is "
                     "smaller by more than the restart cost plus this (x GPUs for gpu_time); key=gpus: strictly "
                     "fewer GPUs")};
    return {name, std::move(description), with_defaults(std::move(specs), defaults), [name](const Params& p) {
                const bool preemptive = p.get_bool("preemptive");
                if (preemptive && p.get_bool("strict"))
                    throw InputError("policy " + name +
                                     ": parameter strict: a preemptive walk passes over jobs that do not fit "
                                     "(Tiresias); set strict=false");
                const double margin = margin_of(p, "policy " + name);
                return std::make_unique<SjfPolicy>(parse_type_order(p.get("type_order")), parse_sjf_key(p.get("key")),
                                                   p.get_bool("strict"), preemptive, margin);
            }};
}

/// `qssf` and its preset.
RegistryEntry<Policy> qssf_entry(std::string name, std::string description,
                                 const std::map<std::string, std::string>& defaults) {
    std::vector<ParamSpec> specs{
        type_order_param(),
        {"estimator", ParamType::Choice, "history",
         "predicted GPU time: mean duration of finished jobs with the same history_key x GPUs; the oracle; or the "
         "oracle x (1 + u) with Helios's seeded noise (may be negative)",
         {"history", "oracle", "helios-noise"}},
        {"history_key", ParamType::Choice, "user+model+gpus",
         "history buckets: (user, model, GPUs), falling back to (model, GPUs), model, GPUs, all jobs; or "
         "(model, GPUs) with its fallbacks; or GPUs alone (a trace without users or models keys on what it has)",
         {"user+model+gpus", "model+gpus", "gpus"}},
        {"prior", ParamType::Double, "3600",
         "seconds assumed per GPU before any job has finished (history), so the first jobs rank by GPU count",
         {}},
        {"strict", ParamType::Bool, "true",
         "stop at the first queued job that does not fit (Helios); false: skip it", {}},
        {"lazy_priority", ParamType::Bool, "false",
         "Helios's quirk: when only this instant's arrivals wait, start them by GPU count before giving them "
         "a priority",
         {}}};
    return {name, std::move(description), with_defaults(std::move(specs), defaults),
            [name](const Params& p, const MakeContext& context) {
                const double prior = number_in(p, "policy " + name, "prior", 0, 1e9, "seconds in [0, 1e9]");
                return std::make_unique<QssfPolicy>(
                    parse_type_order(p.get("type_order")), parse_qssf_estimator(p.get("estimator")),
                    parse_qssf_history_key(p.get("history_key")), prior, p.get_bool("strict"),
                    p.get_bool("lazy_priority"), context.seed);
            }};
}


/// drf's `weights` ("name:weight,..."), by the dense ids of the trace's VCs or users; missing names weigh 1.
std::vector<double> parse_drf_weights(const std::string& text, const std::vector<std::string>& names,
                                      const char* what) {
    std::vector<double> weights(names.size(), 1.0);
    if (text.empty()) return weights;
    for (std::size_t start = 0; start <= text.size();) {
        const std::size_t cut = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, cut - start);
        const std::size_t colon = item.rfind(':');
        const std::string name = colon == std::string::npos ? item : item.substr(0, colon);
        double w = 0;
        const char* b = item.data() + (colon == std::string::npos ? item.size() : colon + 1);
        const char* e = item.data() + item.size();
        const auto [p, ec] = std::from_chars(b, e, w);
        if (colon == std::string::npos || b == e || ec != std::errc() || p != e || !(w > 0 && w <= 1e9))
            throw InputError(fmt::format("policy drf: parameter weights: expected name:weight pairs with weights in "
                                         "(0, 1e9], comma-separated (e.g. 'vcA:2,vcB:1'), got '{}'", item));
        const auto it = std::find(names.begin() + 1, names.end(), name);
        if (it == names.end())
            throw InputError(fmt::format("policy drf: parameter weights: no {} '{}' in the trace", what, name));
        weights[static_cast<std::size_t>(it - names.begin())] = w;
        start = cut + 1;
    }
    return weights;
}

RegistryEntry<Policy> vc_quota_entry(std::string name, std::string description, bool fixed_hard) {
    std::vector<ParamSpec> params{
        type_order_param(),
        {"quotas", ParamType::File, "",
         "JSON file of quotas by VC: GPUs in total or by GPU type ({\"vcA\": 16, \"vcB\": {\"V100\": 8}}); VCs left "
         "out get 0. Default: each VC's share of the trace's GPU-hours x the cluster's GPUs (largest remainder)",
         {}}};
    if (!fixed_hard) {
        params.push_back({"mode", ParamType::Choice, "hard",
                          "hard: a VC never uses more than its quota (Helios); borrow: jobs beyond it run on idle GPUs "
                          "and are preempted when a VC with room needs them back (HiveD)",
                          {"hard", "borrow"}});
        params.push_back({"reclaim", ParamType::Choice, "youngest",
                          "borrow: which lent jobs are preempted first: the most recently started", {"youngest"}});
    }
    return {std::move(name), std::move(description), std::move(params),
            [fixed_hard](const Params& p, const MakeContext& context) {
                if (context.cluster == nullptr) throw InternalError("policy vc-quota: made without the run's cluster");
                static const Tenants kNone;
                const Tenants& tenants = context.tenants ? *context.tenants : kNone;
                const bool hard = fixed_hard || p.get("mode") == "hard";
                return std::make_unique<VcQuotaPolicy>(parse_type_order(p.get("type_order")), !hard,
                                                       resolve_vc_quotas(p.get("quotas"), *context.cluster, tenants, hard),
                                                       tenants.vc_names);
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
    const double knob = number_in(p, "policy " + name, "knob", 0, 1e9, "a number in [0, 1e9]");
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
    params.push_back(margin_param("seconds: a running job is ranked by the better of its index now and its index this "
                                  "much (plus the restart cost) earlier, times its GPUs with gpu service: no swapping "
                                  "for a negligible gain"));
    params.push_back(full_walk_param());
    return {"tiresias-gittins",
            "Tiresias's MLFQ with jobs ordered within a queue by the Gittins index of their attained service, over "
            "the distribution of finished jobs (uniform prior until 100 finish); SKIP walk",
            std::move(params), [](const Params& p) {
                const auto [th, knob] = tiresias_queues("tiresias-gittins", p);
                const double delta = number_in(p, "policy tiresias-gittins", "delta", 0, 1e12,
                                               "0 or a service in (0, 1e12]");
                const double margin = margin_of(p, "policy tiresias-gittins");
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
             margin_param("seconds: a waiting job displaces a running one only when its service is lower by more "
                          "than the restart cost plus this margin (times the running job's GPUs for gpu service)"),
             full_walk_param()},
            [name](const Params& p) {
                const double quantum = number_in(p, "policy " + name, "quantum", 1e-6, 1e9, "seconds in [1e-6, 1e9]");
                const double margin = margin_of(p, "policy " + name);
                return std::make_unique<LasPolicy>(parse_type_order(p.get("type_order")), p.get("service") == "gpu",
                                                   quantum, margin, p.get_bool("full_walk"));
            }};
}

/// The round mechanism's parameters (policies/round_scheduler.hpp), shared by the Gavel family.
std::vector<ParamSpec> round_params() {
    return {{"round", ParamType::Double, "360",
             "seconds per round: full reassignment every round (default), Gavel's round length (compat)", {}},
            {"gavel_compat", ParamType::Bool, "false",
             "Gavel's simulator's rounds: a round ends with its longest micro-task, arrivals and freed GPUs wait for "
             "it, X is recomputed only at a round start after reset_interval, leases and strided placement",
             {}},
            {"reset_interval", ParamType::Double, "1920",
             "seconds between resets of the time shares behind the priorities (Gavel's "
             "minimum_time_between_allocation_resets); with gavel_compat also the minimum time between allocation "
             "recomputations",
             {}}};
}

/// The round mechanism's options from round_params() (checked, errors naming `owner`).
RoundOptions round_options(const Params& p, const std::string& owner, bool aware, bool fifo, std::uint64_t seed) {
    RoundOptions o;
    o.round_s = number_in(p, owner, "round", 1e-3, 1e9, "seconds in [0.001, 1e9]");
    o.gavel_compat = p.get_bool("gavel_compat");
    o.reset_interval_s = number_in(p, owner, "reset_interval", 0, 1e9, "seconds in [0, 1e9]");
    o.type_aware = aware;
    o.fifo = fifo;
    o.seed = seed;
    return o;
}

/// A Gavel policy on the round mechanism: its entry name, the allocation source it builds, whether its
/// type order is fixed (heterogeneity-aware) and whether it is FIFO-named (passes over priority 0 in compat).
RegistryEntry<Policy> round_entry(
    std::string name, std::string description, std::vector<ParamSpec> extra, bool aware, bool fifo,
    std::function<std::unique_ptr<AllocationSource>(const Params&, const MakeContext&, bool compat)> source) {
    std::vector<ParamSpec> params = round_params();
    for (ParamSpec& s : extra) params.push_back(std::move(s));
    return {name, std::move(description), std::move(params),
            [name, aware, fifo, source](const Params& p, const MakeContext& context) {
                const RoundOptions o = round_options(p, "policy " + name, aware, fifo, context.seed);
                return std::make_unique<RoundScheduler>(o, source(p, context, o.gavel_compat));
            }};
}

/// A choice between a value for the default mode and one for the Gavel-compatible mode, with "auto" (the
/// default) following the run's mode: tie_break, ftf_denominator, type_pick.
ParamSpec mode_choice_param(std::string name, std::string plain, std::string compat_value, std::string description) {
    return {std::move(name), ParamType::Choice, "auto", std::move(description),
            {"auto", std::move(plain), std::move(compat_value)}};
}

/// True when mode-choice parameter `name` (mode_choice_param) selects `compat_value`: set to it, or "auto" under
/// gavel_compat.
bool picks_compat_value(const Params& p, const std::string& name, const std::string& compat_value, bool compat) {
    const std::string value = p.get(name);
    return value == compat_value || (value == "auto" && compat);
}

/// An LP source with the given objective and view; `tune` sets the objective's own options.
std::function<std::unique_ptr<AllocationSource>(const Params&, const MakeContext&, bool)> lp_source(
    AllocationObjective objective, ThroughputView view,
    std::function<void(AllocationOptions&, const Params&, const MakeContext&, bool compat)> tune = {}) {
    return [objective, view, tune](const Params& p, const MakeContext& context, bool compat) {
        AllocationOptions o;
        o.objective = objective;
        o.view = view;
        if (p.values().count("tie_break")) o.centre = picks_compat_value(p, "tie_break", "centre", compat);
        if (tune) tune(o, p, context, compat);
        return std::make_unique<LpAllocationSource>(o);
    };
}

/// How an LP policy picks among equally optimal allocations.
ParamSpec tie_break_param() {
    return mode_choice_param(
        "tie_break", "vertex", "centre",
        "among equally optimal allocations: vertex (GLPK's simplex vertex after phase 2: a job not pinning the "
        "optimum runs on its best type), centre (the analytic centre of the optimal face, as Gavel's "
        "interior-point solver: such a job's time is spread over types); auto: centre with gavel_compat, else "
        "vertex");
}

/// `reference_type` of an agnostic policy: a type of the run's cluster ("" = its reference type).
std::size_t reference_type_of(const Params& p, const MakeContext& context, const std::string& owner) {
    const std::string name = p.get("reference_type");
    if (context.cluster == nullptr) {
        if (!name.empty()) throw InternalError(owner + ": made without the run's cluster");
        return 0;
    }
    if (name.empty()) return context.cluster->reference_gpu_type;
    const auto t = context.cluster->find_gpu_type(name);
    if (!t) {
        std::string names;
        for (const GpuType& g : context.cluster->gpu_types) names += (names.empty() ? "" : ", ") + g.name;
        throw InputError(fmt::format("{}: parameter reference_type: expected a GPU type of the cluster ({}), got '{}'",
                                     owner, names, name));
    }
    return *t;
}

ParamSpec reference_type_param() {
    return {"reference_type", ParamType::Text, "",
            "the GPU type whose throughput stands for every type (Gavel: v100); empty = the cluster's reference type",
            {}};
}

/// FTF's ρ denominator (AllocationOptions::ftf_elapsed_denominator).
ParamSpec ftf_denominator_param() {
    return mode_choice_param(
        "ftf_denominator", "isolated-time", "elapsed",
        "rho's denominator D_m: isolated-time (I_m + R_m/theta_iso, Gavel's code at HEAD and POLICIES.md 8.2), "
        "elapsed (age_m + R_m/theta_iso, Gavel's earlier code, which Fig. 8's numbers match); auto: elapsed with "
        "gavel_compat, else isolated-time");
}

/// Sets AllocationOptions::ftf_elapsed_denominator from `ftf_denominator`.
void tune_ftf_denominator(AllocationOptions& o, const Params& p, bool compat) {
    o.ftf_elapsed_denominator = picks_compat_value(p, "ftf_denominator", "elapsed", compat);
}

/// How the FIFO allocations pick a type (policies/fifo_allocation.hpp).
ParamSpec fifo_pick_param() {
    return mode_choice_param(
        "type_pick", "intended", "gavel-code",
        "intended: fifo-het the fastest type with room, gavel-fifo a uniform draw (ties in cluster order); "
        "gavel-code: as Gavel's fifo.py runs (types by name; gavel-fifo then puts nearly every job on the last "
        "name, e.g. v100); auto: gavel-code with gavel_compat, else intended");
}

/// Gavel's FIFO allocation, perf (fifo_perf) or agnostic (fifo).
std::function<std::unique_ptr<AllocationSource>(const Params&, const MakeContext&, bool)> fifo_source(bool perf) {
    return [perf](const Params& p, const MakeContext& context, bool compat) {
        const bool code = picks_compat_value(p, "type_pick", "gavel-code", compat);
        std::vector<std::uint32_t> order;
        if (context.cluster != nullptr) {
            for (std::uint32_t t = 0; t < context.cluster->gpu_types.size(); ++t) order.push_back(t);
            if (code)  // Gavel lists its worker types sorted by name
                std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
                    return lower_ascii(context.cluster->gpu_types[a].name) <
                           lower_ascii(context.cluster->gpu_types[b].name);
                });
        }
        return std::make_unique<FifoAllocation>(perf, code ? FifoPick::GavelCode : FifoPick::Intended,
                                                std::move(order), context.seed);
    };
}

/// Gavel's `_packed` form of a round policy (POLICIES.md §16.1): parameter space_sharing (off: the entry as it
/// was) and `extra`; on, the packed round mechanism (policies/packed_rounds.hpp) over `packed`'s allocation.
RegistryEntry<Policy> with_space_sharing(
    RegistryEntry<Policy> entry, std::string rule, std::vector<ParamSpec> extra, bool fifo,
    std::function<std::unique_ptr<PackedAllocationSource>(const Params&, const MakeContext&)> packed) {
    entry.params.push_back({"space_sharing", ParamType::Bool, "false",
                            "Gavel's _packed policy: pairs of single-GPU jobs may share GPUs (Decisions::pack) at "
                            "their measured pair rates (profile `pairs`), formed at round boundaries; " + rule,
                            {}});
    for (ParamSpec& s : extra) entry.params.push_back(std::move(s));
    entry.make = [name = entry.name, plain = entry.make, fifo, packed](const Params& p, const MakeContext& context) {
        if (!p.get_bool("space_sharing")) return plain(p, context);
        const RoundOptions o = round_options(p, "policy " + name, true, fifo, context.seed);
        return std::unique_ptr<Policy>(std::make_unique<PackedRoundScheduler>(o, packed(p, context)));
    };
    return entry;
}

/// The Gavel family (POLICIES.md §8, names per §16.1).
void register_gavel_policies(PolicyRegistry& r) {
    const auto aware = ThroughputView::Aware;
    const auto agnostic = ThroughputView::Agnostic;
    r.add(with_space_sharing(
        round_entry("gavel-las",
                    "Gavel's max_min_fairness_perf (LAS): max-min of throughput normalised by T^prop, GLPK, "
                    "realised in rounds; with space_sharing its max_min_fairness_packed",
                    {tie_break_param()}, true, false, lp_source(AllocationObjective::MaxMinFairness, aware)),
        "X from the max-min LP with pair variables",
        {{"max_partners", ParamType::Int, "16",
          "space_sharing: a pair is an LP column only if it is among the k best partners (normalised pair "
          "throughput sum) of one of its jobs; 0 = every pair whose sum exceeds 1 (Gavel; a cold solve then "
          "takes ~0.7 s at 150 jobs, k = 32 ~0.2 s with z* 0.5 % lower, k = 16 0.1 s and 2.4 % lower)",
          {}}},
        false, [](const Params& p, const MakeContext&) {
            const long long k = p.get_int("max_partners");
            if (k < 0)
                throw InputError(fmt::format("policy gavel-las: parameter max_partners: expected >= 0, got {}", k));
            const bool centre = picks_compat_value(p, "tie_break", "centre", p.get_bool("gavel_compat"));
            return std::unique_ptr<PackedAllocationSource>(
                std::make_unique<PackedMaxMinAllocation>(static_cast<std::size_t>(k), true, centre));
        }));
    r.add(round_entry("gavel-las-agnostic",
                      "Gavel's max_min_fairness: max-min of GPU-time shares (every throughput 1), realised in rounds "
                      "with a shuffled type order",
                      {tie_break_param()}, false, false, lp_source(AllocationObjective::MaxMinFairness, agnostic)));
    r.add(round_entry("gavel-ftf",
                      "Gavel's finish_time_fairness_perf (Themis's rho): min max rho by bisection over GLPK LPs, "
                      "realised in rounds",
                      {ftf_denominator_param(), tie_break_param()}, true, false,
                      lp_source(AllocationObjective::FinishTimeFairness, aware,
                                [](AllocationOptions& o, const Params& p, const MakeContext&, bool compat) {
                                    tune_ftf_denominator(o, p, compat);
                                })));
    r.add(round_entry(
        "gavel-ftf-agnostic",
        "Gavel's finish_time_fairness: the ftf program on the reference type's throughput everywhere, shuffled "
        "type order",
        {reference_type_param(), ftf_denominator_param(), tie_break_param()}, false, false,
        lp_source(AllocationObjective::FinishTimeFairness, agnostic,
                  [](AllocationOptions& o, const Params& p, const MakeContext& context, bool compat) {
                      o.reference_type = reference_type_of(p, context, "policy gavel-ftf-agnostic");
                      tune_ftf_denominator(o, p, compat);
                  })));
    r.add(round_entry("gavel-makespan",
                      "Gavel's min_total_duration_perf: minimum makespan (exact LP; Gavel's bisection with "
                      "makespan_bisection or gavel_compat), realised in rounds",
                      {{"makespan_bisection", ParamType::Bool, "false",
                        "Gavel's bisection on the makespan over [100, 1e6] s with factor 1.05 (up to 5 % above the "
                        "optimum); always on with gavel_compat",
                        {}},
                       tie_break_param()},
                      true, false,
                      lp_source(AllocationObjective::Makespan, aware,
                                [](AllocationOptions& o, const Params& p, const MakeContext&, bool compat) {
                                    o.gavel_makespan_bisection = compat || p.get_bool("makespan_bisection");
                                })));
    r.add(round_entry("gavel-max-throughput",
                      "Gavel's max_sum_throughput_perf: maximum sum of throughputs (raw steps/s as Gavel, or "
                      "normalised), realised in rounds",
                      {{"normalize", ParamType::Choice, "none",
                        "none: raw iterations/s summed across models (Gavel); by_tprop: each job's divided by its "
                        "T^prop",
                        {"none", "by_tprop"}}},
                      true, false,
                      lp_source(AllocationObjective::MaxThroughput, aware,
                                [](AllocationOptions& o, const Params& p, const MakeContext&, bool) {
                                    o.normalize_throughput_sum = p.get("normalize") == "by_tprop";
                                })));
    r.add(round_entry("gavel-isolated",
                      "Gavel's isolated: every job an equal 1/M share of each type (the baseline of Gavel's two-run "
                      "finish-time fairness), realised in rounds with a shuffled type order",
                      {}, false, false, [](const Params&, const MakeContext&, bool) {
                          return std::make_unique<IsolatedAllocation>();
                      }));
    r.add(with_space_sharing(
        round_entry("fifo-het",
                    "Gavel's fifo_perf: arrival order, each job x = 1 on the fastest type with room (strict), "
                    "realised in rounds; with space_sharing its fifo_packed",
                    {fifo_pick_param()}, true, true, fifo_source(true)),
        "waiting jobs, in arrival order, packed with the allocated job whose normalised pair rates sum highest, "
        "above 1.5",
        {}, true, [](const Params& p, const MakeContext& context) {
            // Gavel's FIFOPolicyWithPacking: fifo_perf, then waiting jobs packed when the sum exceeds 1.5.
            return std::unique_ptr<PackedAllocationSource>(std::make_unique<FifoPackedAllocation>(
                fifo_source(true)(p, context, p.get_bool("gavel_compat")), 1.5));
        }));
    r.add(round_entry("gavel-fifo",
                      "Gavel's fifo: arrival order, each job x = 1 on a seeded random type with room (strict), kept "
                      "until it finishes; shuffled type order",
                      {fifo_pick_param()}, false, true, fifo_source(false)));
}

}  // namespace

void register_builtin_policies(PolicyRegistry& r) {
    r.add({"fifo", "strict first-come-first-served: nothing overtakes the head of the queue; no preemption",
           {type_order_param(),
            {"backfill", ParamType::Choice, "none",
             "easy: later jobs may start if they do not delay the head's reservation (EASY, per type pool)",
             {"none", "easy"}},
            {"estimate", ParamType::Choice, "oracle",
             "EASY's runtime estimates: the true run time, or a seeded noisy one per job (Helios's error "
             "distribution: x (1 + u), or / (1 + |u|) for u < 0); either x estimate_factor",
             {"oracle", "noisy"}},
            {"estimate_factor", ParamType::Double, "1",
             "EASY's runtime estimates: the true (or noisy) run time × this (>= 1; 1 with estimate=oracle: the "
             "truth)",
             {}},
            {"space_sharing", ParamType::Bool, "false",
             "pack a blocked single-GPU head onto the running single-GPU job it pairs best with, if their "
             "normalised pair rates (profile `pairs`) sum above 1.5 (Gavel's fifo_packed)",
             {}}},
           [](const Params& p, const MakeContext& context) {
               const double factor = number_in(p, "policy fifo", "estimate_factor", 1, 1e6, "a number in [1, 1e6]");
               std::optional<EstimateNoise> noise;
               if (p.get("estimate") == "noisy") noise.emplace(context.seed);
               return std::make_unique<FifoPolicy>(parse_type_order(p.get("type_order")), p.get("backfill") == "easy",
                                                   factor, noise, p.get_bool("space_sharing"));
           }});
    r.add(srtf_entry("srtf", "preemptive shortest remaining time first (oracle on remaining work), greedy fill", false));
    r.add(srtf_entry("srsf",
                     "preemptive shortest remaining service first: srtf on remaining time x GPUs (Tiresias shortest-gpu)",
                     true));
    r.add(srtf_entry("helios-srtf",
                     "Helios's srtf (SC'21 simulator): decisions every 1 s, no moves between types, GPU types ignored; "
                     "its checkpoint charges (7/30/60 s by gang size) are the run's --restart-model helios",
                     false, {{"tick", "1"}, {"migrate", "false"}, {"type_order", "spec"}}));
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
    // sjf, its peer presets and qssf (POLICIES.md §3, §7, §16.1).
    r.add(sjf_entry("sjf", "shortest job first on an oracle estimate; non-preemptive and strict by default (Helios)",
                    {}));
    r.add(sjf_entry("helios-sjf",
                    "Helios's sjf: non-preemptive, oracle duration, strict walk, GPU types ignored (cluster order)",
                    {{"type_order", "spec"}}));
    r.add(sjf_entry("tiresias-sjf",
                    "Tiresias's smallest-first: fewest GPUs first, preemptive re-walk of all jobs (SKIP), types "
                    "ignored",
                    {{"type_order", "spec"}, {"key", "gpus"}, {"preemptive", "true"}, {"strict", "false"}}));
    r.add(qssf_entry("qssf",
                     "non-preemptive quasi-shortest-service-first (Helios): ranked by predicted GPU time from the "
                     "history of finished jobs; strict walk",
                     {}));
    r.add(qssf_entry("helios-qssf",
                     "Helios's qssf on Philly: seeded noisy oracle (PhillyEstimator), lazy priorities, strict walk, "
                     "GPU types ignored",
                     {{"type_order", "spec"}, {"estimator", "helios-noise"}, {"lazy_priority", "true"}}));
    r.add({"drf",
           "dominant resource fairness over GPUs: progressive filling by lowest weighted share of VCs, users or jobs; "
           "FIFO inside one; SKIP walk",
           {type_order_param(),
            {"per", ParamType::Choice, "vc", "who shares: the trace's VCs, its users, or each job alone",
             {"vc", "user", "job"}},
            {"share", ParamType::Choice, "held",
             "held: GPUs held now (progressive filling); demand: a job's own GPUs, static (Synergy; per=job only)",
             {"held", "demand"}},
            {"weights", ParamType::Text, "",
             "name:weight pairs of VCs or users, comma-separated (e.g. 'vcA:2,vcB:1'); unnamed ones weigh 1", {}},
            {"preempt", ParamType::Bool, "false",
             "evict youngest-first the jobs of principals that stay at or above a waiting lower-share one after the swap", {}},
            margin_param("seconds: preempt=true evicts a job only after its current stint ran its restart cost plus "
                         "this")},
           [](const Params& p, const MakeContext& context) {
               const std::string per = p.get("per");
               const bool demand = p.get("share") == "demand";
               if (demand && per != "job")
                   throw InputError("policy drf: parameter share: demand ranks single jobs, so it needs per=job, got "
                                    "per=" + per);
               if (p.get_bool("preempt") && per == "job")
                   throw InputError("policy drf: parameter preempt: with per=job an evicted job would hold nothing, so "
                                    "no eviction could keep its owner above the waiting one: use per=vc or per=user");
               if (per == "job" && !p.get("weights").empty())
                   throw InputError("policy drf: parameter weights: weights name VCs or users; per=job has none");
               const double margin = margin_of(p, "policy drf");
               static const Tenants kNone;
               const Tenants& tenants = context.tenants ? *context.tenants : kNone;
               const DrfPrincipal who = per == "vc" ? DrfPrincipal::Vc : per == "user" ? DrfPrincipal::User : DrfPrincipal::Job;
               std::vector<double> weights;
               if (who != DrfPrincipal::Job)
                   weights = parse_drf_weights(p.get("weights"), who == DrfPrincipal::Vc ? tenants.vc_names : tenants.user_names,
                                               who == DrfPrincipal::Vc ? "VC" : "user");
               return std::make_unique<DrfPolicy>(parse_type_order(p.get("type_order")), who, demand, std::move(weights),
                                                  p.get_bool("preempt"), margin);
           }});
    r.add({"synergy-drf",
           "Synergy's drf preset: drf per=job share=demand (smallest gang first, then arrival; SKIP walk)",
           {type_order_param()},
           [](const Params& p) {
               return std::make_unique<DrfPolicy>(parse_type_order(p.get("type_order")), DrfPrincipal::Job, true,
                                                  std::vector<double>{}, false, 0.0);
           }});
    r.add({"themis",
           "finish-time-fair leases (Themis, NSDI'20, approximated): the ceil((1-f) M) most unfair "
           "jobs bid for free and expired-lease GPUs in a greedy auction (largest log rho improvement), the rest "
           "go by rho; no preemption within a lease",
           {{"f", ParamType::Double, "0.8",
             "fairness knob in [0, 1): the share 1 - f of jobs with the largest finish-time fairness rho is offered "
             "GPUs first (0: every job bids)",
             {}},
            {"lease", ParamType::Double, "600",
             "seconds a won allocation is held at least (> 0); it is auctioned at the next decision after that "
             "(arrivals, completions and every lease seconds)",
             {}},
            margin_param("seconds: a job whose lease expired moves to another GPU type only when it finishes sooner "
                         "there by more than the restart cost plus this"),
            {"payments", ParamType::Bool, "false",
             "the partial-allocation auction's hidden payment: an auction winner keeps its GPUs for the share "
             "prod v_j(with it) / v_j(without it) of the lease (v = 1/rho of the other bidders); the rest is "
             "auctioned when it ends",
             {}},
            full_walk_param()},
           [](const Params& p) {
               const double f = p.get_double("f");
               if (!(f >= 0 && f < 1))
                   throw InputError(fmt::format("policy themis: parameter f: expected a number in [0, 1), got {}", f));
               const double lease = number_in(p, "policy themis", "lease", 1e-6, 1e9, "seconds in [1e-6, 1e9]");
               return std::make_unique<ThemisPolicy>(f, lease, margin_of(p, "policy themis"), p.get_bool("payments"),
                                                     p.get_bool("full_walk"));
           }});
    r.add(vc_quota_entry("vc-quota",
                         "virtual clusters with GPU quotas: hard partitions (Helios) or borrowing of idle quota with "
                         "reclaim on demand (HiveD); strict FIFO inside a VC",
                         false));
    r.add(vc_quota_entry("helios-vc", "Helios's VCs preset: vc-quota mode=hard (a VC never exceeds its quota)", true));
    register_gavel_policies(r);
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
