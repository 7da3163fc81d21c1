"""A policy that fails on purpose (tests/test_pipe_policy.cpp): ParamsEcho's constructor raises with the
parameters it was given (to check how the client converts them); Boom raises in its third call."""
import dlsim


class ParamsEcho(dlsim.Policy):
    def __init__(self, **params):
        super().__init__()
        raise ValueError(repr(sorted(params.items())))


class Boom(dlsim.Policy):
    def __init__(self, **params):
        super().__init__()
        self.calls = 0

    def decide(self, view, changes, decisions):
        self.calls += 1
        if self.calls == 3:
            return 1 / 0
