#include "policies/foreign/view_bindings.hpp"

#include <pybind11/stl.h>

#include <bit>
#include <optional>
#include <string>

namespace py = pybind11;

namespace dlsim::python {

namespace {

/// The engine's job states as Python strings, made once (interned, never freed: they live as long as the
/// interpreter).
PyObject* state_names[5] = {};

[[noreturn]] void outside_call() {
    throw std::runtime_error(
        "dlsim: a view, job, changes or decisions object is valid only during the decide call that received it");
}

const CallState& active(const std::shared_ptr<CallState>& s) {
    if (s->view == nullptr) outside_call();
    return *s;
}

struct ViewHandle {
    std::shared_ptr<CallState> state;
    const ClusterView& view() const { return *active(state).view; }
    GpuTypeIdx type(GpuTypeIdx t) const {
        if (t >= view().cluster().gpu_types.size())
            throw py::index_error("dlsim: GPU type " + std::to_string(t) + " does not exist (the cluster has " +
                                  std::to_string(view().cluster().gpu_types.size()) + ")");
        return t;
    }
};

struct JobHandle {
    std::shared_ptr<CallState> state;
    JobIdx j;
    const JobInfo& info() const { return active(state).view->job(j); }
};

struct ChangesHandle {
    std::shared_ptr<CallState> state;
    const Changes& changes() const { return *active(state).changes; }
};

struct DecisionsHandle {
    std::shared_ptr<CallState> state;
    Decisions& out() const { return *active(state).out; }
};

/// The base class of Python policies: no state; its decide says that a subclass must define one.
struct PolicyBase {};

/// A wait reason by its name (policies/reasons.hpp); a ValueError naming the vocabulary otherwise.
WaitReason wait_reason_by_name(const std::string& name) {
    if (const auto r = wait_reason_named(name)) return *r;
    throw py::value_error("dlsim: unknown wait reason '" + name + "' (expected one of " + wait_reason_list() + ")");
}

/// A preemption cause a policy may give, by its name; a ValueError otherwise.
StopCause stop_cause_by_name(const std::string& name) {
    if (const auto c = policy_stop_cause_named(name)) return *c;
    throw py::value_error("dlsim: unknown preemption cause '" + name + "' (expected " +
                          std::string(kPolicyStopCauseList) + ")");
}

py::list to_list(std::span<const JobIdx> jobs) {
    py::list out(jobs.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) out[i] = py::int_(jobs[i]);
    return out;
}

template <class Field>
auto job_field(Field field) {
    return [field](const JobHandle& h) { return h.info().*field; };
}

}  // namespace

void define_policy_api(py::module_& m) {
    static const char* const names[] = {"pending", "queued", "running", "finished", "rejected"};
    for (int i = 0; i < 5; ++i)
        if (state_names[i] == nullptr) state_names[i] = PyUnicode_InternFromString(names[i]);

    m.attr("NEVER") = py::int_(kNever);
    m.def(
        "seconds", [](Time us) { return to_seconds(us); }, py::arg("us"), "microseconds (int) -> seconds (float)");
    m.def(
        "micros", [](double s) { return to_time(s); }, py::arg("s"),
        "seconds -> microseconds, rounded to nearest (the engine's to_time)");

    py::class_<PolicyBase>(m, "Policy",
                           "Base class of a Python policy: override decide(view, changes, decisions); __init__ "
                           "receives the run's --param values as keyword arguments")
        .def(py::init<>())
        .def("decide", [](PolicyBase&, py::object, py::object, py::object) {
            throw py::type_error("dlsim.Policy.decide: a policy must define decide(self, view, changes, decisions)");
        });

    py::class_<JobHandle>(m, "Job", "One job as the engine keeps it (dlsim's JobInfo), read live")
        .def_property_readonly("submit", job_field(&JobInfo::submit))
        .def_property_readonly("work", job_field(&JobInfo::work))
        .def_property_readonly("model", job_field(&JobInfo::model))
        .def_property_readonly("num_gpus", job_field(&JobInfo::num_gpus))
        .def_property_readonly("min_gpus", job_field(&JobInfo::min_gpus))
        .def_property_readonly("max_gpus", job_field(&JobInfo::max_gpus))
        .def_property_readonly("runnable",
                               [](const JobHandle& h) {
                                   py::list out;
                                   for (GpuTypeMask types = h.info().runnable; types != 0; types &= types - 1)
                                       out.append(py::int_(std::countr_zero(types)));
                                   return out;
                               })
        .def_property_readonly("user", job_field(&JobInfo::user))
        .def_property_readonly("vc", job_field(&JobInfo::vc))
        .def_property_readonly("weight", job_field(&JobInfo::weight))
        .def_property_readonly(
            "state",
            [](const JobHandle& h) {
                return py::reinterpret_borrow<py::str>(state_names[static_cast<int>(h.info().state)]);
            })
        .def_property_readonly("first_start", job_field(&JobInfo::first_start))
        .def_property_readonly("finish", job_field(&JobInfo::finish))
        .def_property_readonly("attained", job_field(&JobInfo::attained))
        .def_property_readonly("preemptions", job_field(&JobInfo::preemptions))
        .def_property_readonly("migrations", job_field(&JobInfo::migrations))
        .def_property_readonly("gpu_type", job_field(&JobInfo::gpu_type))
        .def_property_readonly("alloc_gpus", job_field(&JobInfo::alloc_gpus))
        .def_property_readonly("rate", job_field(&JobInfo::rate))
        .def_property_readonly("stint_start", job_field(&JobInfo::stint_start))
        .def_property_readonly("progress_from", job_field(&JobInfo::progress_from))
        .def_property_readonly("remaining", job_field(&JobInfo::remaining))
        .def(
            "remaining_at", [](const JobHandle& h, Time now) { return h.info().remaining_at(now); }, py::arg("now"))
        .def(
            "attained_at", [](const JobHandle& h, Time now) { return h.info().attained_at(now); }, py::arg("now"));

    py::class_<ViewHandle>(m, "View", "The read-only view of the cluster and jobs (valid only during the call)")
        .def_property_readonly("now", [](const ViewHandle& h) { return h.view().now(); })
        .def_property_readonly("num_jobs", [](const ViewHandle& h) { return active(h.state).num_jobs; })
        .def_property_readonly("type_names",
                               [](const ViewHandle& h) {
                                   py::list out;
                                   for (const auto& t : h.view().cluster().gpu_types) out.append(py::str(t.name));
                                   return out;
                               })
        .def(
            "gpus_of_type",
            [](const ViewHandle& h, GpuTypeIdx t) { return h.view().cluster().gpus_of_type(h.type(t)); }, py::arg("t"))
        .def(
            "free_gpus", [](const ViewHandle& h, GpuTypeIdx t) { return h.view().free_gpus(h.type(t)); }, py::arg("t"))
        .def(
            "free_gpus_on",
            [](const ViewHandle& h, NodeIdx node) {
                if (node >= h.view().cluster().nodes.size())
                    throw py::index_error("dlsim: node " + std::to_string(node) + " does not exist");
                return h.view().free_gpus_on(node);
            },
            py::arg("node"))
        .def(
            "node_with_free",
            [](const ViewHandle& h, GpuTypeIdx t, int k) -> py::object {
                if (k < 1) throw py::value_error("dlsim: node_with_free: k must be >= 1");
                const NodeIdx n = h.view().node_with_free(h.type(t), k);
                return n == kNoNode ? py::object(py::none()) : py::object(py::int_(n));
            },
            py::arg("t"), py::arg("k"))
        .def("running_jobs", [](const ViewHandle& h) { return to_list(h.view().running_jobs()); })
        .def(
            "rate",
            [](const ViewHandle& h, ModelIdx model, GpuTypeIdx t, int n) {
                if (n < 1) throw py::value_error("dlsim: rate: n must be >= 1");
                return h.view().rates().rate(model, h.type(t), n);
            },
            py::arg("model"), py::arg("t"), py::arg("n"))
        .def(
            "job",
            [](const ViewHandle& h, JobIdx j) {
                if (j >= active(h.state).num_jobs)
                    throw py::index_error("dlsim: job " + std::to_string(j) + " does not exist (the run has " +
                                          std::to_string(h.state->num_jobs) + " jobs)");
                return JobHandle{h.state, j};
            },
            py::arg("j"));

    py::class_<ChangesHandle>(m, "Changes", "What happened since the last call (job indices in event order)")
        .def_property_readonly("arrived", [](const ChangesHandle& h) { return to_list(h.changes().arrived); })
        .def_property_readonly("finished", [](const ChangesHandle& h) { return to_list(h.changes().finished); })
        .def_property_readonly("requeued", [](const ChangesHandle& h) { return to_list(h.changes().requeued); })
        .def_property_readonly("declined", [](const ChangesHandle& h) { return to_list(h.changes().declined); })
        .def_property_readonly("timer", [](const ChangesHandle& h) { return h.changes().timer; });

    py::class_<DecisionsHandle>(m, "Decisions", "The call's answer; the engine checks every action")
        .def(
            "start", [](const DecisionsHandle& h, JobIdx j, GpuTypeIdx t, int n) { h.out().start(j, t, n); },
            py::arg("j"), py::arg("t"), py::arg("n"))
        .def(
            "preempt",
            [](const DecisionsHandle& h, JobIdx j, std::optional<std::string> cause, std::optional<JobIdx> by) {
                h.out().preempt(j, cause ? stop_cause_by_name(*cause) : StopCause::Unstated, by.value_or(kNobody));
            },
            py::arg("j"), py::arg("cause") = py::none(), py::arg("by") = py::none())
        .def(
            "wait",
            [](const DecisionsHandle& h, JobIdx j, const std::string& reason, std::optional<JobIdx> behind) {
                h.out().wait(j, wait_reason_by_name(reason), behind.value_or(kNobody));
            },
            py::arg("j"), py::arg("reason"), py::arg("behind") = py::none())
        .def(
            "wait_rest",
            [](const DecisionsHandle& h, const std::string& reason, std::optional<JobIdx> behind) {
                h.out().wait_rest(wait_reason_by_name(reason), behind.value_or(kNobody));
            },
            py::arg("reason"), py::arg("behind") = py::none())
        .def(
            "migrate", [](const DecisionsHandle& h, JobIdx j, GpuTypeIdx t) { h.out().migrate(j, t); }, py::arg("j"),
            py::arg("t"))
        .def(
            "resize", [](const DecisionsHandle& h, JobIdx j, int n) { h.out().resize(j, n); }, py::arg("j"),
            py::arg("n"))
        .def(
            "pack", [](const DecisionsHandle& h, JobIdx j, JobIdx partner) { h.out().pack(j, partner); }, py::arg("j"),
            py::arg("partner"))
        .def_property(
            "next_call", [](const DecisionsHandle& h) { return h.out().next_call; },
            [](const DecisionsHandle& h, Time t) { h.out().next_call = t; });
}

CallObjects make_call_objects(std::size_t num_jobs) {
    auto state = std::make_shared<CallState>();
    state->num_jobs = num_jobs;
    return {state, py::cast(ViewHandle{state}), py::cast(ChangesHandle{state}), py::cast(DecisionsHandle{state})};
}

}  // namespace dlsim::python
