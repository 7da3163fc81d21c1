// The round-based policies register here: Gavel's family on the round mechanism (with their packed forms) and
// Themis's leases.
#include "policies/rounds/register.hpp"

#include "models/base/input_error.hpp"
#include "policies/common_params.hpp"
#include "policies/rounds/fifo_share.hpp"
#include "policies/rounds/isolated_share.hpp"
#include "policies/rounds/packed_rounds.hpp"
#include "policies/rounds/packed_share.hpp"
#include "policies/rounds/round_scheduler.hpp"
#include "policies/rounds/themis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>

namespace dlsim {

namespace {

/// The round mechanism's parameters (policies/rounds/round_scheduler.hpp), shared by the Gavel family.
std::vector<ParamSpec> round_params() {
    return {{"round",
             ParamType::Double,
             "360",
             "seconds per round: full reassignment every round (default), Gavel's round length (compat)",
             {},
             ParamRange{.lo = 1e-3, .hi = 1e9, .noun = "seconds"}},
            {"gavel_compat",
             ParamType::Bool,
             "false",
             "Gavel's simulator's rounds: a round ends with its longest micro-task, arrivals and freed GPUs wait for "
             "it, X is recomputed only at a round start after reset_interval, leases and strided placement",
             {}},
            {"reset_interval",
             ParamType::Double,
             "1920",
             "seconds between resets of the time shares behind the priorities (Gavel's "
             "minimum_time_between_allocation_resets); with gavel_compat also the minimum time between allocation "
             "recomputations",
             {},
             ParamRange{.lo = 0, .hi = 1e9, .noun = "seconds"}}};
}

/// The round mechanism's options from round_params().
RoundOptions round_options(const Params& p, bool aware, bool fifo, std::uint64_t seed) {
    RoundOptions o;
    o.round_s = p.get_double("round");
    o.gavel_compat = p.get_bool("gavel_compat");
    o.reset_interval_s = p.get_double("reset_interval");
    o.type_aware = aware;
    o.fifo = fifo;
    o.seed = seed;
    return o;
}

/// A Gavel policy on the round mechanism: its entry name, the allocation source it builds, whether its
/// type order is fixed (heterogeneity-aware) and whether it is FIFO-named (passes over priority 0 in compat).
RegistryEntry<Policy> round_entry(
    std::string name, std::string description, std::vector<ParamSpec> extra, bool aware, bool fifo,
    std::function<std::unique_ptr<ShareSource>(const Params&, const MakeContext&, bool compat)> source) {
    std::vector<ParamSpec> params = round_params();
    for (ParamSpec& s : extra) params.push_back(std::move(s));
    return {name, std::move(description), std::move(params),
            [name, aware, fifo, source](const Params& p, const MakeContext& context) {
                const RoundOptions o = round_options(p, aware, fifo, context.seed);
                return std::make_unique<RoundScheduler>(o, source(p, context, o.gavel_compat));
            }};
}

/// A choice between a value for the default mode and one for the Gavel-compatible mode, with "auto" (the
/// default) following the run's mode: tie_break, ftf_denominator, type_pick.
ParamSpec mode_choice_param(std::string name, std::string plain, std::string compat_value, std::string description) {
    return {std::move(name),
            ParamType::Choice,
            "auto",
            std::move(description),
            {"auto", std::move(plain), std::move(compat_value)}};
}

/// True when mode-choice parameter `name` (mode_choice_param) selects `compat_value`: set to it, or "auto" under
/// gavel_compat.
bool picks_compat_value(const Params& p, const std::string& name, const std::string& compat_value, bool compat) {
    const std::string value = p.get(name);
    return value == compat_value || (value == "auto" && compat);
}

/// An LP source with the given objective and view; `tune` sets the objective's own options.
std::function<std::unique_ptr<ShareSource>(const Params&, const MakeContext&, bool)> lp_source(
    ShareObjective objective, ThroughputView view,
    std::function<void(ShareOptions&, const Params&, const MakeContext&, bool compat)> tune = {}) {
    return [objective, view, tune](const Params& p, const MakeContext& context, bool compat) {
        ShareOptions o;
        o.objective = objective;
        o.view = view;
        if (p.values().count("tie_break")) o.centre = picks_compat_value(p, "tie_break", "centre", compat);
        if (tune) tune(o, p, context, compat);
        return std::make_unique<LpShareSource>(o);
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
    return {"reference_type",
            ParamType::Text,
            "",
            "the GPU type whose throughput stands for every type (Gavel: v100); empty = the cluster's reference type",
            {}};
}

/// FTF's ρ denominator (ShareOptions::ftf_elapsed_denominator).
ParamSpec ftf_denominator_param() {
    return mode_choice_param(
        "ftf_denominator", "isolated-time", "elapsed",
        "rho's denominator D_m: isolated-time (I_m + R_m/theta_iso, Gavel's code at HEAD and Themis's definition), "
        "elapsed (age_m + R_m/theta_iso, Gavel's earlier code, which Fig. 8's numbers match); auto: elapsed with "
        "gavel_compat, else isolated-time");
}

/// Sets ShareOptions::ftf_elapsed_denominator from `ftf_denominator`.
void tune_ftf_denominator(ShareOptions& o, const Params& p, bool compat) {
    o.ftf_elapsed_denominator = picks_compat_value(p, "ftf_denominator", "elapsed", compat);
}

/// How the FIFO allocations pick a type (policies/rounds/fifo_share.hpp).
ParamSpec fifo_pick_param() {
    return mode_choice_param(
        "type_pick", "intended", "gavel-code",
        "intended: fifo-het the fastest type with room, gavel-fifo a uniform draw (ties in cluster order); "
        "gavel-code: as Gavel's fifo.py runs (types by name; gavel-fifo then puts nearly every job on the last "
        "name, e.g. v100); auto: gavel-code with gavel_compat, else intended");
}

/// Gavel's FIFO allocation, perf (fifo_perf) or agnostic (fifo).
std::function<std::unique_ptr<ShareSource>(const Params&, const MakeContext&, bool)> fifo_source(bool perf) {
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
        return std::make_unique<FifoShare>(perf, code ? FifoPick::GavelCode : FifoPick::Intended, std::move(order),
                                           context.seed);
    };
}

/// Gavel's `_packed` form of a round policy (Gavel's policies/*_packed.py): parameter space_sharing (off: the
/// plain entry) and `extra`; on, the packed round mechanism (policies/rounds/packed_rounds.hpp) over `packed`'s
/// allocation.
RegistryEntry<Policy> with_space_sharing(
    RegistryEntry<Policy> entry, std::string rule, std::vector<ParamSpec> extra, bool fifo,
    std::function<std::unique_ptr<PackedShareSource>(const Params&, const MakeContext&)> packed) {
    entry.params.push_back({"space_sharing",
                            ParamType::Bool,
                            "false",
                            "Gavel's _packed policy: pairs of single-GPU jobs may share GPUs (Decisions::pack) at "
                            "their measured pair rates (profile `pairs`), formed at round boundaries; " +
                                rule,
                            {}});
    for (ParamSpec& s : extra) entry.params.push_back(std::move(s));
    entry.make = [name = entry.name, plain = entry.make, fifo, packed](const Params& p, const MakeContext& context) {
        if (!p.get_bool("space_sharing")) return plain(p, context);
        const RoundOptions o = round_options(p, true, fifo, context.seed);
        return std::unique_ptr<Policy>(std::make_unique<PackedRoundScheduler>(o, packed(p, context)));
    };
    return entry;
}

/// The Gavel family (Narayanan et al., OSDI 2020; github.com/stanford-futuredata/gavel, scheduler/policies/),
/// named as policies/rounds/README.md lists them.
void add_gavel_policies(PolicyRegistry& r) {
    const auto aware = ThroughputView::Aware;
    const auto agnostic = ThroughputView::Agnostic;
    r.add(with_space_sharing(
        round_entry("gavel-las",
                    "Gavel's max_min_fairness_perf (LAS): max-min of throughput normalised by T^prop, GLPK, "
                    "realised in rounds; with space_sharing its max_min_fairness_packed",
                    {tie_break_param()}, true, false, lp_source(ShareObjective::MaxMinFairness, aware)),
        "X from the max-min LP with pair variables",
        {{"max_partners",
          ParamType::Int,
          "16",
          "space_sharing: a pair is an LP column only if it is among the k best partners (normalised pair "
          "throughput sum) of one of its jobs; 0 = every pair whose sum exceeds 1 (Gavel; a cold solve then "
          "takes ~0.7 s at 150 jobs, k = 32 ~0.2 s with z* 0.5 % lower, k = 16 0.1 s and 2.4 % lower)",
          {},
          ParamRange{.lo = 0, .hi = std::numeric_limits<double>::infinity(), .noun = "an integer"}}},
        false, [](const Params& p, const MakeContext&) {
            const long long k = p.get_int("max_partners");
            const bool centre = picks_compat_value(p, "tie_break", "centre", p.get_bool("gavel_compat"));
            return std::unique_ptr<PackedShareSource>(
                std::make_unique<PackedMaxMinShare>(static_cast<std::size_t>(k), true, centre));
        }));
    r.add(round_entry("gavel-las-agnostic",
                      "Gavel's max_min_fairness: max-min of GPU-time shares (every throughput 1), realised in rounds "
                      "with a shuffled type order",
                      {tie_break_param()}, false, false, lp_source(ShareObjective::MaxMinFairness, agnostic)));
    r.add(round_entry("gavel-ftf",
                      "Gavel's finish_time_fairness_perf (Themis's rho): min max rho by bisection over GLPK LPs, "
                      "realised in rounds",
                      {ftf_denominator_param(), tie_break_param()}, true, false,
                      lp_source(ShareObjective::FinishTimeFairness, aware,
                                [](ShareOptions& o, const Params& p, const MakeContext&, bool compat) {
                                    tune_ftf_denominator(o, p, compat);
                                })));
    r.add(round_entry(
        "gavel-ftf-agnostic",
        "Gavel's finish_time_fairness: the ftf program on the reference type's throughput everywhere, shuffled "
        "type order",
        {reference_type_param(), ftf_denominator_param(), tie_break_param()}, false, false,
        lp_source(ShareObjective::FinishTimeFairness, agnostic,
                  [](ShareOptions& o, const Params& p, const MakeContext& context, bool compat) {
                      o.reference_type = reference_type_of(p, context, "policy gavel-ftf-agnostic");
                      tune_ftf_denominator(o, p, compat);
                  })));
    r.add(round_entry("gavel-makespan",
                      "Gavel's min_total_duration_perf: minimum makespan (exact LP; Gavel's bisection with "
                      "makespan_bisection or gavel_compat), realised in rounds",
                      {{"makespan_bisection",
                        ParamType::Bool,
                        "false",
                        "Gavel's bisection on the makespan over [100, 1e6] s with factor 1.05 (up to 5 % above the "
                        "optimum); always on with gavel_compat",
                        {}},
                       tie_break_param()},
                      true, false,
                      lp_source(ShareObjective::Makespan, aware,
                                [](ShareOptions& o, const Params& p, const MakeContext&, bool compat) {
                                    o.gavel_makespan_bisection = compat || p.get_bool("makespan_bisection");
                                })));
    r.add(round_entry(
        "gavel-max-throughput",
        "Gavel's max_sum_throughput_perf: maximum sum of throughputs (raw steps/s as Gavel, or "
        "normalised), realised in rounds",
        {{"normalize",
          ParamType::Choice,
          "none",
          "none: raw iterations/s summed across models (Gavel); by_tprop: each job's divided by its "
          "T^prop",
          {"none", "by_tprop"}}},
        true, false,
        lp_source(ShareObjective::MaxThroughput, aware, [](ShareOptions& o, const Params& p, const MakeContext&, bool) {
            o.normalize_throughput_sum = p.get("normalize") == "by_tprop";
        })));
    r.add(round_entry("gavel-isolated",
                      "Gavel's isolated: every job an equal 1/M share of each type (the baseline of Gavel's two-run "
                      "finish-time fairness), realised in rounds with a shuffled type order",
                      {}, false, false,
                      [](const Params&, const MakeContext&, bool) { return std::make_unique<IsolatedShare>(); }));
    r.add(with_space_sharing(
        round_entry("fifo-het",
                    "Gavel's fifo_perf: arrival order, each job x = 1 on the fastest type with room (strict), "
                    "realised in rounds; with space_sharing its fifo_packed",
                    {fifo_pick_param()}, true, true, fifo_source(true)),
        "waiting jobs, in arrival order, packed with the allocated job whose normalised pair rates sum highest, "
        "above 1.5",
        {}, true, [](const Params& p, const MakeContext& context) {
            // Gavel's FIFOPolicyWithPacking: fifo_perf, then waiting jobs packed when the sum exceeds 1.5.
            return std::unique_ptr<PackedShareSource>(
                std::make_unique<FifoPackedShare>(fifo_source(true)(p, context, p.get_bool("gavel_compat")), 1.5));
        }));
    r.add(round_entry("gavel-fifo",
                      "Gavel's fifo: arrival order, each job x = 1 on a seeded random type with room (strict), kept "
                      "until it finishes; shuffled type order",
                      {fifo_pick_param()}, false, true, fifo_source(false)));
}

}  // namespace

void register_round_policies(PolicyRegistry& r) {
    r.add({"themis",
           "finish-time-fair leases (Themis, NSDI'20, approximated): the ceil((1-f) M) most unfair "
           "jobs bid for free and expired-lease GPUs in a greedy auction (largest log rho improvement), the rest "
           "go by rho; no preemption within a lease",
           {{"f",
             ParamType::Double,
             "0.8",
             "fairness knob in [0, 1): the share 1 - f of jobs with the largest finish-time fairness rho is offered "
             "GPUs first (0: every job bids)",
             {},
             ParamRange{.lo = 0, .hi = 1, .hi_open = true}},
            {"lease",
             ParamType::Double,
             "600",
             "seconds a won allocation is held at least (> 0); it is auctioned at the next decision after that "
             "(arrivals, completions and every lease seconds)",
             {},
             ParamRange{.lo = 1e-6, .hi = 1e9, .noun = "seconds"}},
            margin_param("seconds: a job whose lease expired moves to another GPU type only when it finishes sooner "
                         "there by more than the restart cost plus this"),
            {"payments",
             ParamType::Bool,
             "false",
             "the partial-allocation auction's hidden payment: an auction winner keeps its GPUs for the share "
             "prod v_j(with it) / v_j(without it) of the lease (v = 1/rho of the other bidders); the rest is "
             "auctioned when it ends",
             {}},
            full_walk_param()},
           [](const Params& p) {
               return std::make_unique<ThemisPolicy>(p.get_double("f"), p.get_double("lease"), p.get_double("margin"),
                                                     p.get_bool("payments"), p.get_bool("full_walk"));
           }});
    add_gavel_policies(r);
}

}  // namespace dlsim
