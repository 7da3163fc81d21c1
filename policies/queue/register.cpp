// The event-driven queue policies register here: one entry per policy or preset, with its parameters and their
// ranges, and a factory that turns checked parameters into the policy.
#include "policies/queue/register.hpp"

#include "models/base/input_error.hpp"
#include "policies/common_params.hpp"
#include "policies/queue/drf.hpp"
#include "policies/queue/fifo.hpp"
#include "policies/queue/las.hpp"
#include "policies/queue/qssf.hpp"
#include "policies/queue/sjf.hpp"
#include "policies/queue/srtf.hpp"
#include "policies/queue/tiresias.hpp"
#include "policies/queue/tiresias_gittins.hpp"
#include "policies/queue/vc_quota.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>

namespace dlsim {

namespace {

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
    return {
        name, std::move(description),
        with_defaults(
            {type_order_param(),
             type_ties_param(),
             {"migrate",
              ParamType::Bool,
              "true",
              "a displaced job moves to free GPUs of another type instead of waiting, and running jobs move up to "
              "a faster type (see move_up); each move is a restart",
              {}},
             margin_param("seconds: a waiting job displaces a running one, or a running job moves to a faster type, "
                          "only when that gains more than the restart cost plus this margin (no swapping back and "
                          "forth)"),
             {"tick",
              ParamType::Double,
              "0",
              "seconds: decide only at multiples of this (Helios's simulator loop: 1); 0 = at every change",
              {},
              ParamRange{.lo = 0, .hi = 1e9, .noun = "seconds"}},
             {"move_up",
              ParamType::Choice,
              "idle",
              "with migrate: running jobs move to a faster type only into GPUs no waiting job takes (idle), or "
              "also before the waiting jobs when ranked ahead of all of them (ahead: more moves, lower JCT "
              "under heavy load)",
              {"idle", "ahead"}}},
            defaults),
        [gpu_weighted, name](const Params& p) {
            const double tick = p.get_double("tick");
            return std::make_unique<SrtfPolicy>(parse_type_order(p), p.get("migrate") == "true", p.get_double("margin"),
                                                gpu_weighted, to_time(tick), p.get("move_up") == "ahead");
        }};
}

/// `sjf` and its presets.
RegistryEntry<Policy> sjf_entry(std::string name, std::string description,
                                const std::map<std::string, std::string>& defaults) {
    std::vector<ParamSpec> specs{
        type_order_param(),
        type_ties_param(),
        {"key",
         ParamType::Choice,
         "duration",
         "what 'shortest' means: run time on the reference type, that × GPUs, or the number of GPUs",
         {"duration", "gpu_time", "gpus"}},
        {"strict",
         ParamType::Bool,
         "true",
         "stop at the first queued job that does not fit (head-of-line blocking); false: skip it",
         {}},
        {"preemptive",
         ParamType::Bool,
         "false",
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
                const double margin = p.get_double("margin");
                return std::make_unique<SjfPolicy>(parse_type_order(p), parse_sjf_key(p.get("key")),
                                                   p.get_bool("strict"), preemptive, margin);
            }};
}

/// `qssf` and its preset.
RegistryEntry<Policy> qssf_entry(std::string name, std::string description,
                                 const std::map<std::string, std::string>& defaults) {
    std::vector<ParamSpec> specs{
        type_order_param(),
        type_ties_param(),
        {"estimator",
         ParamType::Choice,
         "history",
         "predicted GPU time: mean duration of finished jobs with the same history_key x GPUs; the oracle; or the "
         "oracle x (1 + u) with Helios's seeded noise (may be negative)",
         {"history", "oracle", "helios-noise"}},
        {"history_key",
         ParamType::Choice,
         "user+model+gpus",
         "history buckets: (user, model, GPUs), falling back to (model, GPUs), model, GPUs, all jobs; or "
         "(model, GPUs) with its fallbacks; or GPUs alone (a trace without users or models keys on what it has)",
         {"user+model+gpus", "model+gpus", "gpus"}},
        {"prior",
         ParamType::Double,
         "3600",
         "seconds assumed per GPU before any job has finished (history), so the first jobs rank by GPU count",
         {},
         ParamRange{.lo = 0, .hi = 1e9, .noun = "seconds"}},
        {"strict",
         ParamType::Bool,
         "true",
         "stop at the first queued job that does not fit (Helios); false: skip it",
         {}},
        {"lazy_priority",
         ParamType::Bool,
         "false",
         "Helios's quirk: when only this instant's arrivals wait, start them by GPU count before giving them "
         "a priority",
         {}}};
    return {name, std::move(description), with_defaults(std::move(specs), defaults),
            [name](const Params& p, const MakeContext& context) {
                const double prior = p.get_double("prior");
                return std::make_unique<QssfPolicy>(parse_type_order(p), parse_qssf_estimator(p.get("estimator")),
                                                    parse_qssf_history_key(p.get("history_key")), prior,
                                                    p.get_bool("strict"), p.get_bool("lazy_priority"), context.seed);
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
            throw InputError(
                fmt::format("policy drf: parameter weights: expected name:weight pairs with weights in "
                            "(0, 1e9], comma-separated (e.g. 'vcA:2,vcB:1'), got '{}'",
                            item));
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
        type_ties_param(),
        {"quotas",
         ParamType::File,
         "",
         "JSON file of quotas by VC: GPUs in total or by GPU type ({\"vcA\": 16, \"vcB\": {\"V100\": 8}}); VCs left "
         "out get 0. Default: each VC's share of the trace's GPU-hours x the cluster's GPUs (largest remainder)",
         {}}};
    if (!fixed_hard) {
        params.push_back({"mode",
                          ParamType::Choice,
                          "hard",
                          "hard: a VC never uses more than its quota (Helios); borrow: jobs beyond it run on idle GPUs "
                          "and are preempted when a VC with room needs them back (HiveD)",
                          {"hard", "borrow"}});
        params.push_back({"reclaim",
                          ParamType::Choice,
                          "youngest",
                          "borrow: which lent jobs are preempted first: the most recently started",
                          {"youngest"}});
    }
    return {std::move(name), std::move(description), std::move(params),
            [fixed_hard](const Params& p, const MakeContext& context) {
                if (context.cluster == nullptr) throw InternalError("policy vc-quota: made without the run's cluster");
                static const Tenants kNone;
                const Tenants& tenants = context.tenants ? *context.tenants : kNone;
                const bool hard = fixed_hard || p.get("mode") == "hard";
                return std::make_unique<VcQuotaPolicy>(
                    parse_type_order(p), !hard, resolve_vc_quotas(p.get("quotas"), *context.cluster, tenants, hard),
                    tenants.vc_names);
            }};
}

/// The MLFQ parameters of `tiresias` and its variants, with the given defaults.
std::vector<ParamSpec> tiresias_params(const std::string& thresholds) {
    return {type_order_param(),
            type_ties_param(),
            {"thresholds",
             ParamType::Numbers,
             thresholds,
             "service at which a job leaves queue k, ascending (GPU-seconds, or seconds with service=wall); K = "
             "count + 1 queues",
             {}},
            {"service",
             ParamType::Choice,
             "gpu",
             "attained service in GPU-seconds (2D) or seconds held (1D)",
             {"gpu", "wall"}},
            {"knob",
             ParamType::Double,
             "0",
             "starvation promotion: back to Q0 once waiting >= knob x time run since the last promotion (0: off)",
             {},
             ParamRange{.lo = 0, .hi = 1e9}}};
}

/// Checked thresholds and knob of a tiresias variant named `name`.
std::pair<std::vector<double>, double> tiresias_queues(const std::string& name, const Params& p) {
    const std::vector<double> th = p.get_numbers("thresholds");
    for (std::size_t i = 0; i < th.size(); ++i)
        if (!(th[i] > 0) || (i > 0 && !(th[i] > th[i - 1])))
            throw InputError("policy " + name +
                             ": parameter thresholds: expected positive numbers in ascending order, "
                             "got '" +
                             p.get("thresholds") + "'");
    return {th, p.get_double("knob")};
}

/// `tiresias` and its preset `tiresias-sim` (the shipped simulator's queues and late demotion timer).
RegistryEntry<Policy> tiresias_entry(std::string name, std::string description, const std::string& thresholds,
                                     const std::string& timer) {
    std::vector<ParamSpec> params = tiresias_params(thresholds);
    params.push_back({"timer",
                      ParamType::Choice,
                      timer,
                      "when a demotion is due: at the exact crossing, or at Tiresias's simulator's timer ((threshold - "
                      "wall seconds run)/GPUs, late for gangs; the demotion waits for it or the next arrival or "
                      "completion)",
                      {"exact", "tiresias-sim"}});
    params.push_back(full_walk_param());
    return {name, std::move(description), std::move(params), [name](const Params& p) {
                const auto [th, knob] = tiresias_queues(name, p);
                return std::make_unique<TiresiasPolicy>(parse_type_order(p), th, p.get("service") == "gpu", knob,
                                                        p.get("timer") == "exact"
                                                            ? TiresiasPolicy::DemotionTimer::Exact
                                                            : TiresiasPolicy::DemotionTimer::TiresiasSim,
                                                        p.get_bool("full_walk"));
            }};
}

RegistryEntry<Policy> tiresias_gittins_entry() {
    std::vector<ParamSpec> params = tiresias_params("3600");
    params.push_back({"delta",
                      ParamType::Double,
                      "0",
                      "the index's service horizon: 0 = what the job has left before its queue's threshold (the rest "
                      "of the job in the last queue); > 0 a fixed horizon in the service unit",
                      {},
                      ParamRange{.lo = 0, .hi = 1e12, .noun = "a service"}});
    params.push_back({"gittins_compat",
                      ParamType::Bool,
                      "false",
                      "Tiresias's simulator's index: E sums the raw service of the jobs that finish within the "
                      "horizon, and the horizon is 3250 unless delta is set",
                      {}});
    params.push_back(
        margin_param("seconds: a running job is ranked by the better of its index now and its index this "
                     "much (plus the restart cost) earlier, times its GPUs with gpu service: no swapping "
                     "for a negligible gain"));
    params.push_back(full_walk_param());
    return {"tiresias-gittins",
            "Tiresias's MLFQ with jobs ordered within a queue by the Gittins index of their attained service, over "
            "the distribution of finished jobs (uniform prior until 100 finish); SKIP walk",
            std::move(params), [](const Params& p) {
                const auto [th, knob] = tiresias_queues("tiresias-gittins", p);
                const double delta = p.get_double("delta");
                const double margin = p.get_double("margin");
                return std::make_unique<TiresiasGittinsPolicy>(parse_type_order(p), th, p.get("service") == "gpu", knob,
                                                               delta, p.get_bool("gittins_compat"), margin,
                                                               p.get_bool("full_walk"));
            }};
}

/// `las` and its preset `blox-las` (wall-time service, 300 s rounds).
RegistryEntry<Policy> las_entry(std::string name, std::string description, const std::string& service) {
    return {name,
            std::move(description),
            {type_order_param(),
             type_ties_param(),
             {"service",
              ParamType::Choice,
              service,
              "attained service counted in GPU-seconds (gpu) or seconds held (wall)",
              {"gpu", "wall"}},
             {"quantum",
              ParamType::Double,
              "300",
              "seconds between re-rankings while jobs wait (Blox, Synergy: 300)",
              {},
              ParamRange{.lo = 1e-6, .hi = 1e9, .noun = "seconds"}},
             margin_param("seconds: a waiting job displaces a running one only when its service is lower by more "
                          "than the restart cost plus this margin (times the running job's GPUs for gpu service)"),
             full_walk_param()},
            [name](const Params& p) {
                const double quantum = p.get_double("quantum");
                const double margin = p.get_double("margin");
                return std::make_unique<LasPolicy>(parse_type_order(p), p.get("service") == "gpu", quantum, margin,
                                                   p.get_bool("full_walk"));
            }};
}

}  // namespace

void register_queue_policies(PolicyRegistry& r) {
    r.add({"fifo",
           "strict first-come-first-served: nothing overtakes the head of the queue; no preemption",
           {type_order_param(),
            type_ties_param(),
            {"backfill",
             ParamType::Choice,
             "none",
             "easy: later jobs may start if they do not delay the head's reservation (EASY, per type pool)",
             {"none", "easy"}},
            {"estimate",
             ParamType::Choice,
             "oracle",
             "EASY's runtime estimates: the true run time, or a seeded noisy one per job (Helios's error "
             "distribution: x (1 + u), or / (1 + |u|) for u < 0); either x estimate_factor",
             {"oracle", "noisy"}},
            {"estimate_factor",
             ParamType::Double,
             "1",
             "EASY's runtime estimates: the true (or noisy) run time × this (1 with estimate=oracle: the truth)",
             {},
             ParamRange{.lo = 1, .hi = 1e6}},
            {"space_sharing",
             ParamType::Bool,
             "false",
             "pack a blocked single-GPU head onto the running single-GPU job it pairs best with, if their "
             "normalised pair rates (profile `pairs`) sum above 1.5 (Gavel's fifo_packed)",
             {}}},
           [](const Params& p, const MakeContext& context) {
               const double factor = p.get_double("estimate_factor");
               std::optional<EstimateNoise> noise;
               if (p.get("estimate") == "noisy") noise.emplace(context.seed);
               return std::make_unique<FifoPolicy>(parse_type_order(p), p.get("backfill") == "easy", factor, noise,
                                                   p.get_bool("space_sharing"));
           }});
    r.add(
        srtf_entry("srtf", "preemptive shortest remaining time first (oracle on remaining work), greedy fill", false));
    r.add(srtf_entry(
        "srsf", "preemptive shortest remaining service first: srtf on remaining time x GPUs (Tiresias shortest-gpu)",
        true));
    r.add(srtf_entry("helios-srtf",
                     "Helios's srtf (SC'21 simulator): decisions every 1 s, no moves between types, GPU types ignored; "
                     "its checkpoint charges (7/30/60 s by gang size) are the run's --restart-model helios",
                     false, {{"tick", "1"}, {"migrate", "false"}, {"type_order", "spec"}}));
    r.add(las_entry("las",
                    "preemptive least attained service (GPU-seconds by default), re-ranked every quantum; SKIP walk",
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
    // sjf, its peer presets (Helios, Hu et al., SC 2021; Tiresias, Gu et al., NSDI 2019) and qssf (Helios).
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
    r.add(
        {"drf",
         "dominant resource fairness over GPUs: progressive filling by lowest weighted share of VCs, users or jobs; "
         "FIFO inside one; SKIP walk",
         {type_order_param(),
          type_ties_param(),
          {"per",
           ParamType::Choice,
           "vc",
           "who shares: the trace's VCs, its users, or each job alone",
           {"vc", "user", "job"}},
          {"share",
           ParamType::Choice,
           "held",
           "held: GPUs held now (progressive filling); demand: a job's own GPUs, static (Synergy; per=job only)",
           {"held", "demand"}},
          {"weights",
           ParamType::Text,
           "",
           "name:weight pairs of VCs or users, comma-separated (e.g. 'vcA:2,vcB:1'); unnamed ones weigh 1",
           {}},
          {"preempt",
           ParamType::Bool,
           "false",
           "evict youngest-first the jobs of principals that stay at or above a waiting lower-share one after the swap",
           {}},
          margin_param("seconds: preempt=true evicts a job only after its current stint ran its restart cost plus "
                       "this")},
         [](const Params& p, const MakeContext& context) {
             const std::string per = p.get("per");
             const bool demand = p.get("share") == "demand";
             if (demand && per != "job")
                 throw InputError(
                     "policy drf: parameter share: demand ranks single jobs, so it needs per=job, got "
                     "per=" +
                     per);
             if (p.get_bool("preempt") && per == "job")
                 throw InputError(
                     "policy drf: parameter preempt: with per=job an evicted job would hold nothing, so "
                     "no eviction could keep its owner above the waiting one: use per=vc or per=user");
             if (per == "job" && !p.get("weights").empty())
                 throw InputError("policy drf: parameter weights: weights name VCs or users; per=job has none");
             const double margin = p.get_double("margin");
             static const Tenants kNone;
             const Tenants& tenants = context.tenants ? *context.tenants : kNone;
             const DrfPrincipal who = per == "vc"     ? DrfPrincipal::Vc
                                      : per == "user" ? DrfPrincipal::User
                                                      : DrfPrincipal::Job;
             std::vector<double> weights;
             if (who != DrfPrincipal::Job)
                 weights = parse_drf_weights(p.get("weights"),
                                             who == DrfPrincipal::Vc ? tenants.vc_names : tenants.user_names,
                                             who == DrfPrincipal::Vc ? "VC" : "user");
             return std::make_unique<DrfPolicy>(parse_type_order(p), who, demand, std::move(weights),
                                                p.get_bool("preempt"), margin);
         }});
    r.add({"synergy-drf",
           "Synergy's drf preset: drf per=job share=demand (smallest gang first, then arrival; SKIP walk)",
           {type_order_param(), type_ties_param()},
           [](const Params& p) {
               return std::make_unique<DrfPolicy>(parse_type_order(p), DrfPrincipal::Job, true, std::vector<double>{},
                                                  false, 0.0);
           }});
    r.add(vc_quota_entry("vc-quota",
                         "virtual clusters with GPU quotas: hard partitions (Helios) or borrowing of idle quota with "
                         "reclaim on demand (HiveD); strict FIFO inside a VC",
                         false));
    r.add(vc_quota_entry("helios-vc", "Helios's VCs preset: vc-quota mode=hard (a VC never exceeds its quota)", true));
}

}  // namespace dlsim
