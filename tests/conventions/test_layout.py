#!/usr/bin/env python3
"""The library's layout (src/lib/README.md), checked on the source tree.

    test_layout.py SOURCE_DIR

- src/lib holds only module folders (and README.md); each folder has a
  README.md with a "Public headers:" line, a "Depends on:" line naming the
  folders it may use (`base/`, ...), and one "- `file`" line per file of
  the folder, no more, no fewer. src/lib/README.md names every folder.
- Every public header of include/clefrun (but the umbrella clefrun.h)
  belongs to exactly one folder; every internal header name is unique.
- The "Depends on:" graph has no cycle, so "lower" and "higher" mean
  something.
- Every #include of a library file, public header or internal one, names a
  header of its own folder or of a folder it may depend on (transitively);
  the library never includes clefrun.h. The public headers follow the same
  rule by their owner's dependencies. The CLI and src/gen include public
  headers and their own, never an internal header of src/lib.
- The check can fail: it runs once more on a copy of the tree with a
  forbidden include injected (estimate/ including a source/ header, and
  base/ including a catalog/ one) and must report each.
"""
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import clefrun_test as T  # noqa: E402

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def includes(path):
    """(kind, name) of each #include of a C file, comments taken out."""
    with open(path, encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
    return INCLUDE.findall(text)


def problems(src):
    """Every break of the layout rules under src, as sentences (none: all kept)."""
    out = []
    lib = os.path.join(src, "src", "lib")
    entries = sorted(os.listdir(lib))
    folders = [e for e in entries if os.path.isdir(os.path.join(lib, e))]
    for e in entries:
        if e not in folders and e != "README.md":
            out.append(f"src/lib/{e}: a file outside the module folders")
    if not folders:
        return out + ["src/lib has no module folders"]
    try:
        with open(os.path.join(lib, "README.md"), encoding="utf-8") as f:
            top = f.read()
        for d in folders:
            if f"`{d}/`" not in top:
                out.append(f"src/lib/README.md does not name {d}/")
    except OSError:
        out.append("src/lib/README.md is missing")

    deps, public_owner, internal_owner, files = {}, {}, {}, {}
    for d in folders:
        path = os.path.join(lib, d, "README.md")
        files[d] = sorted(f for f in os.listdir(os.path.join(lib, d)) if f != "README.md")
        try:
            with open(path, encoding="utf-8") as f:
                readme = f.read()
        except OSError:
            out.append(f"src/lib/{d}/README.md is missing")
            deps[d] = set()
            continue
        m = re.search(r"^Depends on:(.*?)(?:\n\n|\Z)", readme, re.M | re.S)
        if not m:
            out.append(f"src/lib/{d}/README.md has no 'Depends on:' line")
            deps[d] = set()
        else:
            # Only the first sentence names what it may use ("Never on ..." may follow).
            first = re.split(r"(?<=[.:])\s+(?=[A-Z])", m.group(1).strip(), maxsplit=1)[0]
            deps[d] = set(re.findall(r"`(\w+)/`", first))
            for x in sorted(deps[d] - set(folders)):
                out.append(f"src/lib/{d}/README.md depends on {x}/, which is not a folder")
            if d in deps[d]:
                out.append(f"src/lib/{d}/README.md names itself as a dependency")
        m = re.search(r"^Public headers:(.*)$", readme, re.M)
        if not m:
            out.append(f"src/lib/{d}/README.md has no 'Public headers:' line")
        else:
            for h in re.findall(r"`clefrun/(\w+\.h)`", m.group(1)):
                if h in public_owner:
                    out.append(f"clefrun/{h}: claimed by {public_owner[h]}/ and {d}/")
                public_owner[h] = d
        listed = re.findall(r"^- `([^`]+)`", readme, re.M)
        for f in sorted(set(files[d]) - set(listed)):
            out.append(f"src/lib/{d}/{f}: not listed in its folder's README.md")
        for f in sorted(set(listed) - set(files[d])):
            out.append(f"src/lib/{d}/README.md lists {f}, which is not there")
        for f in files[d]:
            if f.endswith(".h"):
                if f in internal_owner:
                    out.append(f"{f}: an internal header in both {internal_owner[f]}/ and {d}/")
                internal_owner[f] = d

    pub_dir = os.path.join(src, "include", "clefrun")
    public = sorted(f for f in os.listdir(pub_dir) if f.endswith(".h") and f != "clefrun.h")
    for h in public:
        if h not in public_owner:
            out.append(f"include/clefrun/{h}: no folder's README.md claims it")
    for h in sorted(set(public_owner) - set(public)):
        out.append(f"src/lib/{public_owner[h]}/README.md claims clefrun/{h}, which does not exist")

    # The dependency graph: no cycle; "may use" is its transitive closure.
    state = {}

    def visit(d, stack):
        if state.get(d) == "done":
            return
        if state.get(d) == "open":
            out.append("a dependency cycle: " + " -> ".join(stack[stack.index(d):] + [d]))
            return
        state[d] = "open"
        for x in sorted(deps.get(d, ())):
            visit(x, stack + [d])
        state[d] = "done"

    for d in folders:
        visit(d, [])

    def closure(d):
        seen, todo = set(), [d]
        while todo:
            for x in deps.get(todo.pop(), ()):
                if x not in seen:
                    seen.add(x)
                    todo.append(x)
        return seen | {d}

    def check_include(where, owner, kind, name):
        if name.startswith("clefrun/"):
            h = name[len("clefrun/"):]
            if h == "clefrun.h":
                return f"{where}: includes the umbrella clefrun/clefrun.h"
            o = public_owner.get(h)
            if o is None:
                return f"{where}: includes {name}, which no folder owns"
            if o not in closure(owner):
                return f"{where}: includes {name} of {o}/, which {owner}/ may not depend on"
        elif kind == '"':
            o = internal_owner.get(name)
            if o is None:
                return f"{where}: includes \"{name}\", which is no header of src/lib"
            if o not in closure(owner):
                return f"{where}: includes {o}/{name}, which {owner}/ may not depend on"
        return None

    for d in folders:
        for f in files[d]:
            if f.endswith((".c", ".h")):
                for kind, name in includes(os.path.join(lib, d, f)):
                    p = check_include(f"src/lib/{d}/{f}", d, kind, name)
                    if p:
                        out.append(p)
    for h in public:
        if h in public_owner:
            for kind, name in includes(os.path.join(pub_dir, h)):
                p = check_include(f"include/clefrun/{h}", public_owner[h], kind, name)
                if p:
                    out.append(p)
    for top in ("src/cli", "src/gen"):
        base = os.path.join(src, top)
        for dirpath, _, names in os.walk(base):
            for f in sorted(names):
                if not f.endswith((".c", ".h")):
                    continue
                for kind, name in includes(os.path.join(dirpath, f)):
                    if kind == '"' and not name.startswith("clefrun/") and \
                            not os.path.exists(os.path.join(dirpath, name)):
                        where = os.path.relpath(os.path.join(dirpath, f), src)
                        what = (f"the library's internal {internal_owner[name]}/{name}"
                                if name in internal_owner else f'"{name}", not a header of {top}')
                        out.append(f"{where}: includes {what}")
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    src = os.path.abspath(sys.argv[1])
    found = problems(src)
    T.check("src/lib: folders, READMEs and includes follow the layering", not found, "\n".join(found))
    nfiles = sum(len(fs) for _, _, fs in os.walk(os.path.join(src, "src", "lib")))
    T.check("src/lib: the check saw the library's files", nfiles >= 40, nfiles)

    # The same check on a copy with forbidden includes: it must see each.
    tmp = tempfile.mkdtemp(prefix="clefrun-layout.")
    try:
        for part in ("src", "include"):
            shutil.copytree(os.path.join(src, part), os.path.join(tmp, part))
        injected = [
            ("src/lib/estimate/estimate.c", '#include "source_internal.h"\n',
             "src/lib/estimate/estimate.c: includes source/source_internal.h"),
            ("src/lib/estimate/curve.c", '#include "clefrun/gguf.h"\n',
             "src/lib/estimate/curve.c: includes clefrun/gguf.h of gguf/"),
            ("src/lib/base/util.c", '#include "catalog_internal.h"\n',
             "src/lib/base/util.c: includes catalog/catalog_internal.h"),
            ("src/cli/main.c", '#include "util.h"\n',
             "src/cli/main.c: includes the library's internal base/util.h"),
        ]
        for path, line, _ in injected:
            with open(os.path.join(tmp, path), "a", encoding="utf-8") as f:
                f.write(line)
        bad = problems(tmp)
        for path, _, expect in injected:
            T.check(f"an injected include is caught: {expect}", any(b.startswith(expect) for b in bad),
                    "\n".join(bad))
        T.check("nothing else is reported on the injected copy", len(bad) == len(injected), "\n".join(bad))
        with open(os.path.join(tmp, "src/lib/base/README.md"), "a", encoding="utf-8") as f:
            f.write("\n- `gone.c` — a file that is not there.\n")
        os.remove(os.path.join(tmp, "src/lib/detect/probe.c"))
        bad = problems(tmp)
        T.check("a README's stale or missing file line is caught",
                "src/lib/base/README.md lists gone.c, which is not there" in bad and
                "src/lib/detect/README.md lists probe.c, which is not there" in bad, "\n".join(bad))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
