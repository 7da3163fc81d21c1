#pragma once
// Who shares the cluster: the trace's users and virtual clusters (VCs), for the sharing policies (drf,
// vc-quota). JobInfo::user and JobInfo::vc carry a job's ids; this table holds the names behind them and
// the one trace-wide figure a policy cannot see from the jobs it is shown (vc-quota's default quotas).
#include <cstdint>
#include <string>
#include <vector>

namespace dlsim {

/// Dense ids: 0 = none recorded (the trace has no such column, or the job's cell is empty), 1.. = each
/// distinct name in order of first appearance in trace order (deterministic). Filled by resolve_jobs.
struct Tenants {
    std::vector<std::string> user_names{""};  ///< [user id]; [0] = "" (none recorded)
    std::vector<std::string> vc_names{""};    ///< [vc id]; [0] = "" (none recorded)
    /// [vc id]: GPU-seconds the VC's jobs used in the original cluster (Σ trace duration × num_gpus over
    /// all its jobs, rejected ones included): the basis of vc-quota's default quotas.
    std::vector<double> vc_gpu_seconds{0.0};
    /// [vc id]: how many jobs of the trace it has (id 0 may have none).
    std::vector<std::uint64_t> vc_jobs{0};
};

}  // namespace dlsim
