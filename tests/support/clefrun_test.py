"""What the Python test drivers share (tests/support; C helpers: support.h).

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
    import clefrun_test as T

- T.check(name, ok, detail=""): one named check, printed "ok   NAME" or "FAIL NAME" with the detail
  indented under it; failures are kept in T.failures. T.summary() prints "N of M checks passed" and
  returns the exit status (1 when any check failed).
- T.clean_env(tmp, **extra): the caller's environment without anything that would let the machine
  running the tests leak in (CLEFRUN_*, HF_*, XDG_*, proxies, NO_COLOR, TERM), with HOME and the XDG
  config and cache directories inside tmp, NO_COLOR=1 and the C locale; extra entries are added last.
- T.LoopbackServer(root, log): http_server.py serving root on 127.0.0.1 (a free port), its request log
  (one JSON line per request) at log; a context manager; .port, .base ("http://127.0.0.1:PORT").
- T.gguf_write(out, *args, writer=None): scripts/gguf-write (or writer) writing out, a GGUF made from
  a preset; its stdout is dropped.
- T.load_script(path, name): the Python script at path (a bench or helper without a .py name) loaded as
  module name, so a test can call its functions.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SERVER = os.path.join(HERE, "http_server.py")
GGUF_WRITE = os.path.join(ROOT, "scripts", "gguf-write")

failures = []
checks = 0


def load_script(path, name):
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader(name, path)
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(module)
    return module


def check(name, ok, detail=""):
    global checks
    checks += 1
    if ok:
        print("ok  ", name)
    else:
        failures.append(name)
        print("FAIL", name)
        if detail:
            print("   ", str(detail)[:2000].replace("\n", "\n    "))
    return ok


def summary():
    print(f"{checks - len(failures)} of {checks} checks passed")
    return 1 if failures else 0


_PROXIES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


def clean_env(tmp, **extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLEFRUN_", "HF_", "HUGGINGFACE_", "OLLAMA_", "XDG_")) and k.lower() not in _PROXIES
           and k not in ("NO_COLOR", "TERM")}
    env.update(HOME=tmp, XDG_CONFIG_HOME=os.path.join(tmp, "config"),
               XDG_CACHE_HOME=os.path.join(tmp, "cache"), NO_COLOR="1", LC_ALL="C")
    env.update(extra)
    return env


class LoopbackServer:
    def __init__(self, root, log):
        self.root, self.log = root, log
        self.proc = subprocess.Popen([sys.executable, SERVER, "--root", root, "--log", log],
                                     stdout=subprocess.PIPE, text=True)
        try:
            # The server's first line is "PORT N" once it listens.
            self.port = int(self.proc.stdout.readline().split()[1])
        except (IndexError, ValueError):
            self.stop()
            raise RuntimeError(f"{SERVER} did not start")
        self.base = f"http://127.0.0.1:{self.port}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
        return False


def gguf_write(out, *args, writer=None):
    subprocess.run([sys.executable, writer or GGUF_WRITE, *args, "-o", out], check=True,
                   stdout=subprocess.DEVNULL)
