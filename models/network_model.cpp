#include "models/network_model.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>

namespace dlsim {

namespace {

constexpr JobIdx kNoJob = UINT32_MAX;
constexpr std::uint32_t kDirty = UINT32_MAX;  // a link's mark while maxmin has its level to update

constexpr ContentionModeInfo kModes[] = {
    {ContentionMode::None, "none", "each job as if alone on the network: its own placement counts, nobody else's"},
    {ContentionMode::Penalty, "penalty",
     "no communication model: the job's rate times a factor by the widest tier it spans (Synergy, Pollux)"},
    {ContentionMode::MaxMin, "maxmin",
     "weighted max-min fair shares of every link by progressive filling, every job always on the wire "
     "(pessimistic)"},
    {ContentionMode::Duty, "duty",
     "equal sharing weighted by the other jobs' duty cycles (communication time / iteration time); the default"},
    {ContentionMode::Interleave, "interleave",
     "perfect interleaving: a link slows its jobs only when their duty cycles sum above 1 (optimistic)"},
    {ContentionMode::Priority, "priority",
     "Crux's priorities: jobs by descending GPU intensity, each gets what the higher ones leave"},
};

}  // namespace

std::span<const ContentionModeInfo> contention_modes() { return kModes; }

std::optional<ContentionMode> parse_contention_mode(std::string_view name) {
    for (const ContentionModeInfo& m : kModes)
        if (m.name == name) return m.mode;
    return std::nullopt;
}

std::string_view contention_mode_name(ContentionMode mode) {
    for (const ContentionModeInfo& m : kModes)
        if (m.mode == mode) return m.name;
    return "?";
}

const char* contention_mode_names() {
    static const std::string names = [] {
        std::string out;
        for (const ContentionModeInfo& m : kModes) out += (out.empty() ? "" : "|") + std::string(m.name);
        return out;
    }();
    return names.c_str();
}

NetworkPerformance::NetworkPerformance(const Topology& topology, const RateModel& rates, std::vector<CommModel> models,
                                       NetworkOptions options, std::vector<std::optional<CommCalibration>> calibrated,
                                       std::vector<double> measured_intra)
    : topo_(topology),
      rates_(rates),
      models_(std::move(models)),
      opt_(options),
      calibrated_(std::move(calibrated)),
      measured_intra_(std::move(measured_intra)),
      links_(topology.links().size()),
      count_(topology.num_vertices(), 0) {
    summary_.mode = std::string(contention_mode_name(opt_.mode));
}

const CommModel& NetworkPerformance::comm_of(const Job& job) const {
    static const CommModel none{};  // a job without a model communicates nothing
    return job.model == kNoModel || job.model >= models_.size() ? none : models_[job.model];
}

double NetworkPerformance::inter_bandwidth(const Job& job, double x) const {
    if (job.nodes <= 1) return kUnlimited;
    if (job.inter_fitted > 0) return std::isfinite(job.x_iso) ? job.inter_fitted * (x / job.x_iso) : job.inter_fitted;
    return job.nic_eff * job.channels * x;
}

double NetworkPerformance::rate_at(const Job& job, double x, double* phi) const {
    if (rates_.measured()) {
        // Measured aggregate rates already include the job's communication (the Gavel-compatible mode).
        if (phi) *phi = 0;
        return rates_.rate(job.model, job.type, job.gpus);
    }
    const CommModel& comm = comm_of(job);
    RingLinks ring{job.gpus, job.nodes, job.intra, inter_bandwidth(job, x), job.alpha};
    const double t_comm = comm_seconds(comm, ring);
    if (t_comm <= 0) {
        if (phi) *phi = 0;
        // Exactly the isolated rate model's number when nothing is communicated (an ideal network changes no
        // earlier result by a rounding).
        return rates_.rate(job.model, job.type, job.gpus);
    }
    const double t_iter = overlapped_seconds(job.t_comp, t_comm, comm.gamma);
    if (!std::isfinite(t_iter)) {
        if (phi) *phi = 1;
        return 0;
    }
    if (phi) *phi = t_comm / t_iter;
    return job.gpus / t_iter;
}

void NetworkPerformance::shape(Job& job, const Allocation& a) const {
    const Cluster& c = topo_.cluster();
    const auto& links = topo_.links();
    job.type = a.gpu_type;
    job.gpus = a.num_gpus();
    job.nodes = static_cast<int>(a.shares.size());
    const double single = rates_.single(job.model, a.gpu_type);
    job.t_comp = single > 0 ? 1 / single : kUnlimited;
    job.intra = kUnlimited;
    job.alpha = 0;
    job.channels = INT_MAX;
    job.cap = kUnlimited;
    job.nic_eff = 1;
    job.links.clear();
    ring_.clear();
    bool intra_edge = false;  // some node holds 2+ of its GPUs: the ring has intra-node edges
    for (const NodeShare& s : a.shares) {
        const NodeType& nt = c.node_types[c.nodes[s.node].node_type];
        intra_edge = intra_edge || s.gpus >= 2;
        if (s.gpus >= 2) {
            double bw = nt.intra.bytes_per_s;
            // GPUs are split evenly over the sockets; a ring over more than one socket's share crosses them.
            if (nt.intra.sockets > 1 && s.gpus > nt.gpus / nt.intra.sockets)
                bw = std::min(bw, nt.intra.xsocket_bytes_per_s);
            job.intra = std::min(job.intra, nt.intra.eff * bw);
            job.alpha = std::max(job.alpha, nt.intra.latency_s);
        }
        job.channels = std::min(job.channels, std::min(s.gpus, nt.nic.count));
        job.cap = std::min(job.cap, nt.nic.bytes_per_s);
        job.nic_eff = std::min(job.nic_eff, nt.nic.eff);
        ring_.push_back(s.node);
    }
    job.leaves = job.racks = 1;
    if (job.nodes <= 1) {
        job.channels = 1;
        job.cap = kUnlimited;
    } else {
        // The ring in tree order enters and leaves every subtree once per channel: each node's NICs
        // carry its channels both ways, and so does the uplink of every switch below the common ancestor.
        std::sort(ring_.begin(), ring_.end(),
                  [&](VertexIdx x, VertexIdx y) { return topo_.order(x) < topo_.order(y); });
        const std::size_t n = ring_.size();
        for (std::size_t i = 0; i < n; ++i) {
            const NodeIdx from = ring_[i], to = ring_[(i + 1) % n];
            job.alpha = std::max(job.alpha, topo_.path_latency(from, to));
            for (LinkIdx l : {topo_.up(from), topo_.down(from)})
                if (std::isfinite(links[l].bytes_per_s)) job.links.push_back(l);
            if (i > 0 && topo_.parent(from) != topo_.parent(ring_[i - 1])) ++job.leaves;
            if (i > 0 && c.nodes[from].rack != c.nodes[ring_[i - 1]].rack) ++job.racks;
        }
        touched_.clear();
        for (NodeIdx node : ring_)
            for (VertexIdx v = topo_.parent(node); topo_.parent(v) != v; v = topo_.parent(v))
                if (count_[v]++ == 0) touched_.push_back(v);
        for (VertexIdx v : touched_) {
            if (count_[v] < n)
                for (LinkIdx l : {topo_.up(v), topo_.down(v)})
                    if (std::isfinite(links[l].bytes_per_s)) job.links.push_back(l);
            count_[v] = 0;
        }
    }
    job.x_iso = job.cap;
    for (LinkIdx l : job.links) job.x_iso = std::min(job.x_iso, links[l].bytes_per_s / job.channels);
    job.inter_fitted = 0;
    const std::size_t types = c.gpu_types.size();
    const std::size_t measured = job.model == kNoModel ? SIZE_MAX : job.model * types + a.gpu_type;
    if (topo_.ideal()) {
        // No link is described: communication is free, whatever the profile measured elsewhere.
    } else if (job.model != kNoModel && job.model < calibrated_.size() && calibrated_[job.model]) {
        // Measured placements calibrate the model instead of the defaults (models/calibration.hpp).
        const CommCalibration& fit = *calibrated_[job.model];
        job.intra = intra_edge ? fit.intra_bytes_per_s : kUnlimited;
        job.alpha = fit.step_latency_s;
        job.inter_fitted = fit.inter_bytes_per_s;
    } else if (measured < measured_intra_.size() && measured_intra_[measured] > 0 && intra_edge) {
        job.intra = measured_intra_[measured];  // measured multi-GPU points calibrate the intra-node ring
    }
    double phi_iso = 0;
    job.iso_rate = rate_at(job, job.x_iso, &phi_iso);
    const double t_comm_share = phi_iso;  // T_comm / T_iter alone
    // Crux's GPU intensity: compute per unit of communication (GPU-seconds of compute per second on the wire).
    job.intensity = t_comm_share > 0 ? job.gpus * (1 - t_comm_share) / t_comm_share : kUnlimited;
    if (opt_.mode == ContentionMode::Penalty) {
        job.links.clear();
        const double p = job.nodes <= 1 ? 1 : job.leaves <= 1 ? opt_.penalty_rack : opt_.penalty_pod;
        job.iso_rate = rates_.rate(job.model, job.type, job.gpus) * p;
    }
}

void NetworkPerformance::attach(JobIdx j) {
    Job& job = jobs_[j];
    job.slots.resize(job.links.size());
    for (std::size_t i = 0; i < job.links.size(); ++i) {
        auto& residents = links_[job.links[i]].jobs;
        job.slots[i] = static_cast<std::uint32_t>(residents.size());
        residents.push_back(j);
    }
}

void NetworkPerformance::detach(JobIdx j) {
    Job& job = jobs_[j];
    for (std::size_t i = 0; i < job.links.size(); ++i) {
        const LinkIdx l = job.links[i];
        auto& residents = links_[l].jobs;
        const JobIdx last = residents.back();
        residents[job.slots[i]] = last;
        if (last != j) {
            Job& other = jobs_[last];
            for (std::size_t k = 0; k < other.links.size(); ++k)
                if (other.links[k] == l) other.slots[k] = job.slots[i];
        }
        residents.pop_back();
    }
}

void NetworkPerformance::account(Time now, JobIdx j) {
    Job& job = jobs_[j];
    const double dt = to_seconds(now - job.since);
    job.since = now;
    if (dt <= 0) return;
    JobNetworkRecord& r = records_[j];
    r.run_seconds += dt;
    r.comm_seconds += job.phi * dt;
    if (job.rate > 0) r.slowdown_seconds += job.iso_rate / job.rate * dt;
}

void NetworkPerformance::account_link(Time now, LinkIdx l) {
    LinkState& s = links_[l];
    s.integral += s.load * to_seconds(now - s.since);
    s.since = now;
}

void NetworkPerformance::collect(std::span<const LinkIdx> seeds, JobIdx also) {
    ++epoch_;
    comp_jobs_.clear();
    comp_links_.clear();
    auto add_job = [&](JobIdx j) {
        Job& job = jobs_[j];
        if (job.mark == epoch_) return;
        job.mark = epoch_;
        job.pos = static_cast<std::uint32_t>(comp_jobs_.size());
        comp_jobs_.push_back(j);
        for (LinkIdx l : job.links)
            if (links_[l].mark != epoch_) {
                links_[l].mark = epoch_;
                comp_links_.push_back(l);
            }
    };
    if (also != kNoJob) add_job(also);
    for (LinkIdx l : seeds)
        if (links_[l].mark != epoch_) {
            links_[l].mark = epoch_;
            comp_links_.push_back(l);
        }
    for (std::size_t i = 0; i < comp_links_.size(); ++i)
        for (JobIdx k : links_[comp_links_[i]].jobs) add_job(k);
}

void NetworkPerformance::solve_component(Time now) {
    const auto& links = topo_.links();
    for (JobIdx j : comp_jobs_) account(now, j);
    for (LinkIdx l : comp_links_) account_link(now, l);
    next_x_.resize(comp_jobs_.size());
    next_phi_.resize(comp_jobs_.size());

    auto limit = [&](const Job& job, auto&& share) {
        double x = job.cap;
        for (LinkIdx l : job.links) x = std::min(x, share(l));
        return x;
    };
    switch (opt_.mode) {
        case ContentionMode::None:
        case ContentionMode::Penalty:
            for (std::size_t i = 0; i < comp_jobs_.size(); ++i) next_x_[i] = jobs_[comp_jobs_[i]].x_iso;
            break;
        case ContentionMode::Duty:
        case ContentionMode::Interleave: {
            // Fixed point from the isolated duty cycles: x from the others' φ, then φ from x (Jacobi sweeps).
            const bool duty = opt_.mode == ContentionMode::Duty;
            for (std::size_t i = 0; i < comp_jobs_.size(); ++i) {
                const Job& job = jobs_[comp_jobs_[i]];
                next_x_[i] = job.x_iso;
                rate_at(job, job.x_iso, &next_phi_[i]);
            }
            for (int sweep = 0; sweep < opt_.max_sweeps; ++sweep) {
                for (LinkIdx l : comp_links_) {
                    double d = 0;
                    for (JobIdx k : links_[l].jobs) d += (duty ? jobs_[k].channels : 1) * next_phi_[jobs_[k].pos];
                    links_[l].scratch = d;
                }
                double change = 0;
                for (std::size_t i = 0; i < comp_jobs_.size(); ++i) {
                    const Job& job = jobs_[comp_jobs_[i]];
                    const double ch = job.channels;
                    const double x = limit(job, [&](LinkIdx l) {
                        const double cap = links[l].bytes_per_s, s = links_[l].scratch;
                        if (duty) return cap / (ch + s - ch * next_phi_[i]);
                        return s > 1 ? cap / (ch * s) : cap / ch;
                    });
                    change = std::max(change, std::abs(x - next_x_[i]) / std::max(next_x_[i], 1e-300));
                    next_x_[i] = x;
                }
                for (std::size_t i = 0; i < comp_jobs_.size(); ++i)
                    rate_at(jobs_[comp_jobs_[i]], next_x_[i], &next_phi_[i]);
                if (change < opt_.tolerance) break;
            }
            break;
        }
        case ContentionMode::MaxMin: {
            // Progressive filling, event by event: every unfrozen job sits at the common level L; link l
            // fills when L reaches (C_l − frozen load) ÷ unfrozen channels, a job when L reaches its NIC
            // cap. The earliest event freezes its jobs at L, which moves the fill level of their links
            // (a heap keyed by level, stale entries skipped). O(Σ footprints × log links).
            for (std::size_t i = 0; i < comp_jobs_.size(); ++i) {
                next_x_[i] = 0;
                next_phi_[i] = 0;  // 0 = unfrozen, 1 = frozen
            }
            heap_.clear();
            auto fill_level = [&](LinkIdx l) {
                const LinkState& s = links_[l];
                return s.weight > 0 ? (links[l].bytes_per_s - s.scratch) / s.weight : kUnlimited;
            };
            for (LinkIdx l : comp_links_) {
                LinkState& s = links_[l];
                s.scratch = 0;  // load of the frozen jobs
                s.weight = 0;   // channels of the unfrozen jobs
                for (JobIdx k : s.jobs) s.weight += jobs_[k].channels;
                s.level = fill_level(l);
                heap_.push_back({s.level, l});
            }
            const auto later = [](const std::pair<double, LinkIdx>& a, const std::pair<double, LinkIdx>& b) {
                return a.first != b.first ? a.first > b.first : a.second > b.second;
            };
            std::make_heap(heap_.begin(), heap_.end(), later);
            order_.assign(comp_jobs_.begin(), comp_jobs_.end());
            std::sort(order_.begin(), order_.end(), [&](JobIdx a, JobIdx b) {
                return jobs_[a].cap != jobs_[b].cap ? jobs_[a].cap < jobs_[b].cap : a < b;
            });
            double level = 0;
            // Freezing updates the links' frozen load and unfrozen channels; their new fill levels are
            // pushed once per event (a link shared by many of the jobs frozen together is pushed once).
            dirty_.clear();
            auto freeze = [&](std::size_t i, double x) {
                next_x_[i] = x;
                next_phi_[i] = 1;
                const Job& job = jobs_[comp_jobs_[i]];
                for (LinkIdx l : job.links) {
                    LinkState& s = links_[l];
                    s.scratch += job.channels * x;
                    s.weight -= job.channels;
                    if (s.mark != kDirty) {
                        s.mark = kDirty;
                        dirty_.push_back(l);
                    }
                }
            };
            auto push_dirty = [&] {
                for (LinkIdx l : dirty_) {
                    LinkState& s = links_[l];
                    s.mark = epoch_;
                    s.level = std::max(level, fill_level(l));  // never below the level already reached
                    if (std::isfinite(s.level)) {
                        heap_.push_back({s.level, l});
                        std::push_heap(heap_.begin(), heap_.end(), later);
                    }
                }
                dirty_.clear();
            };
            std::size_t next_cap = 0, unfrozen = comp_jobs_.size();
            while (unfrozen > 0) {
                while (!heap_.empty() && heap_.front().first != links_[heap_.front().second].level) {
                    std::pop_heap(heap_.begin(), heap_.end(), later);
                    heap_.pop_back();
                }
                while (next_cap < order_.size() && next_phi_[jobs_[order_[next_cap]].pos] != 0) ++next_cap;
                const double link_level = heap_.empty() ? kUnlimited : heap_.front().first;
                const double cap_level = next_cap < order_.size() ? jobs_[order_[next_cap]].cap : kUnlimited;
                if (!std::isfinite(link_level) && !std::isfinite(cap_level)) {
                    // Nothing limits the rest (a job inside one node: no finite links, no NIC cap): they
                    // take their cap, as in every other mode.
                    for (std::size_t i = 0; i < comp_jobs_.size(); ++i)
                        if (next_phi_[i] == 0) next_x_[i] = jobs_[comp_jobs_[i]].cap;
                    break;
                }
                if (cap_level <= link_level) {
                    level = cap_level;
                    freeze(jobs_[order_[next_cap]].pos, cap_level);
                    --unfrozen;
                    push_dirty();
                    continue;
                }
                level = link_level;
                const LinkIdx full = heap_.front().second;
                std::pop_heap(heap_.begin(), heap_.end(), later);
                heap_.pop_back();
                links_[full].level = kUnlimited;  // its entries are done
                for (JobIdx k : links_[full].jobs) {
                    const std::size_t i = jobs_[k].pos;
                    if (next_phi_[i] != 0) continue;
                    freeze(i, level);
                    --unfrozen;
                }
                push_dirty();
            }
            break;
        }
        case ContentionMode::Priority: {
            // Jobs by descending intensity (ties: job index): each gets the share of every link that the
            // higher ones leave idle, C × (1 − Σ φ_higher)⁺.
            order_.assign(comp_jobs_.begin(), comp_jobs_.end());
            std::sort(order_.begin(), order_.end(), [&](JobIdx a, JobIdx b) {
                return jobs_[a].intensity != jobs_[b].intensity ? jobs_[a].intensity > jobs_[b].intensity : a < b;
            });
            for (LinkIdx l : comp_links_) links_[l].scratch = 0;
            for (JobIdx k : order_) {
                const Job& job = jobs_[k];
                const double x = limit(job, [&](LinkIdx l) {
                    return links[l].bytes_per_s * std::max(0.0, 1 - links_[l].scratch) / job.channels;
                });
                double phi = 0;
                rate_at(job, x, &phi);
                for (LinkIdx l : job.links) links_[l].scratch += phi;
                next_x_[job.pos] = x;
            }
            break;
        }
    }
}

void NetworkPerformance::solve(Time now, std::vector<RateChange>& changed, JobIdx first) {
    const auto started = time_solves_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    if (comp_jobs_.size() > opt_.full_solve_above) {
        // The full solve: every component of the cluster, each from scratch.
        ++summary_.full_solves;
        full_.clear();
        for (JobIdx j = 0; j < jobs_.size(); ++j)
            if (jobs_[j].active && !jobs_[j].links.empty()) full_.push_back(j);
        ++epoch_;
        const std::uint32_t seen = epoch_;
        for (JobIdx j : full_) jobs_[j].seen = 0;
        for (JobIdx j : full_) {
            if (jobs_[j].seen == seen) continue;
            collect({}, j);
            for (JobIdx k : comp_jobs_) jobs_[k].seen = seen;
            solve_component(now);
            apply(changed, first);
        }
    } else {
        solve_component(now);
        apply(changed, first);
    }
    if (time_solves_)
        solve_micros_.push_back(static_cast<float>(
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count()));
}

void NetworkPerformance::apply(std::vector<RateChange>& changed, JobIdx first) {
    ++summary_.rerates;
    summary_.jobs_rerated += comp_jobs_.size();
    for (std::size_t i = 0; i < comp_jobs_.size(); ++i) {
        const JobIdx k = comp_jobs_[i];
        Job& job = jobs_[k];
        job.x = next_x_[i];
        double phi = 0;
        const double rate = opt_.mode == ContentionMode::Penalty ? job.iso_rate : rate_at(job, job.x, &phi);
        job.phi = phi;
        if (k == first || rate != job.rate) changed.push_back({k, rate});
        job.rate = rate;
    }
    if (first != kNoJob && !changed.empty() && changed.front().job != first) {
        auto it = std::find_if(changed.begin(), changed.end(), [&](const RateChange& c) { return c.job == first; });
        if (it != changed.end()) std::rotate(changed.begin(), it, it + 1);
    }
    for (LinkIdx l : comp_links_) refresh_load(l);
}

void NetworkPerformance::refresh_load(LinkIdx l) {
    double demand = 0, load = 0;
    for (JobIdx k : links_[l].jobs) {
        demand += jobs_[k].channels * jobs_[k].phi;
        load += jobs_[k].channels * jobs_[k].x * jobs_[k].phi;
    }
    links_[l].demand = demand;
    links_[l].load = load;
}

void NetworkPerformance::allocated(Time now, JobIdx j, ModelIdx model, const Allocation& a,
                                   std::vector<RateChange>& changed) {
    if (jobs_.size() <= j) {
        jobs_.resize(j + 1);
        records_.resize(j + 1);
    }
    Job& job = jobs_[j];
    job.model = model;
    shape(job, a);
    job.active = true;
    job.since = now;
    job.rate = -1;  // so that it is always reported
    JobNetworkRecord& r = records_[j];
    r.max_nodes = std::max<std::uint32_t>(r.max_nodes, static_cast<std::uint32_t>(job.nodes));
    r.max_racks = std::max<std::uint32_t>(r.max_racks, static_cast<std::uint32_t>(job.racks));
    attach(j);
    if (independent()) {
        // No rate depends on another job's: the component is the job alone (its links only for the loads).
        ++epoch_;
        job.mark = epoch_;
        job.pos = 0;
        comp_jobs_.assign(1, j);
        comp_links_.assign(job.links.begin(), job.links.end());
    } else {
        collect({}, j);
    }
    solve(now, changed, j);
}

void NetworkPerformance::released(Time now, JobIdx j, const Allocation&, std::vector<RateChange>& changed) {
    Job& job = jobs_[j];
    account(now, j);
    for (LinkIdx l : job.links) account_link(now, l);
    detach(j);
    job.active = false;
    job.rate = 0;
    job.phi = 0;
    seeds_.assign(job.links.begin(), job.links.end());
    job.links.clear();
    if (seeds_.empty()) return;
    if (independent()) {
        for (LinkIdx l : seeds_) refresh_load(l);
        return;
    }
    collect(seeds_, kNoJob);
    if (comp_jobs_.empty()) {
        for (LinkIdx l : comp_links_) refresh_load(l);  // nobody left on them
        return;
    }
    solve(now, changed, kNoJob);
}

double NetworkPerformance::predicted_rate(ModelIdx model, const Allocation& a) const {
    probe_.model = model;
    shape(probe_, a);
    if (opt_.mode == ContentionMode::Penalty) return probe_.iso_rate;
    if (opt_.mode == ContentionMode::None) return probe_.iso_rate;
    // Against the current loads, as `duty` would rate it: every job already there keeps its duty cycle.
    const auto& links = topo_.links();
    double x = probe_.cap;
    for (LinkIdx l : probe_.links) x = std::min(x, links[l].bytes_per_s / (probe_.channels + links_[l].demand));
    return rate_at(probe_, x, nullptr);
}

double NetworkPerformance::alone_rate(ModelIdx m, GpuTypeIdx t, int n) const {
    const Cluster& c = topo_.cluster();
    // Nodes of type t, largest first (then by id); one rack's if a rack holds n, else all of them.
    std::vector<std::pair<int, NodeIdx>> nodes;
    auto fill = [&](std::uint32_t rack, bool any_rack) {
        nodes.clear();
        int total = 0;
        for (NodeIdx k = 0; k < c.nodes.size(); ++k)
            if (c.nodes[k].gpu_type == t && (any_rack || c.nodes[k].rack == rack)) {
                nodes.emplace_back(c.nodes[k].gpus, k);
                total += c.nodes[k].gpus;
            }
        return total >= n;
    };
    bool found = false;
    for (std::uint32_t r = 0; r < c.num_racks && !found; ++r) found = fill(r, false);
    if (!found && !fill(0, true)) return rates_.rate(m, t, n);  // never fits: the isolated rate (rejected anyway)
    std::stable_sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    Allocation a{t, {}};
    for (const auto& [gpus, k] : nodes) {
        if (n <= 0) break;
        a.shares.push_back({k, std::min(gpus, n)});
        n -= std::min(gpus, n);
    }
    probe_.model = m;
    shape(probe_, a);
    return probe_.iso_rate;
}

double NetworkPerformance::comm_seconds_now(JobIdx j) const {
    const Job& job = jobs_[j];
    const RingLinks ring{job.gpus, job.nodes, job.intra, inter_bandwidth(job, job.x), job.alpha};
    return comm_seconds(comm_of(job), ring);
}

const JobNetworkRecord& NetworkPerformance::record(JobIdx j) const {
    static const JobNetworkRecord empty{};
    return j < records_.size() ? records_[j] : empty;
}

void NetworkPerformance::finish(Time origin, Time end) {
    for (JobIdx j = 0; j < jobs_.size(); ++j)
        if (jobs_[j].active) account(end, j);
    const auto& links = topo_.links();
    const double span = to_seconds(end - origin);
    std::vector<double> sum(topo_.tier_names().size(), 0);
    std::vector<std::size_t> count(sum.size(), 0);
    for (LinkIdx l = 0; l < links.size(); ++l) {
        if (!std::isfinite(links[l].bytes_per_s) || topo_.parent(l / 2) == l / 2) continue;
        account_link(end, l);
        sum[links[l].tier] += span > 0 ? links_[l].integral / (links[l].bytes_per_s * span) : 0;
        ++count[links[l].tier];
    }
    summary_.tier_utilization.clear();
    summary_.busiest_tier.clear();
    summary_.busiest_tier_utilization = 0;
    for (std::size_t t = 0; t < sum.size(); ++t) {
        if (count[t] == 0) continue;
        const double u = sum[t] / static_cast<double>(count[t]);
        summary_.tier_utilization.emplace_back(topo_.tier_names()[t], u);
        if (u > summary_.busiest_tier_utilization) {  // none while no finite link carried anything
            summary_.busiest_tier = topo_.tier_names()[t];
            summary_.busiest_tier_utilization = u;
        }
    }
}

}  // namespace dlsim
