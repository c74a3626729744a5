#!/usr/bin/env python3
"""`report -o PATH` and `chart -o PATH` against every kind of thing PATH can
be (docs/report.md, "What -o FILE does with what is there").

  output_targets.py CLEFRUN

Before the fix the atomic writer renamed a temporary over PATH whatever it
was: as root `-o /dev/null` turned /dev/null into a regular file, a link to
/proc/self/fd/1 and a FIFO were replaced by files, a 0600 file came back
0644, and a hard link was split. For each of report and chart:

  new file        created, 0666 less the umask (022 here: 0644)
  0600 file       replaced, still 0600
  hard link       rewritten in place: both names show the new page
  symlink         the file it names is written; the link stays a link
  link to fd 1    /proc/self/fd/1 with stdout a pipe: the page comes out
                  of the pipe; the link stays
  FIFO            a reader gets the whole page; the FIFO stays a FIFO
  char device     as root a null device (1, 3) made in the test directory
                  (never the system's /dev/null, in case of a regression),
                  otherwise /dev/null: written, still a character device
  -o -            the page on stdout
  dangling link   refused, exit 1, nothing created
  directory       refused, exit 1
Python 3 standard library only (Linux: /proc/self/fd).
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading

from harness import check, env_for, failures

COMMANDS = {
    "report": (["report", "--model", "clef-flash", "--rig", "rtx4090"], b"<!DOCTYPE html>"),
    "chart": (["chart", "--model", "clef-flash", "--rig", "rtx4090"], b"<?xml"),
}


def run(binary, tmp, base, out):
    return subprocess.run([binary, *base, "-o", out], cwd=tmp, env=env_for(tmp), capture_output=True,
                          timeout=120, stdin=subprocess.DEVNULL,
                          preexec_fn=lambda: os.umask(0o022))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def cases(binary, tmp, name, base, magic):
    def ok(r, what):
        check(r.returncode == 0, "%s -o %s: exit %d: %s" % (name, what, r.returncode,
                                                            r.stderr.decode(errors="replace").strip()))
        return r.returncode == 0

    p = os.path.join(tmp, "new.out")
    if ok(run(binary, tmp, base, p), "new file"):
        st = os.stat(p)
        check(stat.S_IMODE(st.st_mode) == 0o644 and read(p).startswith(magic),
              "%s -o new file: mode %o, expected 0644 and the page" % (name, stat.S_IMODE(st.st_mode)))

    p = os.path.join(tmp, "private.out")
    with open(p, "wb") as f:
        f.write(b"old")
    os.chmod(p, 0o600)
    if ok(run(binary, tmp, base, p), "0600 file"):
        st = os.stat(p)
        check(stat.S_IMODE(st.st_mode) == 0o600 and read(p).startswith(magic),
              "%s -o 0600 file: came back %o" % (name, stat.S_IMODE(st.st_mode)))

    a, b = os.path.join(tmp, "a.out"), os.path.join(tmp, "b.out")
    with open(a, "wb") as f:
        f.write(b"old")
    os.link(a, b)
    if ok(run(binary, tmp, base, a), "hard link"):
        sa, sb = os.stat(a), os.stat(b)
        check(sa.st_ino == sb.st_ino and sa.st_nlink == 2 and read(b).startswith(magic),
              "%s -o hard link: the link was split (inodes %d, %d; links %d)"
              % (name, sa.st_ino, sb.st_ino, sa.st_nlink))

    target, link = os.path.join(tmp, "target.out"), os.path.join(tmp, "link.out")
    with open(target, "wb") as f:
        f.write(b"old")
    os.chmod(target, 0o640)
    os.symlink("target.out", link)
    if ok(run(binary, tmp, base, link), "symlink"):
        check(os.path.islink(link) and read(target).startswith(magic)
              and stat.S_IMODE(os.stat(target).st_mode) == 0o640,
              "%s -o symlink: link replaced or target not written with its mode kept" % name)

    fd1 = os.path.join(tmp, "fd1")
    os.symlink("/proc/self/fd/1", fd1)
    r = run(binary, tmp, base, fd1)
    if ok(r, "link to /proc/self/fd/1"):
        check(r.stdout.startswith(magic) and os.path.islink(fd1)
              and os.readlink(fd1) == "/proc/self/fd/1",
              "%s -o link to /proc/self/fd/1: page not on stdout, or link replaced" % name)

    fifo = os.path.join(tmp, "out.fifo")
    os.mkfifo(fifo)
    got = []
    # A daemon: if clefrun replaces the FIFO instead of opening it, the
    # reader would wait for a writer for ever.
    reader = threading.Thread(target=lambda: got.append(read(fifo)), daemon=True)
    reader.start()
    r = run(binary, tmp, base, fifo)
    reader.join(10)
    if ok(r, "FIFO"):
        check(bool(got) and got[0].startswith(magic) and stat.S_ISFIFO(os.lstat(fifo).st_mode),
              "%s -o FIFO: reader got %d bytes; FIFO %s" % (
                  name, len(got[0]) if got else -1,
                  "kept" if stat.S_ISFIFO(os.lstat(fifo).st_mode) else "replaced"))

    if os.geteuid() == 0:
        dev = os.path.join(tmp, "null")
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    else:
        dev = "/dev/null"
    if ok(run(binary, tmp, base, dev), "character device %s" % dev):
        st = os.lstat(dev)
        check(stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3),
              "%s -o %s: no longer the null device" % (name, dev))

    r = run(binary, tmp, base, "-")
    if ok(r, "-"):
        check(r.stdout.startswith(magic), "%s -o -: no page on stdout" % name)

    dangling = os.path.join(tmp, "dangling.out")
    os.symlink("nowhere/x.out", dangling)
    r = run(binary, tmp, base, dangling)
    want = "clefrun %s: cannot write %s: a symbolic link to nowhere/x.out, which does not exist; not created" \
        % (name, dangling)
    check(r.returncode == 1 and r.stderr.decode().strip() == want
          and not os.path.exists(os.path.join(tmp, "nowhere")),
          "%s -o dangling link: exit %d, %r; expected 1, %r" % (name, r.returncode, r.stderr.decode(), want))

    d = os.path.join(tmp, "dir.out")
    os.mkdir(d)
    r = run(binary, tmp, base, d)
    want = ("clefrun %s: cannot write %s: a directory; only a regular file, a FIFO or a character device "
            "can be written" % (name, d))
    check(r.returncode == 1 and r.stderr.decode().strip() == want and os.path.isdir(d),
          "%s -o directory: exit %d, %r" % (name, r.returncode, r.stderr.decode()))

    left = [n for n in os.listdir(tmp) if ".tmp-" in n]
    check(not left, "%s: temporaries left: %s" % (name, ", ".join(left)))


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    for name, (base, magic) in COMMANDS.items():
        tmp = tempfile.mkdtemp(prefix="clefrun-output.")
        try:
            cases(binary, tmp, name, base, magic)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print("%s: %d failures" % (os.path.basename(__file__), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
