#include "policies/queue/vc_quota.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace dlsim {

namespace {

std::string vc_label(const std::string& name) { return name.empty() ? "(no VC recorded)" : "'" + name + "'"; }

/// Each VC's share of the trace's GPU-seconds × the cluster's GPUs, by largest remainder.
std::vector<int> shares_of_gpu_time(const Tenants& tenants, int gpus) {
    const std::size_t n = tenants.vc_names.size();
    const double sum = std::accumulate(tenants.vc_gpu_seconds.begin(), tenants.vc_gpu_seconds.end(), 0.0);
    std::vector<int> out(n, 0);
    if (!(sum > 0)) return out;
    std::vector<std::pair<double, std::uint32_t>> remainders;  // (-remainder, id): largest first, then lower id
    int given = 0;
    for (std::uint32_t v = 0; v < n; ++v) {
        const double exact = gpus * (tenants.vc_gpu_seconds[v] / sum);
        out[v] = static_cast<int>(std::floor(exact));
        given += out[v];
        remainders.emplace_back(-(exact - out[v]), v);
    }
    std::sort(remainders.begin(), remainders.end());
    for (std::size_t k = 0; given < gpus && k < remainders.size(); ++k, ++given) ++out[remainders[k].second];
    return out;
}

}  // namespace

std::vector<VcQuota> resolve_vc_quotas(const std::string& path, const Cluster& cluster, const Tenants& tenants,
                                       bool hard) {
    const std::size_t types = cluster.gpu_types.size(), n = tenants.vc_names.size();
    std::vector<VcQuota> quotas(n);
    for (VcQuota& q : quotas) q.per_type.assign(types, VcQuota::kNoLimit);
    const int gpus = static_cast<int>(cluster.num_gpus());
    if (path.empty()) {
        const std::vector<int> share = shares_of_gpu_time(tenants, gpus);
        for (std::uint32_t v = 0; v < n; ++v) {
            quotas[v].total = share[v];
            if (hard && share[v] == 0 && tenants.vc_jobs[v] > 0)
                throw InputError(fmt::format(
                    "policy vc-quota: VC {} gets 0 of the cluster's {} GPUs by its share of the trace's GPU-hours "
                    "({:.3g}%), so in mode=hard its {} jobs could never run: give the quotas in a file (parameter "
                    "quotas) or use mode=borrow",
                    vc_label(tenants.vc_names[v]), gpus,
                    100 * tenants.vc_gpu_seconds[v] /
                        std::accumulate(tenants.vc_gpu_seconds.begin(), tenants.vc_gpu_seconds.end(), 0.0),
                    tenants.vc_jobs[v]));
        }
        return quotas;
    }

    namespace jf = json_fields;
    const jf::Json doc = jf::parse_file(path);
    jf::require_object(doc, path, "");
    for (VcQuota& q : quotas) q.total = 0;  // a VC the file leaves out gets nothing
    for (const auto& [name, value] : doc.items()) {
        const auto it = std::find(tenants.vc_names.begin(), tenants.vc_names.end(), name);
        if (it == tenants.vc_names.end()) {
            std::string known;
            for (std::size_t v = 1; v < n && v <= 8; ++v) known += (v > 1 ? ", " : "") + tenants.vc_names[v];
            if (n > 9) known += ", ...";
            throw InputError(fmt::format("policy vc-quota: quotas file {}: VC '{}' is not in the trace (its VCs: {})",
                                         path, name, known.empty() ? std::string("none recorded") : known));
        }
        VcQuota& q = quotas[static_cast<std::size_t>(it - tenants.vc_names.begin())];
        if (value.is_object()) {
            q.total = VcQuota::kNoLimit;
            q.per_type.assign(types, 0);
            for (const auto& [type_name, count] : value.items()) {
                const std::string where = name + "." + type_name;
                const auto t = cluster.find_gpu_type(type_name);
                if (!t) jf::fail(path, where, "a GPU type of the cluster", nullptr);
                q.per_type[*t] = static_cast<int>(jf::integer(count, path, where, 0, gpus));
            }
        } else if (value.is_number()) {
            q.total = static_cast<int>(jf::integer(value, path, name, 0, gpus));
        } else {
            jf::fail(path, name, "a GPU count, or an object of GPU counts by GPU type", &value);
        }
    }
    if (hard)
        for (std::uint32_t v = 0; v < n; ++v) {
            const VcQuota& q = quotas[v];
            const bool none =
                q.total == 0 || std::all_of(q.per_type.begin(), q.per_type.end(), [](int x) { return x == 0; });
            if (none && tenants.vc_jobs[v] > 0)
                throw InputError(
                    fmt::format("policy vc-quota: quotas file {} gives VC {} no GPUs, so in mode=hard its "
                                "{} jobs could never run: give it a quota (\"{}\": GPUs) or use mode=borrow",
                                path, vc_label(tenants.vc_names[v]), tenants.vc_jobs[v], tenants.vc_names[v]));
        }
    return quotas;
}

VcQuotaPolicy::VcQuotaPolicy(TypeOrder order, bool borrow, std::vector<VcQuota> quotas,
                             std::vector<std::string> vc_names)
    : order_(order), borrow_(borrow), vc_names_(std::move(vc_names)) {
    vcs_.resize(quotas.size());
    for (std::size_t v = 0; v < quotas.size(); ++v) {
        vcs_[v].used.assign(quotas[v].per_type.size(), 0);
        vcs_[v].quota = std::move(quotas[v]);
    }
}

int VcQuotaPolicy::room(const Vc& vc, GpuTypeIdx t) const {
    return std::min(vc.quota.per_type[t] - vc.used[t], vc.quota.total - vc.used_total);
}

VcQuotaPolicy::Held& VcQuotaPolicy::held(JobIdx j) {
    if (j >= held_.size()) held_.resize(std::max<std::size_t>(j + 1, 2 * held_.size()));
    return held_[j];
}

void VcQuotaPolicy::enqueue(const ClusterView& view, JobIdx j) {
    const JobInfo& job = view.job(j);
    vcs_[job.vc].queue.insert({job.submit, j});
}

void VcQuotaPolicy::release(const ClusterView& view, JobIdx j) {
    Held& h = held(j);
    const JobInfo& job = view.job(j);
    Vc& vc = vcs_[job.vc];
    if (h.kind == Kind::Guaranteed) {
        vc.used[h.type] -= job.num_gpus;
        vc.used_total -= job.num_gpus;
        if (borrow_ && !vc.freed) {
            vc.freed = true;
            freed_vcs_.push_back(job.vc);
        }
    } else if (h.kind == Kind::Opportunistic) {
        opportunistic_.erase({h.since, j});
        vc.borrowed.erase({h.since, j});
        lent_[h.type] -= job.num_gpus;
    }
    h.kind = Kind::None;
}

void VcQuotaPolicy::start(const ClusterView& view, JobIdx j, GpuTypeIdx t, Kind kind, Decisions& out) {
    const JobInfo& job = view.job(j);
    Vc& vc = vcs_[job.vc];
    vc.queue.erase({job.submit, j});
    held(j) = {kind, t, view.now(), call_, held(j).evicted};
    if (kind == Kind::Guaranteed) {
        vc.used[t] += job.num_gpus;
        vc.used_total += job.num_gpus;
    } else {
        opportunistic_.insert({view.now(), j});
        vc.borrowed.insert({view.now(), j});
        lent_[t] += job.num_gpus;
    }
    available_[t] -= job.num_gpus;
    out.start(j, t, job.num_gpus);
}

void VcQuotaPolicy::promote(const ClusterView& view) {
    std::sort(freed_vcs_.begin(), freed_vcs_.end());
    for (std::uint32_t v : freed_vcs_) {
        Vc& vc = vcs_[v];
        vc.freed = false;
        for (auto it = vc.borrowed.begin(); it != vc.borrowed.end();) {
            const JobIdx j = it->second;
            Held& h = held_[j];
            const int g = view.job(j).num_gpus;
            if (room(vc, h.type) < g) {
                ++it;
                continue;
            }
            opportunistic_.erase({h.since, j});
            lent_[h.type] -= g;
            it = vc.borrowed.erase(it);
            h.kind = Kind::Guaranteed;
            vc.used[h.type] += g;
            vc.used_total += g;
        }
    }
    freed_vcs_.clear();
}

void VcQuotaPolicy::reclaim(const ClusterView& view, JobIdx for_job, GpuTypeIdx t, int need, Decisions& out) {
    for (auto it = opportunistic_.rbegin(); it != opportunistic_.rend() && available_[t] < need;) {
        const JobIdx j = std::get<1>(*it);
        ++it;  // the release below erases the element `it` was made from
        const Held& h = held_[j];
        if (h.type != t || h.call == call_) continue;
        const JobInfo& job = view.job(j);
        out.preempt(j, StopCause::Quota, for_job);
        held_[j].evicted = call_;
        available_[t] += job.num_gpus;
        release(view, j);
        enqueue(view, j);
        // A VC whose queue was empty has no head in this call's walk: let the lending pass see it.
        if (vcs_[job.vc].queue.size() == 1) blocked_.push_back(job.vc);
        it = std::make_reverse_iterator(opportunistic_.upper_bound({h.since, j}));
    }
}

void VcQuotaPolicy::serve_guaranteed(const ClusterView& view, Decisions& out) {
    const auto later = std::greater<>();
    heads_.clear();
    blocked_.clear();
    for (std::uint32_t v = 0; v < vcs_.size(); ++v)
        if (!vcs_[v].queue.empty()) heads_.emplace_back(vcs_[v].queue.begin()->first, vcs_[v].queue.begin()->second, v);
    std::make_heap(heads_.begin(), heads_.end(), later);
    while (!heads_.empty()) {
        std::pop_heap(heads_.begin(), heads_.end(), later);
        const auto [submit, j, v] = heads_.back();
        heads_.pop_back();
        Vc& vc = vcs_[v];
        auto push_head = [&, vc_index = v] {  // clang 14 cannot capture a structured binding
            if (vc.queue.empty()) return;
            heads_.emplace_back(vc.queue.begin()->first, vc.queue.begin()->second, vc_index);
            std::push_heap(heads_.begin(), heads_.end(), later);
        };
        if (vc.queue.empty() || vc.queue.begin()->second != j) {  // a reclaimed job went ahead of it
            push_head();
            continue;
        }
        const JobInfo& job = view.job(j);
        if (held(j).evicted == call_) {  // reclaimed at this instant: it waits for the next call
            blocked_.push_back(v);
            continue;
        }
        for (GpuTypeIdx t = 0; t < fit_.size(); ++t) fit_[t] = std::min(available_[t], room(vc, t));
        auto t = pick_type(view, job, order_, fit_);
        if (!t && borrow_) {
            for (GpuTypeIdx u = 0; u < fit_.size(); ++u)
                fit_[u] = room(vc, u) >= job.num_gpus ? available_[u] + lent_[u] : 0;
            t = pick_type(view, job, order_, fit_);
            // Every lent job is reclaimable here (none was lent in this call yet), so this always frees enough.
            if (t) reclaim(view, j, *t, job.num_gpus, out);
        }
        if (!t) {
            blocked_.push_back(v);
            continue;
        }
        start(view, j, *t, Kind::Guaranteed, out);
        push_head();
    }
}

void VcQuotaPolicy::lend(const ClusterView& view, Decisions& out) {
    const auto later = std::greater<>();
    std::sort(blocked_.begin(), blocked_.end());
    blocked_.erase(std::unique(blocked_.begin(), blocked_.end()), blocked_.end());
    heads_.clear();
    for (std::uint32_t v : blocked_)
        if (!vcs_[v].queue.empty()) heads_.emplace_back(vcs_[v].queue.begin()->first, vcs_[v].queue.begin()->second, v);
    std::make_heap(heads_.begin(), heads_.end(), later);
    int free = std::accumulate(available_.begin(), available_.end(), 0);
    while (!heads_.empty() && free > 0) {
        std::pop_heap(heads_.begin(), heads_.end(), later);
        const auto [submit, j, v] = heads_.back();
        heads_.pop_back();
        Vc& vc = vcs_[v];
        const JobInfo& job = view.job(j);
        if (held(j).evicted == call_) continue;  // reclaimed at this instant: it waits for the next call
        // Within its quota if it fits there (as pass 1 would), else on idle GPUs, else the VC waits (strict).
        for (GpuTypeIdx t = 0; t < fit_.size(); ++t) fit_[t] = std::min(available_[t], room(vc, t));
        Kind kind = Kind::Guaranteed;
        auto t = pick_type(view, job, order_, fit_);
        if (!t) {
            kind = Kind::Opportunistic;
            t = pick_type(view, job, order_, available_);
        }
        if (!t) continue;
        start(view, j, *t, kind, out);
        free -= job.num_gpus;
        if (!vc.queue.empty()) {
            heads_.emplace_back(vc.queue.begin()->first, vc.queue.begin()->second, v);
            std::push_heap(heads_.begin(), heads_.end(), later);
        }
    }
}

void VcQuotaPolicy::decide(const ClusterView& view, const Changes& changes, Decisions& out) {
    ++call_;
    const std::size_t types = view.cluster().gpu_types.size();
    lent_.resize(types, 0);
    available_.resize(types);
    fit_.resize(types);
    for (JobIdx j : changes.finished) release(view, j);
    for (auto list : {changes.declined, changes.requeued})
        for (JobIdx j : list) {
            release(view, j);
            if (view.job(j).state == JobState::Queued) enqueue(view, j);
        }
    for (JobIdx j : changes.arrived) {
        const JobInfo& job = view.job(j);
        if (!borrow_) {
            // In mode=hard a gang larger than its VC's quota on every type it may use would wait forever.
            const Vc& vc = vcs_[job.vc];
            bool fits = false;
            for (GpuTypeIdx t = 0; t < types; ++t)
                fits |= ((job.runnable >> t) & 1) && std::min(vc.quota.per_type[t], vc.quota.total) >= job.num_gpus;
            if (!fits)
                throw InputError(
                    fmt::format("policy vc-quota: job #{} (trace order) of VC {} needs {} GPUs, more than "
                                "its VC's quota on any GPU type it may use, so in mode=hard it could "
                                "never run: raise the quota or use mode=borrow",
                                j, vc_label(vc_names_[job.vc]), job.num_gpus));
        }
        enqueue(view, j);
    }
    if (borrow_) promote(view);
    for (GpuTypeIdx t = 0; t < types; ++t) available_[t] = view.free_gpus(t);
    serve_guaranteed(view, out);
    if (borrow_) lend(view, out);
    explain(view, out);
}

void VcQuotaPolicy::explain(const ClusterView& view, Decisions& out) const {
    // Strict FIFO inside a VC: its head waits for its quota (no type it may use has room in the VC for
    // its gang) or for free GPUs; the rest of the VC's queue waits behind the head.
    for (const Vc& vc : vcs_) {
        if (vc.queue.empty()) continue;
        const JobIdx head = vc.queue.begin()->second;
        const JobInfo& job = view.job(head);
        bool within_quota = false;
        for (GpuTypeIdx t = 0; t < available_.size(); ++t)
            within_quota |= ((job.runnable >> t) & 1) && room(vc, t) >= job.num_gpus;
        out.wait(head, within_quota ? WaitReason::Resources : WaitReason::Quota);
        for (auto it = std::next(vc.queue.begin()); it != vc.queue.end(); ++it)
            out.wait(it->second, WaitReason::HeadOfLine, head);
    }
}

}  // namespace dlsim
