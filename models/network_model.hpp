#pragma once
// The network performance model (models/README.md): a job's rate is n GPUs ÷ its iteration time, the
// compute time of its profile overlapped with a ring all-reduce over its actual placement
// (models/iteration_time.hpp); jobs whose rings cross the same links share them by the contention mode.
//
// Jobs are fluid flows: a multi-node job has a footprint, the finite links its ring crosses, each with
// its `channels` (one per usable NIC). When an allocation appears or disappears, only the connected
// component of the job-link graph around it is re-rated; progress stays fluid between changes.
#include "models/calibration.hpp"
#include "models/iteration_time.hpp"
#include "models/performance_model.hpp"
#include "models/topology.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim {

/// How jobs that share a link divide it (models/README.md; run-config key `network`).
enum class ContentionMode : std::uint8_t {
    None,        ///< every job as if alone on the network: its own placement counts, nobody else does
    Penalty,     ///< no communication model: rate × a factor by the widest tier spanned (Synergy, Pollux)
    MaxMin,      ///< weighted max-min by progressive filling, every job always on the wire (pessimistic)
    Duty,        ///< equal sharing weighted by the others' duty cycles φ = T_comm / T_iter (default)
    Interleave,  ///< perfect interleaving: a link slows its jobs only when Σ φ > 1 (optimistic)
    Priority,    ///< Crux: jobs by descending GPU intensity; each gets what the higher ones leave
};

/// One contention mode by name: the one list that parsing, --help, `dlsim list networks` and the docs use.
struct ContentionModeInfo {
    ContentionMode mode;
    std::string_view name;
    std::string_view description;
};

/// Every contention mode, in the order --help lists them.
std::span<const ContentionModeInfo> contention_modes();
std::optional<ContentionMode> parse_contention_mode(std::string_view name);
std::string_view contention_mode_name(ContentionMode m);
/// The names joined by '|' ("none|penalty|..."), for messages and the run-config key's choices.
const char* contention_mode_names();

struct NetworkOptions {
    ContentionMode mode = ContentionMode::Duty;
    double tolerance = 1e-3;  ///< duty/interleave fixed point: stop at a relative change below this ...
    int max_sweeps = 10;      ///< ... or after this many sweeps
    /// A component with more jobs than this is re-rated by the full solve: every component of the
    /// cluster, each solved as it would be alone (the same numbers; no BFS bookkeeping).
    std::size_t full_solve_above = 4096;
    double penalty_rack = 0.8;  ///< `penalty`: spanning nodes of one leaf group (median of Synergy's placement_penalty)
    double penalty_pod = 0.7;   ///< `penalty`: spanning leaf groups [A]
};

/// A job's network figures over its whole run (for its result record).
struct JobNetworkRecord {
    std::uint32_t max_nodes = 0, max_racks = 0;  ///< the widest placement it held: nodes and racks spanned
    double run_seconds = 0;                      ///< time it held GPUs
    double comm_seconds = 0;                     ///< of which, communicating: ∫ T_comm / T_iter dt
    double slowdown_seconds = 0;  ///< ∫ isolated rate / rate dt (÷ run_seconds = mean slowdown vs alone)
};

struct NetworkSummary {
    std::string mode;
    std::string busiest_tier;             ///< the tier whose links are the most used on average ("" if none)
    double busiest_tier_utilization = 0;  ///< its links' mean utilisation over [origin, end]
    std::vector<std::pair<std::string, double>> tier_utilization;  ///< every tier with finite links
    std::uint64_t rerates = 0;                                     ///< component solves
    std::uint64_t jobs_rerated = 0;                                ///< jobs whose rate those solves recomputed
    std::uint64_t full_solves = 0;
};

class NetworkPerformance final : public PerformanceModel {
public:
    /// `models[m]`: how model m communicates (from its profile); jobs without a model never do.
    /// `calibrated[m]`, when set: model m's bandwidths and step latency fitted to measured placements
    /// (models/calibration.hpp), used instead of the topology's η × capacity for a job alone; under
    /// contention its inter-node bandwidth scales with its share of the links (x ÷ x alone).
    /// `measured_intra[m * types + t]` (models/measured_scaling.hpp), when > 0: model m's intra-node
    /// bandwidth on type t from measured multi-GPU throughputs, used instead of the node's η × bandwidth.
    /// Neither applies on an ideal network (a spec that describes no links): communication is free there.
    /// With measured rates (`rates.measured()`, the Gavel-compatible mode) a job's rate is the measured one,
    /// communication included, wherever it runs: the run config pairs that mode with `network none`.
    NetworkPerformance(const Topology& topology, const RateModel& rates, std::vector<CommModel> models,
                       NetworkOptions options, std::vector<std::optional<CommCalibration>> calibrated = {},
                       std::vector<double> measured_intra = {});

    void allocated(Time now, JobIdx j, ModelIdx model, const Allocation& a, std::vector<RateChange>& changed) override;
    void released(Time now, JobIdx j, const Allocation& a, std::vector<RateChange>& changed) override;
    double predicted_rate(ModelIdx model, const Allocation& a) const override;

    /// The rate of a job of model m alone on n GPUs of type t, placed as `consolidated` would on an empty
    /// cluster (the largest nodes of the type in one rack if one holds it, else the largest nodes overall):
    /// what the trace's original run is taken to have achieved (sim/job_spec.hpp OriginalRate).
    double alone_rate(ModelIdx m, GpuTypeIdx t, int n) const;
    /// Closes the time integrals at the run's end; `origin` is the first submission.
    void finish(Time origin, Time end);
    const JobNetworkRecord& record(JobIdx j) const;
    const NetworkSummary& summary() const { return summary_; }
    /// Wall time of each component solve (µs), for benchmarks; empty unless timing was asked for.
    const std::vector<float>& solve_micros() const { return solve_micros_; }
    void time_solves(bool on) { time_solves_ = on; }

    /// A job's current per-channel bandwidth (bytes/s) and duty cycle, for tests.
    double bandwidth(JobIdx j) const { return jobs_[j].x; }
    double duty(JobIdx j) const { return jobs_[j].phi; }
    double comm_seconds_now(JobIdx j) const;

private:
    struct Job {
        bool active = false;
        ModelIdx model = kNoModel;
        GpuTypeIdx type = 0;
        int gpus = 0, nodes = 0, leaves = 0, racks = 0, channels = 1;
        double t_comp = 0;          // s per iteration of one GPU's local batch
        double intra = kUnlimited;  // η × slowest intra-node edge, bytes/s
        double nic_eff = 1;
        double cap = kUnlimited;  // per-channel cap: one NIC's speed
        double inter_fitted = 0;  // > 0: the calibrated inter-node bandwidth alone (bytes/s)
        double alpha = 0;
        double x = 0, x_iso = 0, phi = 0, rate = 0, iso_rate = 0;
        double intensity = 0;              // compute per communication (Crux's GPU intensity), for `priority`
        std::vector<LinkIdx> links;        // finite links its ring crosses
        std::vector<std::uint32_t> slots;  // its index in each link's resident list
        std::uint32_t mark = 0, seen = 0;  // BFS epochs
        std::uint32_t pos = 0;             // index in the component being solved
        Time since = 0;                    // integrals are up to date until here
    };
    struct LinkState {
        std::vector<JobIdx> jobs;
        double demand = 0;    // Σ channels × φ of its jobs (what a newcomer competes with under `duty`)
        double load = 0;      // bytes/s carried on average: Σ channels × x × φ
        double integral = 0;  // ∫ load dt (byte)
        Time since = 0;
        std::uint32_t mark = 0;
        double scratch = 0;  // per solve: others' demand, frozen load, or used fraction
        double weight = 0;   // maxmin: channels of its unfrozen jobs
        double level = 0;    // maxmin: the level at which it fills (its live heap entry)
    };

    /// A job's ring on `a`: GPUs, nodes, slowest edges, latency, channels, footprint, isolated rate.
    void shape(Job& job, const Allocation& a) const;
    /// How the job's model communicates (nothing without a model).
    const CommModel& comm_of(const Job& job) const;
    /// Effective bandwidth of the job's inter-node ring edge at per-channel bandwidth x.
    double inter_bandwidth(const Job& job, double x) const;
    /// The job's rate at per-channel bandwidth x (and its duty cycle into phi).
    double rate_at(const Job& job, double x, double* phi) const;
    void attach(JobIdx j);
    void detach(JobIdx j);
    /// Collects the component reachable from `seeds` (links) into comp_jobs_/comp_links_.
    void collect(std::span<const LinkIdx> seeds, JobIdx also);
    /// Re-rates the collected component (or, past the threshold, every component); `first` is reported first.
    void solve(Time now, std::vector<RateChange>& changed, JobIdx first);
    /// New per-channel bandwidths of the collected component into next_x_, by the contention mode.
    void solve_component(Time now);
    /// Takes next_x_ as the component's bandwidths: rates, changes reported, link loads.
    void apply(std::vector<RateChange>& changed, JobIdx first);
    /// A link's demand (Σ channels × φ) and load (Σ channels × x × φ) from its jobs.
    void refresh_load(LinkIdx l);
    /// `none` and `penalty`: no job's rate depends on another's, so a change re-rates the job alone.
    bool independent() const { return opt_.mode == ContentionMode::None || opt_.mode == ContentionMode::Penalty; }
    void account(Time now, JobIdx j);
    void account_link(Time now, LinkIdx l);

    const Topology& topo_;
    const RateModel& rates_;
    std::vector<CommModel> models_;
    NetworkOptions opt_;
    std::vector<std::optional<CommCalibration>> calibrated_;
    std::vector<double> measured_intra_;
    std::vector<Job> jobs_;
    std::vector<JobNetworkRecord> records_;
    std::vector<LinkState> links_;
    NetworkSummary summary_;
    std::uint32_t epoch_ = 0;
    // Scratch (no allocation per event once grown).
    std::vector<JobIdx> comp_jobs_, order_, full_;
    std::vector<LinkIdx> comp_links_, seeds_;
    std::vector<double> next_x_, next_phi_;
    std::vector<std::pair<double, LinkIdx>> heap_;  // maxmin: (fill level, link)
    std::vector<LinkIdx> dirty_;                    // maxmin: links whose fill level changed in this event
    mutable std::vector<std::uint32_t> count_;      // per vertex: the job's nodes below it
    mutable std::vector<VertexIdx> touched_, ring_;
    mutable Job probe_;
    std::vector<float> solve_micros_;
    bool time_solves_ = false;
};

}  // namespace dlsim
