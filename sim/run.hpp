#pragma once
// One run end to end: load and validate every input, simulate, and write the result files.
#include "models/cluster.hpp"
#include "models/profile.hpp"
#include "sim/metrics.hpp"
#include "sim/run_config.hpp"
#include "sim/simulator.hpp"
#include "traces/job_record.hpp"

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

/// Reads the config's trace in its format and applies its filters and transforms.
Trace load_trace(const RunConfig& config);

/// Loads and validates the three input files named by the config.
RunInputs load_inputs(const RunConfig& config);

struct RunOutcome {
    std::string config_json;             ///< the resolved config, as echoed in the result
    Summary summary;
    Timeseries timeseries;
    std::vector<JobInfo> jobs;           ///< in trace order
    std::vector<GpuTypeIdx> job_gpu_type; ///< type of each job's longest allocation
    std::map<std::uint32_t, std::string> rejected;  ///< job index -> reason
    SimStats stats;
};

/// Simulates without writing any file (tests call this directly).
RunOutcome simulate(const RunInputs& inputs, const RunConfig& config);

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
