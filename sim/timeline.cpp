#include "sim/timeline.hpp"

#include "models/base/input_error.hpp"
#include "models/base/json_out.hpp"

#include <algorithm>

namespace dlsim {

namespace {
/// Track ids: a process per node (pid = node + 1; pid 0 holds the cluster-wide counters and arrivals),
/// a thread per GPU (tid = GPU within the node + 1), and a second thread per GPU for a packed partner.
int pid(NodeIdx n) { return static_cast<int>(n) + 1; }
int tid(const GpuSlots::Held& h) { return h.gpu + 1 + h.layer * 1000; }
}  // namespace

Timeline::Timeline(const std::string& path, const Trace& trace, const Cluster& cluster, std::string policy, Time from,
                   Time to)
    : file_(std::fopen(path.c_str(), "w")),
      trace_(trace),
      cluster_(cluster),
      policy_(std::move(policy)),
      from_(from),
      to_(to),
      slots_(cluster, trace.jobs.size()),
      open_(trace.jobs.size()),
      flow_(trace.jobs.size(), 0),
      packed_named_(cluster.num_gpus(), 0),
      busy_(cluster.gpu_types.size(), 0) {
    if (file_ == nullptr) throw InputError(path + ": cannot write the timeline");
    fmt::print(file_, "{{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
    event(R"({"ph":"M","name":"process_name","pid":0,"args":{"name":"cluster"}})");
    event(R"({"ph":"M","name":"process_sort_index","pid":0,"args":{"sort_index":0}})");
    for (NodeIdx n = 0; n < cluster.nodes.size(); ++n) {
        const Node& node = cluster.nodes[n];
        event(fmt::format(
            R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":{}}}}})", pid(n),
            json_out::quote(fmt::format("node {} ({} x {})", n, node.gpus, cluster.gpu_types[node.gpu_type].name))));
        event(fmt::format(R"({{"ph":"M","name":"process_sort_index","pid":{},"args":{{"sort_index":{}}}}})", pid(n),
                          pid(n)));
        for (int g = 0; g < node.gpus; ++g)
            event(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"GPU {}"}}}})",
                              pid(n), g + 1, g));
    }
}

Timeline::~Timeline() {
    if (!done_) {
        // An exception ended the run: still a well-formed file.
        fmt::print(file_, "\n]}}\n");
        std::fclose(file_);
    }
}

void Timeline::event(const std::string& body) {
    fmt::print(file_, "{}\n{}", first_ ? "" : ",", body);
    first_ = false;
}

void Timeline::track_name(const GpuSlots::Held& h) {
    if (h.layer == 0) return;
    char& named = packed_named_[slots_.global(h)];
    if (named) return;
    named = 1;
    event(fmt::format(R"x({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"GPU {} (packed)"}}}})x",
                      pid(h.node), tid(h), h.gpu));
}

void Timeline::touch(Time t) {
    if (dirty_ && t != counter_time_) flush_counters();
    counter_time_ = t;
}

void Timeline::flush_counters() {
    dirty_ = false;
    if (counter_time_ > to_) return;
    const Time ts = std::max(counter_time_, from_);
    event(fmt::format(R"({{"ph":"C","name":"queued jobs","pid":0,"ts":{},"args":{{"queued":{}}}}})", ts, queued_));
    std::string busy;
    for (std::size_t k = 0; k < busy_.size(); ++k)
        busy += fmt::format("{}{}:{}", k ? "," : "", json_out::quote(cluster_.gpu_types[k].name), busy_[k]);
    event(fmt::format(R"({{"ph":"C","name":"busy GPUs","pid":0,"ts":{},"args":{{{}}}}})", ts, busy));
}

void Timeline::instant(Time t, const char* what, JobIdx j, const GpuSlots::Held* where) {
    if (!in_window(t)) return;
    const std::string name = json_out::quote(fmt::format("{} {}", what, trace_.jobs[j].id));
    const std::string args = fmt::format(R"("args":{{"job_id":{}}})", json_out::quote(trace_.jobs[j].id));
    if (where)
        event(fmt::format(R"({{"ph":"i","s":"t","name":{},"pid":{},"tid":{},"ts":{},{}}})", name, pid(where->node),
                          tid(*where), t, args));
    else
        event(fmt::format(R"({{"ph":"i","s":"p","name":{},"pid":0,"tid":0,"ts":{},{}}})", name, t, args));
}

void Timeline::slice(Time a, Time b, JobIdx j, const GpuSlots::Held& h, const char* state) {
    a = std::max(a, from_);
    b = std::min(b, to_);
    if (b <= a) return;
    const Open& o = open_[j];
    track_name(h);
    event(fmt::format(R"({{"ph":"X","name":{},"pid":{},"tid":{},"ts":{},"dur":{},"args":{{"policy":{},)"
                      R"("gpu_type":{},"gpus":{},"state":"{}"}}}})",
                      json_out::quote(trace_.jobs[j].id), pid(h.node), tid(h), a, b - a, json_out::quote(policy_),
                      json_out::quote(cluster_.gpu_types[o.type].name), o.gpus, state));
}

void Timeline::open(Time t, JobIdx j, const JobInfo& job, const Allocation& a) {
    const std::vector<GpuSlots::Held>& held = slots_.take(j, a);
    open_[j] = {t, std::max(t, job.progress_from), a.gpu_type, a.num_gpus()};
    if (!a.packed()) busy_[a.gpu_type] += a.num_gpus();  // a GPU counts once, with one job or two
    if (flow_[j] != 0 && in_window(t) && !held.empty()) {
        track_name(held.front());
        event(fmt::format(R"({{"ph":"f","bp":"e","name":"resume","cat":"preemption","id":{},"pid":{},"tid":{},)"
                          R"("ts":{}}})",
                          flow_[j], pid(held.front().node), tid(held.front()), t));
    }
    flow_[j] = 0;
}

void Timeline::close(Time t, JobIdx j) {
    const Open& o = open_[j];
    for (const GpuSlots::Held& h : slots_.held(j)) {
        slice(o.start, std::min(o.restart_end, t), j, h, "restart");
        slice(std::max(o.start, o.restart_end), t, j, h, "running");
    }
    slots_.release(j);
}

void Timeline::on_arrival(Time t, JobIdx j, const JobInfo&) {
    touch(t);
    ++queued_;
    dirty_ = true;
    instant(t, "arrival", j, nullptr);
}

void Timeline::on_reject(Time t, JobIdx j, const JobInfo&) { instant(t, "reject", j, nullptr); }

void Timeline::on_start(Time t, JobIdx j, const JobInfo& job, const Allocation& a) {
    touch(t);
    --queued_;
    dirty_ = true;
    open(t, j, job, a);
}

void Timeline::on_preempt(Time t, JobIdx j, const JobInfo&, const Allocation& released) {
    touch(t);
    ++queued_;
    if (!released.packed()) busy_[released.gpu_type] -= released.num_gpus();
    dirty_ = true;
    const bool any = !slots_.held(j).empty();
    const GpuSlots::Held first = any ? slots_.held(j).front() : GpuSlots::Held{};
    const Time start = open_[j].start;
    close(t, j);
    if (!any) return;
    instant(t, "preempt", j, &first);
    if (in_window(t)) {
        // The flow leaves from inside the preempted slice (1 µs before its end), where viewers bind it.
        const Time ts = std::max({start, from_, t - 1});
        flow_[j] = next_flow_++;
        event(fmt::format(R"({{"ph":"s","name":"resume","cat":"preemption","id":{},"pid":{},"tid":{},"ts":{}}})",
                          flow_[j], pid(first.node), tid(first), ts));
    }
}

void Timeline::on_finish(Time t, JobIdx j, const JobInfo&, const Allocation& released) {
    touch(t);
    if (!released.packed()) busy_[released.gpu_type] -= released.num_gpus();
    dirty_ = true;
    close(t, j);
}

void Timeline::on_resize(Time t, JobIdx j, const JobInfo& job, const Allocation& from, Time, const Allocation& to,
                         Transition why) {
    touch(t);
    if (!from.packed()) busy_[from.gpu_type] -= from.num_gpus();
    dirty_ = true;
    close(t, j);
    open(t, j, job, to);
    if (!slots_.held(j).empty())
        instant(t, why == Transition::Migrate ? "migrate" : "resize", j, &slots_.held(j).front());
}

void Timeline::finish(Time now) {
    touch(now);
    if (dirty_) flush_counters();
    for (JobIdx j = 0; j < open_.size(); ++j)
        if (!slots_.held(j).empty()) close(now, j);
    fmt::print(file_, "\n]}}\n");
    std::fclose(file_);
    done_ = true;
}

}  // namespace dlsim
