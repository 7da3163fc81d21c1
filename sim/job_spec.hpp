#pragma once
// Trace records resolved against the cluster and the profiles: work in iterations, model index,
// the GPU types each job may run on, and whether it can ever run here (a job that cannot is rejected).
#include "models/base/sim_time.hpp"
#include "models/cluster.hpp"
#include "models/profile.hpp"
#include "models/rate_model.hpp"
#include "policies/tenants.hpp"
#include "traces/job_record.hpp"

#include <functional>

#include <map>
#include <string>
#include <vector>

namespace dlsim {

struct JobSpec {
    Time submit = 0;
    double work = 0;  ///< iterations
    ModelIdx model = kNoModel;
    int num_gpus = 1;
    int min_gpus = 1, max_gpus = 1;  ///< elastic range (trace columns min_num_gpus/max_num_gpus); both
                                     ///< equal num_gpus for a rigid job, which cannot be resized
    GpuTypeMask runnable = 0;        ///< allowed, rate > 0, and enough GPUs of that type in the cluster
    std::uint32_t user = 0, vc = 0;  ///< dense ids into ResolvedJobs::tenants (0 = none recorded)
    double weight = 1;               ///< the trace's priority when > 0 (JobInfo::weight), else 1
    int batch_size = 0;              ///< the trace's total batch size (JobInfo::batch_size); 0 = not given
};

struct ResolvedJobs {
    std::vector<JobSpec> jobs;                      ///< in trace order
    std::map<std::uint32_t, std::string> rejected;  ///< job index -> why it can never run here
    std::uint64_t agnostic_jobs = 0;                ///< jobs whose model the profile lacks, run without one
    Tenants tenants;                                ///< the users' and VCs' names behind JobSpec::user, vc
};

/// What to do with a job whose model the profile does not know (run config `unknown_models`).
enum class UnknownModels {
    Error,     ///< an InputError naming the job and `--unknown-models agnostic`
    Agnostic,  ///< run it like a job without a model: equally fast on every type, its duration on its GPUs
};

/// Which GPU types a job may start on (run config `type_choice`).
enum class TypeChoice {
    Fastest,   ///< any type it can run on; the policy picks (policies/type_choice.hpp)
    Original,  ///< only the type its record says it ran on (JobRecord::gpu_type) when the cluster has that
               ///< type and it can hold the job; otherwise, as Fastest
};

/// The rate (iterations/s) a job of model m ran at on n GPUs of cluster type t in the original cluster,
/// where its trace duration was measured: its duration × this is its work. Unset: n × the single-GPU rate.
using OriginalRate = std::function<double(ModelIdx m, GpuTypeIdx t, int n)>;

/// Resolves every record; a record that names an unknown model or GPU type, or whose duration cannot
/// be turned into work, is an InputError with file:line (an unknown model only under UnknownModels::Error).
/// With `strict`, so is a job that can never run. `original_rate` (optional) converts durations on a
/// cluster type into work (the network model's rate alone on a consolidated placement). Under
/// TypeChoice::Original a job whose original type is in the cluster and can hold it has only that type
/// runnable.
ResolvedJobs resolve_jobs(const Trace& trace, const Cluster& cluster, const ProfileSet& profiles,
                          const RateModel& rates, bool strict, UnknownModels unknown_models = UnknownModels::Error,
                          const OriginalRate& original_rate = {}, TypeChoice type_choice = TypeChoice::Fastest);

}  // namespace dlsim
