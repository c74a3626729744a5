#!/usr/bin/env python3
"""One HTTP deadline per command (CLEFRUN_HTTP_DEADLINE), end to end against
the loopback server (tests/support/http_server.py, /drip/RATE/NAME sends
RATE bytes/s).

  test_deadline.py CLEFRUN FIXTURES_DIR

1. A split model whose two parts each download within the deadline but not
   both: `inspect` of part 1 at 17500 bytes/s (59 616 + 23 488 bytes: 3.4 s,
   then 1.3 s more) with CLEFRUN_HTTP_DEADLINE=4 stops at 4 s in part 2,
   with the deadline's message; a limit per request would have let both
   through. With stderr a pipe, stderr is that message alone.
2. The same with stderr a terminal (a pty): a progress line appears, and is
   erased before the message.
3. CLEFRUN_HTTP_DEADLINE=20: the same model downloads (exit 0).
4. Bad values (abc, 0, -5, 86401, 1.5, empty is the default) are a usage
   error (exit 2) before any request.
Python 3 standard library only (pty: Linux and macOS).
"""
import json
import os
import pty
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import clefrun_test as T  # noqa: E402

CLEFRUN, FIX = sys.argv[1:3]
check = T.check


def environment(tmp, deadline):
    e = T.clean_env(tmp)
    if deadline is not None:
        e["CLEFRUN_HTTP_DEADLINE"] = deadline
    return e


def run(tmp, url, deadline, tty=False):
    """(exit, stdout, stderr, seconds); stderr a pty when tty."""
    args = [CLEFRUN, "inspect", "--no-cache", "--format", "json", url]
    t0 = time.monotonic()
    if not tty:
        p = subprocess.run(args, capture_output=True, env=environment(tmp, deadline), timeout=120,
                           stdin=subprocess.DEVNULL)
        return p.returncode, p.stdout.decode(), p.stderr.decode(), time.monotonic() - t0
    master, slave = pty.openpty()
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                         env=environment(tmp, deadline))
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the other end closed
            break
        if not chunk:
            break
        err += chunk
    out = p.stdout.read()
    p.wait(120)
    os.close(master)
    return p.returncode, out.decode(), err.decode(), time.monotonic() - t0


def requests(log):
    with open(log) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    tmp = tempfile.mkdtemp(prefix="clefrun-deadline.")
    log = os.path.join(tmp, "server.log")
    open(log, "w").close()
    srv = T.LoopbackServer(FIX, log)
    try:
        base = srv.base
        part1 = base + "/drip/17500/tiny-split-00001-of-00002.gguf"
        part2 = base + "/drip/17500/tiny-split-00002-of-00002.gguf"
        want = ("clefrun: %s: timed out: the requests of one command may take at most 4 s together "
                "(CLEFRUN_HTTP_DEADLINE sets it)" % part2)

        code, out, err, took = run(tmp, part1, "4")
        paths = [r["path"] for r in requests(log)]
        check("deadline across the parts of a split model: exit 1, the message alone on stderr",
              code == 1 and err == want + "\n" and not out, "exit %d, stderr %r" % (code, err))
        check("deadline across the parts: stopped at 4 s, in part 2",
              3.9 <= took <= 4.6 and paths == ["/drip/17500/tiny-split-00001-of-00002.gguf",
                                                "/drip/17500/tiny-split-00002-of-00002.gguf"],
              "%.2f s, requests %s" % (took, paths))

        code, out, err, took = run(tmp, part1, "4", tty=True)
        # The terminal writes "\n" as "\r\n".
        check("progress on a terminal: a line, erased before the message",
              code == 1 and "\rclefrun: downloading: " in err and " of at most 4 s" in err
              and err.endswith(" \r" + want + "\r\n"),
              "exit %d, stderr %r" % (code, err[-300:]))

        code, out, err, took = run(tmp, part1, "20")
        check("a deadline long enough: the split model loads",
              code == 0 and json.loads(out)["gguf"]["parts"] == 2 and err == "",
              "exit %d, %.1f s, stderr %r" % (code, took, err))

        for bad in ("abc", "0", "-5", "86401", "1.5", " 3"):
            open(log, "w").close()
            code, out, err, took = run(tmp, base + "/files/tiny-llama.gguf", bad)
            shown = bad
            check("CLEFRUN_HTTP_DEADLINE=%r: usage error, no request" % bad,
                  code == 2 and err == "clefrun: CLEFRUN_HTTP_DEADLINE: '%s' is not a whole number of "
                  "seconds from 1 to 86400\n" % shown and not requests(log),
                  "exit %d, stderr %r" % (code, err))
        code, out, err, took = run(tmp, base + "/files/tiny-llama.gguf", "")
        check("CLEFRUN_HTTP_DEADLINE empty: the default", code == 0 and err == "", "exit %d, %r" % (code, err))
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
