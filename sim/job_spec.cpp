#include "sim/job_spec.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <optional>

namespace dlsim {

ResolvedJobs resolve_jobs(const Trace& trace, const Cluster& cluster, const ProfileSet& profiles,
                          const RateModel& rates, bool strict, UnknownModels unknown_models,
                          const OriginalRate& original_rate, TypeChoice type_choice) {
    ResolvedJobs out;
    out.jobs.reserve(trace.jobs.size());
    std::map<StrId, ModelIdx> model_of;             // interned name -> profile index
    std::map<StrId, GpuTypeMask> allowed_of;        // interned "a|b" -> mask of cluster types
    std::map<StrId, std::uint32_t> user_of, vc_of;  // interned name -> dense id (Tenants)
    Tenants& tenants = out.tenants;
    auto dense = [&](std::map<StrId, std::uint32_t>& ids, std::vector<std::string>& names,
                     StrId name) -> std::uint32_t {
        if (name == 0 || trace.strings[name].empty()) return 0;
        auto [it, fresh] = ids.try_emplace(name, static_cast<std::uint32_t>(names.size()));
        if (fresh) names.push_back(trace.strings[name]);
        return it->second;
    };
    const GpuTypeMask all_types =
        cluster.gpu_types.size() == 64 ? ~GpuTypeMask{0} : (GpuTypeMask{1} << cluster.gpu_types.size()) - 1;

    for (std::uint32_t i = 0; i < trace.jobs.size(); ++i) {
        const JobRecord& r = trace.jobs[i];
        auto where = [&](std::string_view column) {
            return fmt::format("{}:{}: column '{}'", trace.path, r.line, column);
        };
        JobSpec s;
        s.submit = to_time(r.submit_time);
        s.num_gpus = r.num_gpus;
        // Elastic range from the trace (0 = absent: that side stays at num_gpus; neither = rigid).
        s.min_gpus = r.min_num_gpus > 0 ? r.min_num_gpus : r.num_gpus;
        s.max_gpus = r.max_num_gpus > 0 ? r.max_num_gpus : r.num_gpus;
        s.user = dense(user_of, tenants.user_names, r.user);
        s.vc = dense(vc_of, tenants.vc_names, r.vc);
        s.weight = r.priority > 0 ? r.priority : 1.0;
        s.batch_size = r.batch_size;
        tenants.vc_gpu_seconds.resize(tenants.vc_names.size());
        tenants.vc_jobs.resize(tenants.vc_names.size());
        tenants.vc_gpu_seconds[s.vc] += r.duration * r.num_gpus;
        ++tenants.vc_jobs[s.vc];

        // A job with neither work nor a run time (a pollux workload's rows) gets its work from its model's
        // goodput data: without it there is nothing to run.
        const bool needs_goodput = r.work <= 0 && r.duration <= 0;
        auto no_goodput = [&](std::string_view model) {
            return InputError(fmt::format(
                "{}: model '{}' has no goodput data in the profile, and this job has neither work nor a run time "
                "(a pollux workload's jobs get their work from the goodput model): give a profile with goodput "
                "data for every application, e.g. models/profiles/pollux_elastic.json",
                where("model"), model));
        };
        if (needs_goodput && r.model == 0)
            throw InputError(fmt::format("{}: a job with neither work nor a run time needs a model with goodput data",
                                         where("model")));
        if (r.model != 0) {
            auto it = model_of.find(r.model);
            if (it == model_of.end()) {
                auto m = profiles.find_model(trace.strings[r.model]);
                if (!m && unknown_models == UnknownModels::Error && !needs_goodput) {
                    std::string known;
                    for (std::size_t k = 0; k < profiles.models.size() && k < 6; ++k)
                        known += (k ? "; " : "") + profiles.models[k].name;
                    if (profiles.models.size() > 6) known += "; ...";
                    throw InputError(
                        fmt::format("{}: model '{}' is not in the throughput profile (known: {}); add it "
                                    "to the profile, or give --unknown-models agnostic (run config "
                                    "\"unknown_models\": \"agnostic\") to run such jobs without a model",
                                    where("model"), trace.strings[r.model], known));
                }
                // Agnostic: the job runs as if it named no model (equally fast on every type).
                it = model_of.emplace(r.model, m ? *m : kNoModel).first;
            }
            s.model = it->second;
            if (needs_goodput && (s.model == kNoModel || !profiles.models[s.model].goodput))
                throw no_goodput(trace.strings[r.model]);
            if (s.model == kNoModel) ++out.agnostic_jobs;
        }

        GpuTypeMask allowed = all_types;
        if (r.allowed_gpu_types != 0) {
            auto it = allowed_of.find(r.allowed_gpu_types);
            if (it == allowed_of.end()) {
                GpuTypeMask mask = 0;
                const std::string& list = trace.strings[r.allowed_gpu_types];
                for (std::size_t start = 0;;) {
                    const std::size_t cut = list.find('|', start);
                    const std::string name = list.substr(start, cut == std::string::npos ? cut : cut - start);
                    if (auto t = cluster.find_gpu_type(name))
                        mask |= GpuTypeMask{1} << *t;
                    else if (!profiles.names_gpu_type(lower_ascii(name)))
                        throw InputError(
                            fmt::format("{}: GPU type '{}' is known neither to the cluster nor to the profile",
                                        where("allowed_gpu_types"), name));
                    if (cut == std::string::npos) break;
                    start = cut + 1;
                }
                it = allowed_of.emplace(r.allowed_gpu_types, mask).first;
            }
            allowed = it->second;
        }

        const GoodputProfile* goodput =
            s.model != kNoModel && profiles.models[s.model].goodput ? &*profiles.models[s.model].goodput : nullptr;
        if (goodput != nullptr) {
            // The elastic job model: its work is its application's, in samples at M0, to the completion
            // epoch (models/goodput.hpp); it may run on 1 GPU up to as many as its largest batch spreads over
            // at the smallest per-GPU batch (at most 64, Pollux's limit), unless the trace bounds it.
            s.work = r.work > 0 ? r.work : goodput->completion_work();
            const int widest_batch = goodput->max_replicas > 0
                                         ? goodput->max_replicas
                                         : std::max(1, std::min(64, goodput->max_batch_size / goodput->min_local_bsz));
            if (r.min_num_gpus == 0) s.min_gpus = 1;
            if (r.max_num_gpus == 0) s.max_gpus = widest_batch;
            s.num_gpus = std::min(s.num_gpus, s.max_gpus);
            s.min_gpus = std::min(s.min_gpus, s.num_gpus);
        } else if (r.work > 0) {
            s.work = r.work;
        } else {
            double single = 0;
            std::string type_name;
            std::optional<GpuTypeIdx> original;  // the original type, when the cluster has it
            if (r.gpu_type != 0) {
                type_name = trace.strings[r.gpu_type];
                original = cluster.find_gpu_type(type_name);
                auto x = rates.single_by_name(s.model, type_name);
                if (!x)
                    throw InputError(fmt::format("{}: GPU type '{}' is known neither to the cluster nor to the profile",
                                                 where("gpu_type"), type_name));
                single = *x;
            } else {
                type_name = cluster.gpu_types[cluster.reference_gpu_type].name + " (the cluster's reference type)";
                single = rates.single(s.model, cluster.reference_gpu_type);
                original = cluster.reference_gpu_type;
            }
            if (single <= 0)
                throw InputError(
                    fmt::format("{}: model '{}' has no throughput on {}, so its duration cannot be turned "
                                "into work (give gpu_type or work)",
                                where("gpu_type"), profiles.models[s.model].name, type_name));
            s.work = r.duration * s.num_gpus * single;
            // The measured mode rates n GPUs by the profile's measured point: the job did duration × that.
            const std::string& measured_on =
                r.gpu_type != 0 ? type_name : cluster.gpu_types[cluster.reference_gpu_type].name;
            if (auto x = rates.measured_by_name(s.model, measured_on, s.num_gpus)) s.work = r.duration * *x;
            if (original_rate && original && single > 0) {
                // Where the network slows the job even alone, its trace duration included that: the work is
                // what it did at that rate (an ideal network gives exactly n × single, the line above).
                const double rate = original_rate(s.model, *original, s.num_gpus);
                if (rate > 0 && rate != rates.rate(s.model, *original, s.num_gpus)) s.work = r.duration * rate;
            }
        }

        GpuTypeMask can_run = 0;
        int widest = 0;
        for (GpuTypeIdx t = 0; t < cluster.gpu_types.size(); ++t) {
            if (!((allowed >> t) & 1) || rates.single(s.model, t) <= 0) continue;
            can_run |= GpuTypeMask{1} << t;
            widest = std::max(widest, cluster.gpus_of_type(t));
            if (cluster.gpus_of_type(t) >= s.num_gpus) s.runnable |= GpuTypeMask{1} << t;
        }
        // A max_num_gpus beyond every type the job may use is not an error (like num_gpus, the job is
        // only rejected below if num_gpus itself cannot fit): max_gpus is capped at the largest such
        // type's GPU count, since no allocation can be larger, but never below num_gpus.
        s.max_gpus = std::max(s.num_gpus, std::min(s.max_gpus, widest));
        // The slowest type it may get must still finish within engine time (up to 1e12 s of run time),
        // on the fewest GPUs it may be given (min_gpus; num_gpus for a rigid job).
        for (GpuTypeMask m = s.runnable; m != 0; m &= m - 1) {
            const auto t = static_cast<GpuTypeIdx>(std::countr_zero(m));
            if (!(s.work / rates.rate(s.model, t, s.min_gpus) <= 1e12))
                throw InputError(fmt::format(
                    "{}: the job would run {:.3g} s on {}{}, more than the 1e12 s dlsim can "
                    "simulate",
                    where(r.work > 0 ? "work" : "duration"), s.work / rates.rate(s.model, t, s.min_gpus),
                    cluster.gpu_types[t].name,
                    s.min_gpus < s.num_gpus ? fmt::format(" at its min_num_gpus ({})", s.min_gpus) : std::string()));
        }
        // --type-choice original: the type it ran on, where this cluster has that type and it fits.
        if (type_choice == TypeChoice::Original && r.gpu_type != 0) {
            if (auto t = cluster.find_gpu_type(trace.strings[r.gpu_type]); t && ((s.runnable >> *t) & 1))
                s.runnable = GpuTypeMask{1} << *t;
        }
        if (s.runnable == 0) {
            std::string why =
                can_run == 0
                    ? (s.model == kNoModel
                           ? std::string("no GPU type it may use is in this cluster")
                           : fmt::format("model '{}' has no throughput on any GPU type of this cluster it may use",
                                         profiles.models[s.model].name))
                    : fmt::format("needs {} GPUs but the largest GPU type it may use has {}", s.num_gpus, widest);
            if (strict)
                throw InputError(fmt::format("{}:{}: job '{}' can never run on this cluster (--strict): {}", trace.path,
                                             r.line, r.id, why));
            out.rejected.emplace(i, std::move(why));
        }
        out.jobs.push_back(s);
    }
    return out;
}

}  // namespace dlsim
