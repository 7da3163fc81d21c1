#include "policies/elastic/pollux.hpp"

#include "policies/elastic/elastic_jobs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlsim {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::uint8_t kNoChoice = 0xff;

/// Job j's shape now: nodes and GPUs it holds (0 when queued).
PolluxPolicy::Shape current_shape(const ClusterView& view, JobIdx j) {
    const Allocation& a = view.allocation(j);
    return {static_cast<int>(a.shares.size()), a.num_gpus()};
}

}  // namespace

void PolluxPolicy::grow(JobIdx j) {
    if (j >= max_held_.size()) {
        max_held_.resize(static_cast<std::size_t>(j) + 1, 0);
        allocations_.resize(static_cast<std::size_t>(j) + 1, 0);
        belief_.resize(static_cast<std::size_t>(j) + 1, kAnyType);
    }
}

void PolluxPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    for (JobIdx j : changes.arrived) grow(j);
    track_arrival_order(active_, changes);
    // Decisions only at the interval's multiples: arrivals and completions in between wait for the next
    // tick (the artifact's simulator steps in whole intervals).
    if (!interval_tick(view, changes, o_.interval, !active_.empty(), out)) return;
    if (o_.type_unaware) {
        const Pool pool = unaware_pool(view.cluster());
        if (pool.total == 0) return;
        const std::vector<Shape> shapes = plan_unaware(view);
        apply_unaware(view, pool, shapes, out);
        return;
    }
    const GpuTypeIdx type = elastic_pool_type(view.cluster());  // Pollux schedules one pool
    const std::vector<Shape> shapes = plan(view, type);
    apply(view, type, shapes, out);
}

std::vector<PolluxPolicy::Shape> PolluxPolicy::plan(const ClusterView& view, GpuTypeIdx type) {
    const Cluster& cluster = view.cluster();
    int nodes_of_type = 0;
    for (const Node& n : cluster.nodes) nodes_of_type += n.gpu_type == type;
    return plan_pool(view, {type, cluster.gpus_of_type(type), cluster.max_node_gpus(type), nodes_of_type, o_.max_gpus});
}

std::vector<PolluxPolicy::Shape> PolluxPolicy::plan_unaware(const ClusterView& view) {
    for (JobIdx j : active_) {  // a job's belief follows the type it runs on
        const Allocation& a = view.allocation(j);
        if (a.num_gpus() > 0) belief_[j] = a.gpu_type;
    }
    return plan_pool(view, unaware_pool(view.cluster()));
}

PolluxPolicy::Pool PolluxPolicy::unaware_pool(const Cluster& cluster) const {
    // Sia's harness (cluster_unaware.py): every node cut into virtual nodes of the smallest node's GPU
    // count, all of them one list for Pollux; a job holds at most as many GPUs as the smallest type has
    // (multi_simulator_unaware.py's max_num_replicas), so that it fits on any one type.
    Pool pool{kAnyType, 0, 0, 0, o_.max_gpus};
    for (const Node& n : cluster.nodes)
        if (n.gpus > 0 && (pool.unit == 0 || n.gpus < pool.unit)) pool.unit = n.gpus;
    if (pool.unit == 0) return pool;
    for (const Node& n : cluster.nodes) pool.units += n.gpus / pool.unit;
    pool.total = pool.units * pool.unit;
    for (GpuTypeIdx t = 0; t < cluster.gpu_types.size(); ++t)
        if (cluster.gpus_of_type(t) > 0) pool.job_cap = std::min(pool.job_cap, cluster.gpus_of_type(t));
    return pool;
}

std::vector<PolluxPolicy::Shape> PolluxPolicy::plan_pool(const ClusterView& view, const Pool& pool) {
    const ElasticView* elastic = view.elastic();
    const int total = pool.total;
    const int node_gpus = pool.unit;
    const int nodes_of_type = pool.units;
    const bool blind = pool.type == kAnyType;

    // The shapes: 1, 2, 4 … GPUs on one node (and the node itself), then k whole nodes.
    shapes_.assign(1, Shape{0, 0});
    for (int g = 1; g < node_gpus; g *= 2) shapes_.push_back({1, g});
    shapes_.push_back({1, node_gpus});
    for (int k = 2; k <= std::min(o_.max_nodes, nodes_of_type); ++k) shapes_.push_back({k, k * node_gpus});

    const std::size_t jobs = active_.size();
    const std::size_t n_shapes = shapes_.size();
    const double now = to_seconds(view.now());
    const double scale = static_cast<double>(nodes_of_type) / total;  // one node's dominant share = 1
    const int fair = static_cast<int>(std::ceil(static_cast<double>(total) / static_cast<double>(jobs)));
    cost_.assign(jobs * n_shapes, kInf);
    speedup_.assign(jobs * n_shapes, 0.0);
    for (std::size_t i = 0; i < jobs; ++i) {
        const JobIdx j = active_[i];
        const JobInfo& info = view.job(j);
        const Shape now_shape = current_shape(view, j);
        const GoodputProfile* g = elastic ? elastic->goodput(j) : nullptr;
        int cap = std::min({pool.job_cap, info.max_gpus, std::max(2 * max_held_[j], 1)});
        if (g == nullptr) cap = info.num_gpus;  // a rigid job: its gang or nothing
        // The belief: the pool's type; type-blind, the type the job has run on (its measurements), and
        // before it ran none: Sia's harness then takes the speedup as linear in GPUs (job.py).
        const GpuTypeIdx type = blind ? belief_[j] : pool.type;
        const bool linear = g == nullptr || type == kAnyType;
        double base = 0;
        if (!linear)
            for (int f = std::min(fair, o_.max_gpus); f >= 1 && base <= 0; --f)
                base = elastic->predict(j, type, 1, f).goodput;
        const double age = now - to_seconds(info.submit);
        const double restarts = std::max(allocations_[j] - 1, 0);
        const double restart_factor = std::max(age - restarts * o_.restart_delay, 0.0) / (age + o_.restart_delay);
        for (std::size_t c = 0; c < n_shapes; ++c) {
            const Shape& s = shapes_[c];
            if (s.gpus > cap || (g == nullptr && s.gpus != 0 && s.gpus != info.num_gpus)) continue;
            if (g == nullptr && s.gpus != 0 && s.nodes != (info.num_gpus + node_gpus - 1) / node_gpus) continue;
            double sp = 0;
            if (s.gpus > 0) {
                sp = !linear ? (base > 0 ? elastic->predict(j, type, s.nodes, s.gpus).goodput / base : 0)
                             : static_cast<double>(s.gpus) / fair;
                sp *= scale;
                if (!(s == now_shape)) sp *= restart_factor;
            }
            speedup_[i * n_shapes + c] = sp;
            double cost;
            if (o_.p < 0)
                cost = std::pow(sp + 1e-3, o_.p);
            else if (o_.p > 0)
                cost = -std::pow(sp + 1e-3, o_.p);
            else
                cost = -std::log(std::max(sp, 1e-3));
            cost_[i * n_shapes + c] = cost;
        }
    }

    // Minimum of the summed costs with at most `total` GPUs: DP over jobs × GPUs used.
    const std::size_t width = static_cast<std::size_t>(total) + 1;
    best_.assign(width, kInf);
    best_[0] = 0;
    choice_.assign(jobs * width, kNoChoice);
    for (std::size_t i = 0; i < jobs; ++i) {
        next_.assign(width, kInf);
        for (std::size_t used = 0; used < width; ++used) {
            if (best_[used] == kInf) continue;
            for (std::size_t c = 0; c < n_shapes; ++c) {
                const double cost = cost_[i * n_shapes + c];
                const std::size_t to = used + static_cast<std::size_t>(shapes_[c].gpus);
                if (cost == kInf || to >= width) continue;
                if (best_[used] + cost < next_[to]) {
                    next_[to] = best_[used] + cost;
                    choice_[i * width + to] = static_cast<std::uint8_t>(c);
                }
            }
        }
        best_.swap(next_);
    }
    std::size_t used = 0;
    for (std::size_t u = 1; u < width; ++u)
        if (best_[u] < best_[used]) used = u;
    std::vector<Shape> out(jobs);
    double sum = 0;
    for (std::size_t i = jobs; i-- > 0;) {
        const std::uint8_t c = choice_[i * width + used];
        out[i] = shapes_[c];
        const double sp = speedup_[i * n_shapes + c];
        sum += o_.p != 0 ? std::pow(sp + 1e-3, o_.p) : std::log(std::max(sp, 1e-3));
        used -= static_cast<std::size_t>(shapes_[c].gpus);
    }
    const double mean = sum / static_cast<double>(jobs);
    last_objective_ = o_.p != 0 ? std::pow(mean, 1.0 / o_.p) : std::exp(mean);
    return out;
}

void PolluxPolicy::apply(const ClusterView& view, GpuTypeIdx type, const std::vector<Shape>& target, Decisions& out) {
    const Cluster& cluster = view.cluster();
    std::vector<int> free(cluster.nodes.size(), 0);
    for (NodeIdx n = 0; n < cluster.nodes.size(); ++n)
        if (cluster.nodes[n].gpu_type == type) free[n] = view.free_gpus_on(n);
    // Jobs that keep their shape keep their place. The others, in order: stops, shrinks, grows, starts;
    // each placed on its own GPUs (returned for the moment) and what is free after the actions before it,
    // exactly as the engine applies them.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < active_.size(); ++i) {
        const Shape now_shape = current_shape(view, active_[i]);
        if (!(target[i] == now_shape)) order.push_back(i);
    }
    auto rank = [&](std::size_t i) {
        const int held = view.allocation(active_[i]).num_gpus();
        if (target[i].gpus == 0) return 0;
        if (held == 0) return 3;
        return target[i].gpus <= held ? 1 : 2;
    };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
    std::vector<NodeShare> where;
    for (std::size_t i : order) {
        const JobIdx j = active_[i];
        const JobInfo& info = view.job(j);
        const Allocation& held = view.allocation(j);
        if (held.gpu_type != type && held.num_gpus() > 0) continue;  // (on another type: left alone)
        const Shape s = target[i];
        if (s.gpus == 0) {
            if (held.num_gpus() > 0) {
                out.preempt(j);
                for (const NodeShare& sh : held.shares) free[sh.node] += sh.gpus;
            }
            continue;
        }
        for (const NodeShare& sh : held.shares) free[sh.node] += sh.gpus;  // its own, for the moment
        auto owns = [&](NodeIdx n) {
            for (const NodeShare& sh : held.shares)
                if (sh.node == n) return sh.gpus;
            return 0;
        };
        where.clear();
        if (s.nodes == 1) {
            // Its own node if it has room, else the fullest node that fits (whole nodes stay free).
            NodeIdx pick = kNoNode;
            for (NodeIdx n = 0; n < free.size(); ++n) {
                if (cluster.nodes[n].gpu_type != type || free[n] < s.gpus) continue;
                if (pick == kNoNode || (owns(n) > 0) > (owns(pick) > 0) ||
                    ((owns(n) > 0) == (owns(pick) > 0) && free[n] < free[pick]))
                    pick = n;
            }
            if (pick != kNoNode) where.push_back({pick, s.gpus});
        } else {
            // Whole free nodes, its own first, then in cluster order.
            for (int pass = 0; pass < 2 && static_cast<int>(where.size()) < s.nodes; ++pass)
                for (NodeIdx n = 0; n < free.size() && static_cast<int>(where.size()) < s.nodes; ++n)
                    if (cluster.nodes[n].gpu_type == type && free[n] == cluster.nodes[n].gpus &&
                        (pass == 0) == (owns(n) > 0))
                        where.push_back({n, cluster.nodes[n].gpus});
            if (static_cast<int>(where.size()) < s.nodes) where.clear();
        }
        if (where.empty()) {  // no room in this shape now: it stays as it is
            for (const NodeShare& sh : held.shares) free[sh.node] -= sh.gpus;
            continue;
        }
        std::sort(where.begin(), where.end(), [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
        for (const NodeShare& sh : where) free[sh.node] -= sh.gpus;
        if (held.num_gpus() == 0)
            out.start(j, type, s.gpus, where);
        else if (held.num_gpus() != s.gpus && info.min_gpus != info.max_gpus)
            out.resize(j, s.gpus, where);
        else if (held.num_gpus() == s.gpus)
            out.migrate(j, type, where);
        else {  // a rigid job cannot change its count (not planned; kept for safety)
            for (const NodeShare& sh : where) free[sh.node] += sh.gpus;
            for (const NodeShare& sh : held.shares) free[sh.node] -= sh.gpus;
            continue;
        }
        ++allocations_[j];
        max_held_[j] = std::max(max_held_[j], s.gpus);
    }
}

void PolluxPolicy::apply_unaware(const ClusterView& view, const Pool& pool, const std::vector<Shape>& target,
                                 Decisions& out) {
    // Sia's harness maps Pollux's virtual nodes to real nodes and keeps a job on one type: an allocation
    // over several types keeps the GPUs of the type holding most of them and drops the rest
    // (cluster_unaware.py, fix_allocations_by_dropping). Here each changed job is placed on one type
    // directly: a shape within one unit on the fullest node that fits (its own first), k units on one type
    // (its own type first, else the one whose free units fit k most tightly), taken from the nodes with the
    // most free units (its own first); when no type has k free units, the most any type has (the drop).
    const Cluster& cluster = view.cluster();
    const int unit = pool.unit;
    free_.assign(cluster.nodes.size(), 0);
    for (NodeIdx n = 0; n < cluster.nodes.size(); ++n) free_[n] = view.free_gpus_on(n);
    // The order as in apply: stops, shrinks, grows, starts.
    order_.clear();
    for (std::size_t i = 0; i < active_.size(); ++i)
        if (!(target[i] == current_shape(view, active_[i]))) order_.push_back(i);
    auto rank = [&](std::size_t i) {
        const int held = view.allocation(active_[i]).num_gpus();
        if (target[i].gpus == 0) return 0;
        if (held == 0) return 3;
        return target[i].gpus <= held ? 1 : 2;
    };
    std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
    std::vector<int>& free_units = free_units_;
    free_units.resize(cluster.gpu_types.size());
    for (std::size_t i : order_) {
        const JobIdx j = active_[i];
        const JobInfo& info = view.job(j);
        const Allocation& held = view.allocation(j);
        const int held_gpus = held.num_gpus();
        const bool rigid = info.min_gpus == info.max_gpus;
        const Shape s = target[i];
        if (s.gpus == 0) {
            if (held_gpus > 0) {
                out.preempt(j);
                for (const NodeShare& sh : held.shares) free_[sh.node] += sh.gpus;
            }
            continue;
        }
        for (const NodeShare& sh : held.shares) free_[sh.node] += sh.gpus;  // its own, for the moment
        auto owns = [&](NodeIdx n) {
            for (const NodeShare& sh : held.shares)
                if (sh.node == n) return true;
            return false;
        };
        auto runs_on = [&](GpuTypeIdx t) { return ((info.runnable >> t) & 1) != 0; };
        where_.clear();
        GpuTypeIdx type = 0;
        if (s.nodes == 1) {
            NodeIdx pick = kNoNode;
            for (NodeIdx n = 0; n < free_.size(); ++n) {
                if (free_[n] < s.gpus || !runs_on(cluster.nodes[n].gpu_type)) continue;
                if (pick == kNoNode || owns(n) > owns(pick) || (owns(n) == owns(pick) && free_[n] < free_[pick]))
                    pick = n;
            }
            if (pick != kNoNode) {
                where_.push_back({pick, s.gpus});
                type = cluster.nodes[pick].gpu_type;
            }
        } else {
            std::fill(free_units.begin(), free_units.end(), 0);
            for (NodeIdx n = 0; n < free_.size(); ++n) free_units[cluster.nodes[n].gpu_type] += free_[n] / unit;
            GpuTypeIdx pick = kAnyType;
            auto better = [&](GpuTypeIdx t) {
                if (pick == kAnyType) return true;
                const bool fits = free_units[t] >= s.nodes, pick_fits = free_units[pick] >= s.nodes;
                if (fits != pick_fits) return fits;
                if (!fits && free_units[t] != free_units[pick])
                    return free_units[t] > free_units[pick];  // the drop: the most units
                const bool own = held_gpus > 0 && t == held.gpu_type;
                const bool pick_own = held_gpus > 0 && pick == held.gpu_type;
                if (own != pick_own) return own;
                return fits && free_units[t] < free_units[pick];
            };
            for (GpuTypeIdx t = 0; t < free_units.size(); ++t)
                if (free_units[t] > 0 && runs_on(t) && better(t)) pick = t;
            const int units = pick == kAnyType ? 0 : std::min(s.nodes, free_units[pick]);
            if (units > 0 && !(rigid && units < s.nodes)) {
                type = pick;
                // Nodes of that type: its own first, then the most free units, then cluster order.
                for (int left = units; left > 0;) {
                    NodeIdx best = kNoNode;
                    for (NodeIdx n = 0; n < free_.size(); ++n) {
                        if (cluster.nodes[n].gpu_type != type || free_[n] < unit) continue;
                        bool taken = false;
                        for (const NodeShare& w : where_) taken = taken || w.node == n;
                        if (taken) continue;
                        if (best == kNoNode || owns(n) > owns(best) ||
                            (owns(n) == owns(best) && free_[n] / unit > free_[best] / unit))
                            best = n;
                    }
                    const int take = std::min(left, free_[best] / unit);
                    where_.push_back({best, take * unit});
                    left -= take;
                }
            }
        }
        int gpus = 0;
        for (const NodeShare& sh : where_) gpus += sh.gpus;
        if (where_.empty() || (rigid && gpus != held_gpus && held_gpus > 0) ||
            (held_gpus > 0 && held.same_place(type, where_))) {  // no room, or no change: it stays as it is
            for (const NodeShare& sh : held.shares) free_[sh.node] -= sh.gpus;
            continue;
        }
        std::sort(where_.begin(), where_.end(), [](const NodeShare& a, const NodeShare& b) { return a.node < b.node; });
        for (const NodeShare& sh : where_) free_[sh.node] -= sh.gpus;
        if (held_gpus > 0 && type != held.gpu_type && gpus != held_gpus) {
            // A change of type and count: a stop and a start at the same instant (as sia does).
            out.preempt(j);
            out.start(j, type, gpus, where_);
        } else if (held_gpus == 0)
            out.start(j, type, gpus, where_);
        else if (gpus != held_gpus)
            out.resize(j, gpus, where_);
        else
            out.migrate(j, type, where_);
        ++allocations_[j];
        max_held_[j] = std::max(max_held_[j], gpus);
    }
}

}  // namespace dlsim
