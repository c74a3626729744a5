#!/usr/bin/env python3
"""Saved rigs edited by several clefrun processes at once, and a saved-rigs
path that is a dangling symbolic link.

  saved_rigs_lock.py CLEFRUN

1. Two loops of 50 `rig add` on one config directory, in parallel: all 100
   rigs are in rigs.json afterwards (before the lock, 67-83 survived, every
   command exiting 0). Then two loops of 25 `rig rm` in parallel: exactly the
   other 50 remain.
2. The lock file (rigs.json.lock) is empty and 0600.
3. While another process holds the lock, `rig add` waits for it (it runs
   once the holder lets go), and gives up after 10 s with a message naming
   the lock file, leaving rigs.json as it was.
4. rigs.json a symbolic link to a file that does not exist, in a directory
   that does not exist: `rig add` and `rig rm` exit 1 naming both paths, and
   create nothing.
Python 3 standard library only.
"""
import fcntl
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time

from harness import check, env_for, failures

def clefrun(binary, tmp, *args):
    return subprocess.run([binary, *args], cwd=tmp, env=env_for(tmp), capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


def saved_ids(binary, tmp):
    r = clefrun(binary, tmp, "rig", "list", "--format", "json")
    if r.returncode != 0:
        check(False, "rig list: exit %d: %s" % (r.returncode, r.stderr))
        return []
    return sorted(x["id"] for x in json.loads(r.stdout)["rigs"])


def loops(binary, tmp, commands_per_loop):
    """Run each loop's commands one after another, the loops in parallel;
    the commands that did not exit 0."""
    bad = []

    def loop(cmds):
        for c in cmds:
            r = clefrun(binary, tmp, *c)
            if r.returncode != 0:
                bad.append("%s: exit %d: %s" % (" ".join(c), r.returncode, r.stderr.strip()))

    threads = [threading.Thread(target=loop, args=(cmds,)) for cmds in commands_per_loop]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return bad


def parallel_writers(binary, tmp):
    add = [[["rig", "add", "%s%d" % (p, i), "--mem-gb", "8", "--bw-gbs", "100"] for i in range(1, 51)]
           for p in ("a", "b")]
    bad = loops(binary, tmp, add)
    check(not bad, "parallel rig add: %d commands failed: %s" % (len(bad), "; ".join(bad[:3])))
    ids = saved_ids(binary, tmp)
    want = sorted("%s%d" % (p, i) for p in ("a", "b") for i in range(1, 51))
    check(ids == want, "parallel rig add: %d of 100 rigs saved, missing %s"
          % (len(ids), ", ".join(sorted(set(want) - set(ids))[:10])))

    rm = [[["rig", "rm", "%s%d" % (p, i)] for i in range(1, 26)] for p in ("a", "b")]
    bad = loops(binary, tmp, rm)
    check(not bad, "parallel rig rm: %d commands failed: %s" % (len(bad), "; ".join(bad[:3])))
    ids = saved_ids(binary, tmp)
    want = sorted("%s%d" % (p, i) for p in ("a", "b") for i in range(26, 51))
    check(ids == want, "parallel rig rm: %d rigs left, expected the 50 not removed: %s"
          % (len(ids), ", ".join(ids[:10])))

    lock = os.path.join(tmp, "config", "clefrun", "rigs.json.lock")
    st = os.stat(lock)
    check(st.st_size == 0 and stat.S_IMODE(st.st_mode) == 0o600,
          "lock file: %d bytes, mode %o; expected empty, 0600" % (st.st_size, stat.S_IMODE(st.st_mode)))


def held_lock(binary, tmp):
    d = os.path.join(tmp, "config", "clefrun")
    os.makedirs(d, exist_ok=True)
    lock = os.path.join(d, "rigs.json.lock")
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        release = threading.Timer(1.0, fcntl.flock, (f, fcntl.LOCK_UN))
        t0 = time.monotonic()
        release.start()
        r = clefrun(binary, tmp, "rig", "add", "waiter", "--mem-gb", "8", "--bw-gbs", "100")
        took = time.monotonic() - t0
        release.join()
        check(r.returncode == 0 and took >= 0.9,
              "rig add under a held lock: exit %d after %.2f s (expected 0, after the 1 s hold): %s"
              % (r.returncode, took, r.stderr.strip()))
        check(saved_ids(binary, tmp) == ["waiter"], "rig add under a held lock: rig not saved")

        rigs = os.path.join(d, "rigs.json")
        with open(rigs, "rb") as g:
            before = g.read()
        fcntl.flock(f, fcntl.LOCK_EX)
        t0 = time.monotonic()
        r = clefrun(binary, tmp, "rig", "add", "late", "--mem-gb", "8", "--bw-gbs", "100")
        took = time.monotonic() - t0
        with open(rigs, "rb") as g:
            after = g.read()
        check(r.returncode == 1 and 9.5 <= took <= 30
              and r.stderr.strip() == "clefrun: saved rigs: %s: another clefrun has held this lock "
              "for 10 s; try again when it has finished" % lock,
              "rig add under a lock never released: exit %d after %.1f s: %s"
              % (r.returncode, took, r.stderr.strip()))
        check(before == after, "rig add that timed out changed rigs.json")


def dangling_link(binary, tmp):
    d = os.path.join(tmp, "config", "clefrun")
    os.makedirs(d)
    target = os.path.join(tmp, "nowhere", "deeper", "rigs.json")
    link = os.path.join(d, "rigs.json")
    os.symlink(target, link)
    for args in (["rig", "add", "box", "--mem-gb", "8", "--bw-gbs", "100"], ["rig", "rm", "box"]):
        r = clefrun(binary, tmp, *args)
        want = ("clefrun: saved rigs: %s: a symbolic link to %s, which does not exist; create that "
                "file or remove the link" % (link, target))
        check(r.returncode == 1 and r.stderr.strip() == want and not r.stdout,
              "%s through a dangling link: exit %d, stderr %r; expected 1, %r"
              % (" ".join(args[:2]), r.returncode, r.stderr.strip(), want))
        check(not os.path.exists(os.path.join(tmp, "nowhere")),
              "%s through a dangling link created the link's target directories" % " ".join(args[:2]))
        check(sorted(os.listdir(d)) == ["rigs.json"] and os.path.islink(link),
              "%s through a dangling link: the config directory holds %s"
              % (" ".join(args[:2]), os.listdir(d)))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    for case in (parallel_writers, held_lock, dangling_link):
        tmp = tempfile.mkdtemp(prefix="clefrun-rigs-lock.")
        try:
            case(binary, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%s: %d failures" % (os.path.basename(__file__), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
