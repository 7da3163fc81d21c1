#include "models/calibration.hpp"

#include "models/base/input_error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace dlsim {

namespace {

constexpr std::size_t kMaxNodes = 4096;

// ---- the parameter vector: each parameter bounded, searched over an unbounded z ----------------------
// A positive parameter is exp(lo + (hi − lo)·σ(z)): the search moves in orders of magnitude and can never
// leave the box (a bandwidth far above anything physical just means "never the bottleneck").
struct Bound {
    double lo, hi;  // of log(value); γ is linear in [1, 10]
    bool log;
};
enum Param { kIntercept, kPerSample, kIntra, kInter, kLatency, kGamma, kParams };
constexpr std::array<Bound, kParams> kBounds{{
    {-20.7, 6.9, true},  // α_c: 1e-9 .. 1e3 s
    {-27.6, 4.6, true},  // β_c: 1e-12 .. 1e2 s/sample
    {13.8, 29.9, true},  // intra: 1e6 .. 1e13 B/s
    {13.8, 29.9, true},  // inter: 1e6 .. 1e13 B/s
    {-20.7, 0.0, true},  // α: 1e-9 .. 1 s
    {1.0, 10.0, false},  // γ, Pollux's bounds (petuum/adaptdl goodput.py)
}};

double sigmoid(double z) { return 1 / (1 + std::exp(-z)); }

double from_z(Param p, double z) {
    const Bound& b = kBounds[p];
    const double v = b.lo + (b.hi - b.lo) * sigmoid(z);
    return b.log ? std::exp(v) : v;
}

double to_z(Param p, double value) {
    const Bound& b = kBounds[p];
    const double v = b.log ? std::log(value) : value;
    const double f = std::clamp((v - b.lo) / (b.hi - b.lo), 1e-6, 1 - 1e-6);
    return std::log(f / (1 - f));
}

using Vec = std::array<double, kParams>;

CommCalibration to_calibration(const Vec& z, double fixed_gamma) {
    CommCalibration c;
    c.compute_intercept_s = from_z(kIntercept, z[kIntercept]);
    c.compute_per_sample_s = from_z(kPerSample, z[kPerSample]);
    c.intra_bytes_per_s = from_z(kIntra, z[kIntra]);
    c.inter_bytes_per_s = from_z(kInter, z[kInter]);
    c.step_latency_s = from_z(kLatency, z[kLatency]);
    c.gamma = fixed_gamma > 0 ? fixed_gamma : from_z(kGamma, z[kGamma]);
    return c;
}

// ---- Nelder–Mead (standard coefficients: reflect 1, expand 2, contract ½, shrink ½) -----------------
struct Minimum {
    Vec x{};
    double f = std::numeric_limits<double>::infinity();
};

Minimum nelder_mead(const std::function<double(const Vec&)>& f, const Vec& start, int dims, double step, int max_evals,
                    int& evals) {
    const int n = dims;
    std::vector<Vec> x(n + 1, start);
    std::vector<double> fx(n + 1);
    for (int i = 0; i < n; ++i) x[i + 1][i] += step;
    for (int i = 0; i <= n; ++i) fx[i] = f(x[i]);
    evals += n + 1;
    std::vector<int> order(n + 1);
    auto point = [&](const Vec& from, const Vec& to, double t) {  // from + t·(to − from)
        Vec r = from;
        for (int i = 0; i < n; ++i) r[i] = from[i] + t * (to[i] - from[i]);
        return r;
    };
    while (evals < max_evals) {
        for (int i = 0; i <= n; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return fx[a] < fx[b]; });
        const int best = order[0], worst = order[n], second = order[n - 1];
        double size = 0;
        for (int i = 0; i <= n; ++i)
            for (int k = 0; k < n; ++k) size = std::max(size, std::abs(x[i][k] - x[best][k]));
        // Converged when the simplex's values agree; its size is no test, since a parameter pressed
        // against its bound (a bandwidth that is never the bottleneck) leaves a flat direction.
        if (fx[worst] - fx[best] <= 1e-8 * fx[best] + 1e-300 || size <= 1e-10) break;
        Vec centroid{};
        for (int i = 0; i <= n; ++i)
            if (i != worst)
                for (int k = 0; k < n; ++k) centroid[k] += x[i][k] / n;
        const Vec xr = point(centroid, x[worst], -1);
        const double fr = f(xr);
        ++evals;
        if (fr < fx[best]) {
            const Vec xe = point(centroid, x[worst], -2);
            const double fe = f(xe);
            ++evals;
            if (fe < fr)
                x[worst] = xe, fx[worst] = fe;
            else
                x[worst] = xr, fx[worst] = fr;
            continue;
        }
        if (fr < fx[second]) {
            x[worst] = xr, fx[worst] = fr;
            continue;
        }
        const bool outside = fr < fx[worst];
        const Vec xc = outside ? point(centroid, xr, 0.5) : point(centroid, x[worst], 0.5);
        const double fc = f(xc);
        ++evals;
        if (outside ? fc <= fr : fc < fx[worst]) {
            x[worst] = xc, fx[worst] = fc;
            continue;
        }
        for (int i = 0; i <= n; ++i) {
            if (i == best) continue;
            x[i] = point(x[best], x[i], 0.5);
            fx[i] = f(x[i]);
            ++evals;
        }
    }
    Minimum m;
    for (int i = 0; i <= n; ++i)
        if (fx[i] < m.f) m.f = fx[i], m.x = x[i];
    return m;
}

// Points that the model cannot tell apart (same ring shape and local batch) share one prediction p, so
// Σ (p/y − 1)² over them is p²·Σ1/y² − 2p·Σ1/y + k: the objective costs one prediction per group.
struct Group {
    std::size_t shape;  // index into the distinct shapes
    std::size_t batch;  // index into the distinct local batches
    int local_bsz;
    bool single;  // one GPU: T_comp alone
    double inv_sq = 0, inv = 0, count = 0;
};

// T_comp's starting point: least squares on the single-GPU points (no communication there); Pollux's
// α_c = β_c·b = t/2 when they hold one batch size or none.
std::pair<double, double> compute_start(const std::vector<Group>& groups) {
    double n = 0, sb = 0, st = 0, sbb = 0, sbt = 0;
    for (const auto& g : groups) {
        if (!g.single) continue;
        const double t = g.inv / g.inv_sq;  // a typical step time of the group
        n += 1, sb += g.local_bsz, st += t, sbb += double(g.local_bsz) * g.local_bsz, sbt += g.local_bsz * t;
    }
    const double det = n * sbb - sb * sb;
    if (n >= 2 && det > 0) {
        const double beta = (n * sbt - sb * st) / det, alpha = (st - beta * sb) / n;
        if (alpha > 0 && beta > 0) return {alpha, beta};
    }
    // The fastest group's time, split evenly between the two terms.
    const Group* fast = &groups.front();
    for (const auto& g : groups)
        if (g.inv > 0 && g.inv / g.inv_sq < fast->inv / fast->inv_sq) fast = &g;
    const double t = fast->inv / fast->inv_sq;
    return {t / 2, t / 2 / fast->local_bsz};
}

}  // namespace

PlacementShape parse_placement(std::string_view placement) {
    if (placement.empty() || placement.size() > kMaxNodes)
        throw InputError(
            fmt::format("placement \"{}\": expected 1 to {} digits 1-9 (GPUs on each node)", placement, kMaxNodes));
    PlacementShape s;
    for (char ch : placement) {
        if (ch < '1' || ch > '9')
            throw InputError(fmt::format("placement \"{}\": expected digits 1-9 (GPUs on each node)", placement));
        s.gpus += ch - '0';
        s.intra = s.intra || ch >= '2';
    }
    s.nodes = static_cast<int>(placement.size());
    return s;
}

RingLinks ring_links(const PlacementShape& shape, const CommCalibration& c) {
    RingLinks r;
    r.gpus = shape.gpus;
    r.nodes = shape.nodes;
    if (shape.intra) r.intra_bytes_per_s = c.intra_bytes_per_s;
    if (shape.nodes >= 2) r.inter_bytes_per_s = c.inter_bytes_per_s;
    r.step_latency_s = c.step_latency_s;
    return r;
}

double predict_step_seconds(const CommCalibration& c, const CommModel& base, std::string_view placement,
                            int local_bsz) {
    CommModel m = base;
    m.gamma = c.gamma;
    return iteration_seconds(c.compute_seconds(local_bsz), m, ring_links(parse_placement(placement), c));
}

CommCalibration fit_placements(const std::vector<PlacementPoint>& points, const CommModel& base,
                               const FitOptions& options) {
    if (points.empty()) throw InternalError("fit_placements: no points");
    // Ordered maps: the groups, and so the objective's sum, come in a fixed order.
    std::map<std::tuple<int, int, bool>, std::size_t> shape_index;
    std::map<int, std::size_t> batch_index;
    std::map<std::tuple<int, int, bool, int>, Group> by_key;
    for (const auto& p : points) {
        const PlacementShape s = parse_placement(p.placement);
        shape_index.emplace(std::tuple{s.gpus, s.nodes, s.intra}, 0);
        batch_index.emplace(p.local_bsz, 0);
        Group& g = by_key[{s.gpus, s.nodes, s.intra, p.local_bsz}];
        g.local_bsz = p.local_bsz, g.single = s.gpus == 1;
        g.inv_sq += 1 / (p.step_time * p.step_time), g.inv += 1 / p.step_time, g.count += 1;
    }
    std::vector<PlacementShape> shapes;
    for (auto& [key, index] : shape_index) {
        index = shapes.size();
        shapes.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key)});
    }
    std::vector<int> batches;
    for (auto& [b, index] : batch_index) index = batches.size(), batches.push_back(b);
    std::vector<Group> groups;
    for (auto& [key, g] : by_key) {
        g.shape = shape_index.at({std::get<0>(key), std::get<1>(key), std::get<2>(key)});
        g.batch = batch_index.at(std::get<3>(key));
        groups.push_back(g);
    }

    // iteration_seconds(T_comp, m, ring) is overlapped_seconds(T_comp, comm_seconds(m, ring), γ): each half
    // is computed once per distinct batch and ring shape, then combined per group.
    const double fixed_gamma = options.fixed_gamma;
    std::vector<double> t_comp(batches.size()), t_comm(shapes.size());
    auto sum_over = [&](const Vec& z, const std::vector<Group>& over) {
        const CommCalibration c = to_calibration(z, fixed_gamma);
        CommModel m = base;
        m.gamma = c.gamma;
        for (std::size_t i = 0; i < batches.size(); ++i) t_comp[i] = c.compute_seconds(batches[i]);
        for (std::size_t i = 0; i < shapes.size(); ++i) t_comm[i] = comm_seconds(m, ring_links(shapes[i], c));
        double sum = 0;
        for (const auto& g : over) {
            const double p = overlapped_seconds(t_comp[g.batch], t_comm[g.shape], m.gamma);
            sum += p * p * g.inv_sq - 2 * p * g.inv + g.count;
        }
        return std::isfinite(sum) ? std::max(sum, 0.0) : std::numeric_limits<double>::infinity();
    };
    // The search runs on every k-th group (at most kCoarseGroups of them) and only the last run on all:
    // the cost of a fit then hardly grows with the number of points.
    constexpr std::size_t kCoarseGroups = 160;
    const std::size_t stride = (groups.size() + kCoarseGroups - 1) / kCoarseGroups;
    std::vector<Group> coarse_groups;
    for (std::size_t i = 0; i < groups.size(); i += stride) coarse_groups.push_back(groups[i]);
    auto coarse = [&](const Vec& z) { return sum_over(z, coarse_groups); };
    auto objective = [&](const Vec& z) { return sum_over(z, groups); };

    // Starting points: T_comp from the single-GPU points; the network parameters from a coarse grid
    // (NVLink-class to slow cloud TCP), whose two best points each start a Nelder–Mead run. The better
    // result is then restarted on all groups from a fresh, smaller simplex (a collapsed simplex can stall).
    const auto [alpha_c, beta_c] = compute_start(groups);
    const int dims = fixed_gamma > 0 ? kParams - 1 : kParams;
    constexpr std::array<double, 4> kBandwidths{1e8, 1e9, 1e10, 1e11};
    constexpr std::array<double, 4> kLatencies{1e-6, 1e-5, 1e-4, 1e-3};
    constexpr std::array<double, 3> kGammas{1.2, 2.0, 4.0};
    int evals = 0;
    Minimum first, second;
    for (double intra : kBandwidths)
        for (double inter : kBandwidths)
            for (double latency : kLatencies)
                for (double gamma : kGammas) {
                    if (inter > intra) continue;  // the network is no faster than a node's own links
                    Minimum m;
                    m.x[kIntercept] = to_z(kIntercept, alpha_c);
                    m.x[kPerSample] = to_z(kPerSample, beta_c);
                    m.x[kIntra] = to_z(kIntra, intra);
                    m.x[kInter] = to_z(kInter, inter);
                    m.x[kLatency] = to_z(kLatency, latency);
                    m.x[kGamma] = to_z(kGamma, gamma);
                    m.f = coarse(m.x);
                    ++evals;
                    if (m.f < first.f)
                        second = first, first = m;
                    else if (m.f < second.f)
                        second = m;
                }
    Minimum best;
    for (const Minimum& start : {first, second}) {
        const Minimum m = nelder_mead(coarse, start.x, dims, 0.5, evals + 1500, evals);
        if (m.f < best.f) best = m;
    }
    best = nelder_mead(objective, best.x, dims, 0.1, evals + 600, evals);
    if (options.stats != nullptr) *options.stats = {evals, groups.size(), best.f};
    CommCalibration c = to_calibration(best.x, fixed_gamma);
    c.gpu_type = points.front().gpu_type;
    return c;
}

double placement_mape(const CommCalibration& c, const CommModel& base, const std::vector<PlacementPoint>& points) {
    if (points.empty()) return 0;
    double sum = 0;
    for (const auto& p : points)
        sum += std::abs(predict_step_seconds(c, base, p.placement, p.local_bsz) / p.step_time - 1);
    return 100 * sum / static_cast<double>(points.size());
}

}  // namespace dlsim
