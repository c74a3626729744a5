"""What the hostile-input scripts share: a failure list and a clean environment for clefrun.

check(cond, what) records and prints a failure; env_for(tmp) is the caller's environment without any
CLEFRUN_* or HF_* variable, with HOME and the XDG config and cache directories inside tmp, NO_COLOR and
the C locale (so that no saved rig, cache or token of the machine running the tests is seen).
"""
import os

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def env_for(tmp):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLEFRUN_", "HF_"))}
    env.update(HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
               XDG_CACHE_HOME=os.path.join(tmp, "cache"), NO_COLOR="1", LC_ALL="C")
    return env
