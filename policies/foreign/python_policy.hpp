#pragma once
// `--policy py:FILE.py:CLASS`: a policy written in Python (a subclass of dlsim.Policy), run in-process.
// From the command line an interpreter is embedded (started at the first Python policy, never stopped);
// inside Python (the `dlsim` module's run()) the running interpreter is used. The API the class sees is
// policies/foreign/view_bindings.hpp; docs in policies/foreign/PYTHON_API.md. Each call has a time limit
// (parameter py_timeout), and the embedded interpreter guards the functions that would end dlsim's process
// (os._exit, os.abort, a signal to itself): both end the run with an input error, never a silent exit.
#include "models/base/input_error.hpp"
#include "policies/registry.hpp"

#include <map>
#include <memory>
#include <string>

namespace dlsim {

/// The registry entry of `py:FILE.py:CLASS` (`name` is the whole form, `spec` what follows `py:`). It
/// declares the given parameters as text (passed to CLASS(**params), converted to int, float or bool
/// where they read as one) and adds `source`, a File parameter naming FILE, so the run identity holds the
/// file's sha256. A relative FILE is read relative to `params_dir` ("" = the working folder).
/// `py:instance:NAME` is the policy object dlsim.run was given (see PolicyInstanceScope).
RegistryEntry<Policy> python_policy_entry(const std::string& name, const std::string& spec,
                                          const std::map<std::string, std::string>& raw_params,
                                          const std::string& params_dir);

/// An exception raised by a Python policy, as an input error naming its file:line; the Python exception
/// itself is kept so that dlsim.run can raise it again with its traceback.
class PythonPolicyError : public InputError {
public:
    PythonPolicyError(const std::string& what, std::shared_ptr<void> python_error)
        : InputError(what), python_error_(std::move(python_error)) {}
    /// A pybind11::error_already_set (type-erased so this header needs no Python headers).
    const std::shared_ptr<void>& python_error() const { return python_error_; }

private:
    std::shared_ptr<void> python_error_;
};

/// While alive, `py:instance:NAME` on this thread means the Python policy object `instance` (a
/// PyObject*, borrowed): how dlsim.run runs an object it was given through the usual run path.
class PolicyInstanceScope {
public:
    explicit PolicyInstanceScope(void* instance);
    ~PolicyInstanceScope();
    PolicyInstanceScope(const PolicyInstanceScope&) = delete;
    PolicyInstanceScope& operator=(const PolicyInstanceScope&) = delete;

private:
    void* previous_;
};

}  // namespace dlsim
