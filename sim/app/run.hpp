#pragma once
// One run end to end: load and validate every input, simulate, and write the result files.
#include "models/cluster.hpp"
#include "models/elastic_performance.hpp"
#include "models/profile.hpp"
#include "sim/app/resolved_run.hpp"
#include "sim/app/run_config.hpp"
#include "sim/metrics.hpp"
#include "sim/simulator.hpp"
#include "traces/job_record.hpp"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dlsim {

struct RunInputs {
    Cluster cluster;
    ProfileSet profiles;
    Trace trace;
    std::string cluster_sha256, profiles_sha256, trace_sha256;  ///< empty for inputs built in memory
};

/// Reads the config's trace in its format and applies its filters and transforms (the config is checked:
/// check_run_config or resolve).
Trace load_trace(const RunConfig& config);

/// Loads and validates the three input files named by the config.
RunInputs load_inputs(const RunConfig& config);

/// A run's id (a sweep's result file name): the first 16 hex digits of the SHA-256 of the resolved
/// parameters that identify it. Those are the config as echoed in the result without input paths, the
/// reader's report and the cluster's size (all follow from the files' contents), and with the trace
/// format as requested ("auto" is deterministic given the content). A moved checkout or results folder
/// keeps its run ids.
std::string run_id(const ResolvedRun& run, const InputHashes& hashes);
/// The same for a config not yet resolved (resolve's InputErrors).
std::string run_id(const RunConfig& config, const InputHashes& hashes);

struct RunOutcome {
    std::string run_id;
    std::string config_json;  ///< the resolved config, as echoed in the result
    Summary summary;
    Timeseries timeseries;
    std::vector<JobInfo> jobs;                      ///< in trace order
    std::vector<GpuTypeIdx> job_gpu_type;           ///< type of each job's longest allocation
    std::vector<double> ftf_rho;                    ///< each job's finish-time fairness ρ (-1 unless finished)
    std::vector<WaitTotals> waited;                 ///< per job: time queued per wait reason
    std::map<std::uint32_t, std::string> rejected;  ///< job index -> reason
    std::vector<JobNetworkRecord> network;          ///< per job: placement shape, slowdown, communication
    std::vector<ElasticJobStats> elastic;           ///< per job with goodput data (empty: no elastic model)
    /// Per job, the cluster-wide GPUs it ever held, ascending (only for jobs_csv_format batsim).
    std::vector<std::vector<GpuIdx>> held_gpus;
    std::vector<float> network_solve_micros;  ///< wall time of each solve, if config.time_network_solves
    SimStats stats;
};

/// Simulates without writing any file (tests call this directly). `progress`, if set, is called every
/// few thousand events with the simulated time and the number of finished jobs.
RunOutcome simulate(const RunInputs& inputs, const ResolvedRun& run, const ProgressFn& progress = {});
/// The same for a config not yet resolved (resolve's InputErrors).
RunOutcome simulate(const RunInputs& inputs, const RunConfig& config, const ProgressFn& progress = {});

struct RunSelfProfile {
    double wall_seconds = 0;
    double peak_rss_mb = 0;
};

/// Peak resident memory of this process so far, in MiB.
double peak_rss_mb();

/// The build's version (git describe at configure time).
const char* dlsim_version();

/// Writes the result JSON (temp file, then rename) and, if asked, the job CSV.
void write_outputs(const RunInputs& inputs, const RunConfig& config, const RunOutcome& outcome,
                   const RunSelfProfile& self);

}  // namespace dlsim
