"""What the hostile-input scripts share: a failure list and a clean environment for clefrun.

check(cond, what) records and prints a failure (the message says what went wrong); env_for(tmp) is
tests/support's clean environment (clefrun_test.clean_env: no CLEFRUN_*, HF_*, XDG_* or proxy
variable, HOME and the XDG config and cache directories inside tmp, NO_COLOR and the C locale), so that
no saved rig, cache or token of the machine running the tests is seen.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import clefrun_test  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def env_for(tmp):
    return clefrun_test.clean_env(tmp)
