#pragma once
// The Python policy API (docs: policies/foreign/PYTHON_API.md): dlsim.Policy, the base class a Python policy
// derives from, and the view, changes and decisions its decide(view, changes, decisions) gets. The three
// call objects are made once per policy and pointed at each call's C++ objects while the call lasts, so a
// call allocates no Python object the policy does not ask for (view.job(j) makes a small handle reading the
// engine's JobInfo live; a list attribute makes its list when read). Used outside its call, a call object
// raises.
#include "policies/policy.hpp"

#include <pybind11/pybind11.h>

#include <cstddef>
#include <memory>

namespace dlsim::python {

/// What one decide call reads and writes; null outside the call.
struct CallState {
    const ClusterView* view = nullptr;
    const Changes* changes = nullptr;
    Decisions* out = nullptr;
    std::size_t num_jobs = 0;  ///< the run's jobs: view.job(j) checks j against it
};

/// One policy's call objects, re-pointed at every call through `state`. (Hidden like pybind11's own types,
/// which it holds.)
struct __attribute__((visibility("hidden"))) CallObjects {
    std::shared_ptr<CallState> state;
    pybind11::object view, changes, decisions;
};

/// Adds dlsim.Policy, the call objects' classes, NEVER, seconds() and micros() to `m`.
void define_policy_api(pybind11::module_& m);

/// The call objects of one policy (the classes must have been defined: the `dlsim` module is imported).
CallObjects make_call_objects(std::size_t num_jobs);

}  // namespace dlsim::python
