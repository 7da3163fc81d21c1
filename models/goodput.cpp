#include "models/goodput.hpp"

#include <algorithm>
#include <cmath>

namespace dlsim {

namespace {

// Tolerance of Pollux's ceil: a batch that is an integer up to rounding is not split one step further.
constexpr double kEps = 1e-8;
// Pollux's batch choice samples this many total batch sizes.
constexpr int kCandidates = 50;

int ceil_eps(double x) { return static_cast<int>(std::ceil(x - kEps)); }

// Tables hold rows 0 .. max_epochs − 1 at least; an epoch past the last (a finished job) reads the last.
std::size_t row(const GoodputProfile& g, int epoch) {
    return static_cast<std::size_t>(std::clamp(epoch, 0, std::max(g.max_epochs - 1, 0)));
}

// Linear in the batch size between the validated batch sizes around `batch_size`, clamped to their range
// (Pollux's _validated_batch_sizes and the interpolation of get_grad_stats / get_iteration).
double interpolate(const GoodputProfile& g, const std::vector<std::vector<double>>& table, double batch_size,
                   int epoch) {
    const std::size_t r = row(g, epoch);
    const auto& sizes = g.batch_sizes;
    if (batch_size <= sizes.front()) return table.front()[r];
    if (batch_size >= sizes.back()) return table.back()[r];
    // First validated size >= batch_size; the one before it is < batch_size.
    const auto up = static_cast<std::size_t>(
        std::lower_bound(sizes.begin(), sizes.end(), batch_size, [](int s, double b) { return s < b; }) -
        sizes.begin());
    const double hi_b = sizes[up];
    if (hi_b == batch_size) return table[up][r];
    const double lo_b = sizes[up - 1];
    return ((batch_size - lo_b) * table[up][r] + (hi_b - batch_size) * table[up - 1][r]) / (hi_b - lo_b);
}

// Pollux's split of a local batch into (atomic_bsz, accum_steps): as few micro-batches of at most
// max_local_bsz as fit, and at least one accumulation step on one GPU above M0 (its gradient statistics
// need two micro-batches).
BatchConfig split(const GoodputProfile& g, int max_local, int replicas, double local_bsz, double total) {
    BatchConfig b;
    b.accum_steps = ceil_eps(local_bsz / max_local) - 1;
    if (replicas == 1 && total > g.init_batch_size + kEps) b.accum_steps = std::max(b.accum_steps, 1);
    b.atomic_bsz = ceil_eps(local_bsz / (b.accum_steps + 1));
    return b;
}

// The simulator's cap: the total batch never exceeds max_batch_size.
void cap(const GoodputProfile& g, int replicas, BatchConfig& b) {
    const int count = replicas * (b.accum_steps + 1);
    b.atomic_bsz = std::min(b.atomic_bsz, g.max_batch_size / count);
}

}  // namespace

double GoodputProfile::epoch_start(int epoch) const {
    if (epoch <= 0 || progress.empty()) return 0;
    const auto r = static_cast<std::size_t>(std::min(epoch, max_epochs) - 1);
    double least = progress.front()[r];
    for (const auto& p : progress) least = std::min(least, p[r]);
    return init_batch_size * least;
}

int GoodputProfile::epoch_at(double samples) const {
    // epoch_start is non-decreasing in the epoch (every table's progress is): count by bisection.
    int lo = 0, hi = max_epochs;  // epochs 1 .. lo start at or before `samples`; lo .. hi unknown
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (epoch_start(mid) <= samples)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

std::pair<double, double> GoodputProfile::grad_stats(double batch_size, int epoch) const {
    return {interpolate(*this, grad_sqr, batch_size, epoch), interpolate(*this, grad_var, batch_size, epoch)};
}

double GoodputProfile::iterations_at(double batch_size, int epoch) const {
    return interpolate(*this, iterations, batch_size, epoch);
}

const PerfParams* GoodputProfile::perf_for(const std::string& gpu_type) const {
    const auto it = perf.find(gpu_type);
    return it == perf.end() ? nullptr : &it->second;
}

const MeasuredSteps* GoodputProfile::measured_for(const std::string& gpu_type) const {
    const auto it = measured.find(gpu_type);
    return it == measured.end() ? nullptr : &it->second;
}

double step_seconds(const PerfParams& p, int nodes, int replicas, BatchConfig b) {
    const double accum = p.alpha_c + p.beta_c * b.atomic_bsz;
    // The slowest link the all-reduce crosses; a lone GPU has none (Pollux's 1e-8 stand-ins).
    double alpha = kEps, beta = kEps;
    if (nodes > 1)
        alpha = p.alpha_n, beta = p.beta_n;
    else if (replicas > 1)
        alpha = p.alpha_r, beta = p.beta_r;
    const double network = alpha + beta * std::max(replicas - 2.0, kEps);
    const double optim = std::pow(std::pow(accum, p.gamma) + std::pow(network, p.gamma), 1 / p.gamma);
    return b.accum_steps * accum + optim;
}

double efficiency(double grad_sqr, double grad_var, double init_batch_size, double batch_size) {
    const double scale = batch_size / init_batch_size;
    const double denom = grad_var / scale + grad_sqr;
    const double gain = denom > 0 ? (grad_var + grad_sqr) / denom : 1.0;
    return gain / scale;
}

GoodputPoint evaluate(const GoodputProfile& g, const PerfParams& p, int nodes, int replicas, BatchConfig b, int epoch) {
    GoodputPoint out;
    out.batch = b;
    out.batch_size = replicas * b.atomic_bsz * (b.accum_steps + 1);
    if (out.batch_size <= 0) return out;
    out.step_seconds = step_seconds(p, nodes, replicas, b);
    out.throughput = out.batch_size / out.step_seconds;
    const auto [sqr, var] = g.grad_stats(out.batch_size, epoch);
    out.efficiency = efficiency(sqr, var, g.init_batch_size, out.batch_size);
    out.goodput = out.throughput * out.efficiency;
    return out;
}

GoodputPoint best_batch(const GoodputProfile& g, const PerfParams& p, int nodes, int replicas, int epoch) {
    const int min_local = g.min_local(p), max_local = g.max_local(p);
    if (replicas < 1 || static_cast<long long>(replicas) * min_local > g.max_batch_size) return {};
    // The job knows the noise scale it measures: the statistics at M0 for the whole candidate sweep.
    const auto [sqr, var] = g.grad_stats(g.init_batch_size, epoch);
    const double lo = std::max<double>(g.init_batch_size, static_cast<double>(min_local) * replicas);
    const double hi = g.max_batch_size;
    // numpy.geomspace(lo, hi, 50): log-spaced, the ends exact.
    const double log_lo = std::log10(lo), step = (std::log10(hi) - log_lo) / (kCandidates - 1);
    double best = 0;
    BatchConfig chosen;
    bool found = false;
    for (int i = 0; i < kCandidates; ++i) {
        const double total = i == 0 ? lo : i == kCandidates - 1 ? hi : std::pow(10.0, log_lo + i * step);
        const BatchConfig b = split(g, max_local, replicas, total / replicas, total);
        if (b.atomic_bsz < min_local || b.atomic_bsz > max_local) continue;
        const double m = static_cast<double>(replicas) * b.atomic_bsz * (b.accum_steps + 1);
        const double gp = m / step_seconds(p, nodes, replicas, b) * efficiency(sqr, var, g.init_batch_size, m);
        if (!found || gp > best) best = gp, chosen = b, found = true;  // the first maximum wins
    }
    if (!found) return {};
    cap(g, replicas, chosen);
    return evaluate(g, p, nodes, replicas, chosen, epoch);
}

GoodputPoint fixed_batch(const GoodputProfile& g, const PerfParams& p, int nodes, int replicas, int batch_size,
                         int epoch) {
    if (replicas < 1 || batch_size < 1) return {};
    const double local = ceil_eps(static_cast<double>(batch_size) / replicas);
    BatchConfig b = split(g, g.max_local(p), replicas, local, batch_size);
    cap(g, replicas, b);
    if (b.atomic_bsz < 1) return {};
    return evaluate(g, p, nodes, replicas, b, epoch);
}

}  // namespace dlsim
