#!/usr/bin/env python3
"""Tests of clefrun report and clefrun chart (tests/report/CMakeLists.txt).

  check_report.py html|hostile|errors|browser --clefrun BIN --gguf-write SCRIPT
                  --work DIR --artifacts DIR

html     the page is well-formed HTML (every element closed in order, void
         elements never closed, self-closing tags only inside <svg>), uses
         only the elements clefrun writes, loads nothing (no script, no
         <link>, no @import or url(), no http(s) or protocol-relative
         src/href, no event handlers), has its sections, one row per rig and
         quant, and the same tiers as 'clefrun check --format json' with the
         same options; the figures its prose states (runtime, usable shares,
         margin, KV padding) are what clefrun check does on custom rigs; the
         chart parses as XML with width, height, viewBox,
         <title> and <desc>; output is byte-for-byte reproducible.
hostile  a GGUF file (and a catalog) whose strings carry <script>, &, quotes,
         control characters and bytes that are not UTF-8: all of it escaped,
         the page and the chart still well-formed, the text shown as written
         (control characters as backslash-x-HH, bad bytes as U+FFFD: text.h).
errors   exit codes 2 (usage) and 1 (runtime, naming the path), the atomic
         write (no temporary file left, an old file kept on failure), -o -,
         --help from the option tables.
browser  Debian's chromium, headless and offline: --dump-dom of the page has
         the rig table with the 22 reference rigs and their tiers; the
         screenshots (desktop, phone, dark) and a printed PDF go to the
         artifacts directory, whose paths are printed. No chromium: FAIL.

Stdlib only. Exit 0 when every check passes; every failure is printed.
"""
import argparse
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
# Every element clefrun writes. Anything else in the output (a <script>, <img>
# or <b> from a GGUF name) means a string went out unescaped.
HTML_ELEMENTS = {"html", "head", "meta", "title", "style", "body", "header", "main", "section",
                 "footer", "h1", "h2", "h3", "p", "dl", "div", "dt", "dd", "span", "code", "table",
                 "caption", "thead", "tbody", "tr", "th", "td", "ul", "li", "strong", "em", "a",
                 "figure", "figcaption", "svg"}
SVG_ELEMENTS = {"svg", "title", "desc", "style", "rect", "text", "tspan", "g", "line", "polyline",
                "circle"}
URL_ATTRS = {"src", "href", "xlink:href", "action", "formaction", "poster", "srcset", "data",
             "background", "cite", "ping", "manifest", "longdesc", "usemap", "icon"}
TIERS = {"fast", "ok", "slow", "tight", "unknown", "no-fit"}
REFERENCE_RIGS = 22

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg, flush=True)


def check(cond, msg):
    if not cond:
        fail(msg)
    return cond


class Page(html.parser.HTMLParser):
    """Well-formedness and offline checks, plus what the tests read back:
    rows of the rig and quant tables, ids, the <h1> text."""

    def __init__(self, label):
        super().__init__(convert_charrefs=True)
        self.label = label
        self.stack = []
        self.problems = []
        self.doctype = False
        self.ids = set()
        self.rig_rows = []      # dicts: rig, tier (data-tier), badge (text of first .tier)
        self.quant_rows = []
        self.h1 = None
        self.svg_count = 0
        self._text = None       # collecting text of: ("h1",) or ("badge", row)
        self._style = False
        self.styles = []
        self.links = []

    def problem(self, msg):
        line, col = self.getpos()
        self.problems.append("%s:%d:%d: %s" % (self.label, line, col + 1, msg))

    def in_svg(self):
        return any(t == "svg" for t, _ in self.stack)

    def table(self):
        for t, a in reversed(self.stack):
            if t == "table":
                return a.get("id")
        return None

    def check_attrs(self, tag, attrs):
        for name, value in attrs:
            value = value or ""
            if name.startswith("on"):
                self.problem("<%s %s=...>: event handler" % (tag, name))
            if name in URL_ATTRS:
                self.links.append(value)
                v = value.strip().lower()
                if re.match(r"^[a-z][a-z0-9+.-]*:", v) or v.startswith("//"):
                    self.problem("<%s %s=%r>: loads or links outside the file" % (tag, name, value))
            if name == "style" and ("url(" in value.lower() or "@import" in value.lower()):
                self.problem("<%s style=%r>: url() or @import" % (tag, value))
            if name == "id":
                if value in self.ids:
                    self.problem("duplicate id %r" % value)
                self.ids.add(value)
        if tag == "meta" and any(n == "http-equiv" for n, _ in attrs):
            self.problem("<meta http-equiv>: may refresh or redirect")

    def handle_decl(self, decl):
        if decl.lower() == "doctype html":
            self.doctype = True

    def handle_starttag(self, tag, attrs):
        allowed = SVG_ELEMENTS if self.in_svg() else HTML_ELEMENTS
        if tag not in allowed and tag not in {e.lower() for e in allowed}:
            self.problem("unexpected element <%s>" % tag)
        self.check_attrs(tag, attrs)
        a = dict(attrs)
        if tag == "svg":
            self.svg_count += 1
        if tag == "tr" and self.table() == "rigs-table" and "data-rig" in a:
            self.rig_rows.append({"rig": a["data-rig"], "tier": a.get("data-tier"), "badge": None})
        if tag == "tr" and self.table() == "quants-table" and "data-quant" in a:
            self.quant_rows.append(a["data-quant"])
        if tag == "h1":
            self._text = ["h1", ""]
        if (tag == "span" and "tier" in (a.get("class") or "").split() and self.rig_rows
                and self.table() == "rigs-table" and self.rig_rows[-1]["badge"] is None
                and self._text is None):
            self._text = ["badge", ""]
        if tag == "style":
            self._style = True
        if tag in VOID:
            return
        self.stack.append((tag, a))

    def handle_startendtag(self, tag, attrs):
        if tag not in VOID and not self.in_svg():
            self.problem("<%s/>: self-closing outside <svg>" % tag)
        allowed = SVG_ELEMENTS if self.in_svg() else HTML_ELEMENTS
        if tag not in allowed:
            self.problem("unexpected element <%s/>" % tag)
        self.check_attrs(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            self.problem("</%s>: void element closed" % tag)
            return
        if not self.stack:
            self.problem("</%s> with nothing open" % tag)
            return
        top = self.stack[-1][0]
        if top != tag:
            self.problem("</%s> closes <%s>" % (tag, top))
            # Recover: pop to the matching element if there is one.
            for i in range(len(self.stack) - 1, -1, -1):
                if self.stack[i][0] == tag:
                    del self.stack[i:]
                    break
            return
        self.stack.pop()
        if self._text and self._text[0] == tag == "h1":
            self.h1 = self._text[1]
            self._text = None
        if self._text and self._text[0] == "badge" and tag == "span":
            self.rig_rows[-1]["badge"] = self._text[1].strip()
            self._text = None
        if tag == "style":
            self._style = False

    def handle_data(self, data):
        if self._text is not None:
            self._text[1] += data
        if self._style:
            self.styles.append(data)

    def finish(self):
        self.close()
        if not self.doctype:
            self.problems.append("%s: no <!DOCTYPE html>" % self.label)
        for t, _ in self.stack:
            self.problems.append("%s: <%s> never closed" % (self.label, t))
        css = "".join(self.styles).lower()
        if "@import" in css or "url(" in css:
            self.problems.append("%s: the style sheet has @import or url()" % self.label)
        return self


def parse_page(text, label):
    p = Page(label)
    p.feed(text)
    return p.finish()


def check_page(p, what):
    for msg in p.problems:
        fail(what + ": " + msg)
    # A relative link (href="docs/x.md") is broken as soon as the page is opened anywhere but a
    # checkout: only in-page links.
    rel = [x for x in p.links if not x.startswith("#")]
    check(not rel, "%s: links that break when the page moves: %s" % (what, rel[:5]))
    return not p.problems and not rel


def run(args, *cli, ok=(0,), env=None, capture=True):
    r = subprocess.run([args.clefrun, *cli], capture_output=capture, env=env, timeout=120)
    if r.returncode not in ok:
        fail("clefrun %s: exit %d, want %s\nstderr: %s" % (" ".join(cli), r.returncode, ok,
                                                          r.stderr.decode(errors="replace")))
    return r


def check_tiers(args, page, what, check_args):
    """The rig table against 'clefrun check --format json' with the same options."""
    r = run(args, "check", *check_args, "--format", "json", ok=(0, 3))
    try:
        results = json.loads(r.stdout)["results"]
    except (ValueError, KeyError) as e:
        fail("%s: clefrun check gave no JSON: %s" % (what, e))
        return
    want = [(x["rig"], x["tier"]) for x in results]
    got = [(x["rig"], x["tier"]) for x in page.rig_rows]
    check(got == want, "%s: rig rows %s, clefrun check says %s" % (what, got, want))
    for row in page.rig_rows:
        check(row["badge"] == row["tier"] and row["tier"] in TIERS,
              "%s: rig %s: badge text %r, data-tier %r" % (what, row["rig"], row["badge"], row["tier"]))


def check_svg(path_or_bytes, what, quants=None, title_prefix=None):
    try:
        if isinstance(path_or_bytes, bytes):
            root = ET.fromstring(path_or_bytes)
        else:
            root = ET.parse(path_or_bytes).getroot()
    except ET.ParseError as e:
        fail("%s: not well-formed XML: %s" % (what, e))
        return None
    check(root.tag == SVG + "svg", "%s: root element %s, want svg" % (what, root.tag))
    for a in ("width", "height", "viewBox"):
        check(root.get(a), "%s: <svg> has no %s" % (what, a))
    vb = (root.get("viewBox") or "").split()
    check(len(vb) == 4 and vb[2] == root.get("width") and vb[3] == root.get("height"),
          "%s: viewBox %r does not match width/height" % (what, root.get("viewBox")))
    title = root.find(SVG + "title")
    desc = root.find(SVG + "desc")
    check(title is not None and (title.text or "").strip(), "%s: no <title>" % what)
    check(desc is not None and len((desc.text or "").strip()) > 40, "%s: no <desc>" % what)
    check(root.get("role") == "img" and "crchart-title" in (root.get("aria-labelledby") or ""),
          "%s: role/aria-labelledby missing" % what)
    if title_prefix is not None and title is not None:
        check((title.text or "").startswith(title_prefix),
              "%s: <title> %r does not start with %r" % (what, title.text, title_prefix))
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    if quants is not None:
        lines = list(root.iter(SVG + "polyline"))
        check(len(lines) == len(quants), "%s: %d curves, want %d" % (what, len(lines), len(quants)))
        for q in quants:
            check(q in texts, "%s: no label %r at a curve" % (what, q))
    for node in root.iter():
        for k, v in node.attrib.items():
            if k in ("href", "{http://www.w3.org/1999/xlink}href", "src"):
                fail("%s: <%s %s=%r>" % (what, node.tag, k, v))
    return root


# ---- the prose's figures are the library's ---------------------------------------

def check_json(args, *cli):
    """The first result of 'clefrun check --format json'; None (a failure) when there is none."""
    r = run(args, "check", *cli, "--format", "json", ok=(0, 3))
    try:
        return json.loads(r.stdout)["results"][0]
    except (ValueError, KeyError, IndexError) as e:
        fail("clefrun check %s: no result: %s" % (" ".join(cli), e))
        return None


def prose_numbers(text, pattern, what):
    """Every match of pattern (one group, a number) in the page; a failure when there is none."""
    found = re.findall(pattern, text)
    check(found, "report prose: no %s (%r)" % (what, pattern))
    return found


def share(word):
    """'2/3' or '79&#160;%' as a number."""
    if "/" in word:
        n, d = word.split("/")
        return int(n) / int(d)
    return float(word.split("&")[0]) / 100


def check_prose_constants(args, text):
    """The figures the page's prose states (runtime overhead, usable shares, the margin, the KV
    padding) are what the library does, measured through clefrun check on custom rigs: the words
    follow the estimator, not a copy of its constants."""
    probe = ["--model", "llama-3.2-1b", "--quant", "Q4_K_M"]
    gib = 1 << 30
    # Runtime charged per discrete GPU.
    r = check_json(args, *probe, "--rig", "custom:mem_gb=24,bw_gbs=1000", "--ctx", "1")
    if r is None:
        return
    for pat in (r"compute buffer and ([\d.]+)&#160;MiB of runtime", r"less ([\d.]+)&#160;MiB of runtime",
                r"([\d.]+)&#160;MiB per GPU go to the driver"):
        for x in prose_numbers(text, pat, "runtime overhead"):
            check(float(x) * (1 << 20) == r["memory"]["overhead_bytes"],
                  "report prose: %s MiB of runtime, the estimator charges %d bytes" % (x, r["memory"]["overhead_bytes"]))
    # The margin: tight just below total + margin, not just above.
    margins = set()
    for pat in (r"llama.cpp&#39;s ([\d.]+)&#160;GiB margin free", r"keeps ([\d.]+)&#160;GiB free per device",
                r"fits with less than ([\d.]+) GiB free"):
        margins.update(prose_numbers(text, pat, "margin"))
    check(len(margins) == 1, "report prose: the margin is stated as %s" % sorted(margins))
    for x in margins:
        for delta, tight in ((-0.01, True), (0.01, False)):
            mem = (r["memory"]["total_bytes"] + float(x) * gib) / gib + delta
            t = check_json(args, *probe, "--rig", "custom:mem_gb=%.4f,bw_gbs=1000" % mem, "--ctx", "1")
            check(t is not None and (t["tier"] == "tight") == tight,
                  "report prose: a %s GiB margin, but %.4f GiB gives tier %s" % (x, mem, t and t["tier"]))
    # KV cells padded to a multiple of N: 1 and N tokens the same cache, N + 1 more.
    for x in prose_numbers(text, r"cells = the context rounded up to (\d+),", "KV padding"):
        kv = [check_json(args, *probe, "--rig", "custom:mem_gb=24,bw_gbs=1000", "--ctx", str(c))
              for c in (1, int(x), int(x) + 1)]
        if None not in kv:
            kv = [k["memory"]["kv_bytes"] for k in kv]
            check(kv[0] == kv[1] < kv[2], "report prose: cells rounded up to %s, KV bytes %s" % (x, kv))

    def usable(spec, gb):
        t = check_json(args, *probe, "--rig", "custom:mem_gb=%s,bw_gbs=200,%s" % (gb, spec))
        return t["devices"][0]["usable_bytes_per_device"] / (float(gb) * gib) if t else -1

    m = re.search(r"macOS (\S+) of RAM up to ([\d.]+)&#160;GiB, (\S+) above; Linux CUDA (\S+); "
                  r"Strix Halo (\S+); or the rig&#39;s own figure\); system RAM (\S+)\.", text)
    if not check(m, "report prose: the usable-memory formula is missing"):
        return
    small, edge, large, cuda, other, system = m.groups()
    for word, spec, gb in ((small, "backend=metal", edge), (large, "backend=metal", float(edge) + 0.5),
                           (cuda, "backend=cuda,kind=unified", 128),
                           (other, "backend=vulkan,kind=unified", 128),
                           (system, "backend=cpu", 64)):
        got = usable(spec, gb)
        check(abs(got - share(word)) < 5e-4,
              "report prose: %s of %s GB %s usable, the library gives %.4f" % (word, gb, spec, got))
    w = re.search(r"the GPU of a Mac gets (\S+) to (\S+) of its memory \(macOS&#39;s GPU wired limit\), "
                  r"a DGX Spark about (\S+), and", text)
    check(w and w.groups() == (small, large, cuda),
          "report prose: 'what fits' says %s, the formula %s" % (w and w.groups(), (small, large, cuda)))


# ---- html ---------------------------------------------------------------------

def test_html(args):
    out = os.path.join(args.work, "clef-flash.html")
    run(args, "report", "--model", "clef-flash", "-o", out)
    text = open(out, encoding="utf-8").read()
    p = parse_page(text, out)
    check_page(p, "default report")
    for sec in ("facts", "local", "rigs", "chart", "method", "differs", "rigs-table",
                "quants-table", "crchart-title", "crchart-desc"):
        check(sec in p.ids, "default report: no element with id %r" % sec)
    check(len(p.rig_rows) == REFERENCE_RIGS,
          "default report: %d rig rows, want %d" % (len(p.rig_rows), REFERENCE_RIGS))
    check(p.quant_rows == ["Q2_K", "Q3_K_M", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "F16"],
          "default report: quant rows %s" % p.quant_rows)
    check(p.svg_count == 1, "default report: %d <svg>, want 1" % p.svg_count)
    check(p.h1 == "Clef-flash", "default report: <h1> %r" % p.h1)
    check("<script" not in text.lower(), "default report has a <script>")
    check("8 of 32 layers keep a KV cache: 32 KiB per token at f16" in text,
          "default report: the KV cache is not described in words")
    check_tiers(args, p, "default report", ["--model", "clef-flash"])
    check_prose_constants(args, text)
    # The same file again, byte for byte.
    out2 = os.path.join(args.work, "clef-flash-2.html")
    run(args, "report", "--model", "clef-flash", "--output", out2)
    check(open(out2, "rb").read() == text.encode("utf-8"), "report is not reproducible")

    # (what, report options, the same rows from clefrun check, quant rows, rig rows)
    rigs3 = ["--rig", "rtx4090", "--rig", "gtx1080ti", "--rig", "custom:mem_gb=8,bw_gbs=300"]
    cases = [
        ("selected rigs and quants",
         ["--model", "clef-flash", *rigs3, "--quant", "Q8_0", "--quant", "Q4_K_M", "--ctx", "32768"],
         ["--model", "clef-flash", *rigs3, "--quant", "Q8_0", "--ctx", "32768"], ["Q4_K_M", "Q8_0"], 3),
        ("MLA, most rigs too small", ["--model", "deepseek-v3"], ["--model", "deepseek-v3"],
         ["Q2_K", "Q3_K_M", "MXFP4", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "F16"], REFERENCE_RIGS),
        ("sliding window", ["--model", "gemma-3-27b", "--kv-type", "q8_0"],
         ["--model", "gemma-3-27b", "--kv-type", "q8_0"], None, REFERENCE_RIGS),
        ("MoE", ["--model", "gpt-oss-120b", "--quant", "MXFP4", "--quant", "Q8_0"],
         ["--model", "gpt-oss-120b", "--quant", "MXFP4"], ["MXFP4", "Q8_0"], REFERENCE_RIGS),
        ("decide workload", ["--model", "clef", "--workload", "decide", "--ctx", "4096"],
         ["--model", "clef", "--workload", "decide", "--ctx", "4096"], None, REFERENCE_RIGS),
        ("long context", ["--model", "llama-4-scout", "--rig", "mi300x", "--rig", "4xh100"],
         ["--model", "llama-4-scout", "--rig", "mi300x", "--rig", "4xh100"], None, 2),
        ("short context", ["--model", "llama-2-7b", "--ctx", "256"], ["--model", "llama-2-7b", "--ctx", "256"],
         None, REFERENCE_RIGS),
    ]
    for what, opts, check_args, quants, n_rigs in cases:
        out = os.path.join(args.work, re.sub(r"\W+", "-", what) + ".html")
        if run(args, "report", *opts, "-o", out).returncode:
            continue
        p = parse_page(open(out, encoding="utf-8").read(), out)
        check_page(p, what)
        check(len(p.rig_rows) == n_rigs, "%s: %d rig rows, want %d" % (what, len(p.rig_rows), n_rigs))
        if quants:
            check(p.quant_rows == quants, "%s: quant rows %s, want %s" % (what, p.quant_rows, quants))
        check_tiers(args, p, what, check_args)

    # The chart alone.
    svg = os.path.join(args.work, "clef-flash.svg")
    run(args, "chart", "--model", "clef-flash", "--format", "svg", "-o", svg)
    data = open(svg, "rb").read()
    check(data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<svg '),
          "chart: no XML declaration")
    root = check_svg(svg, "chart clef-flash", ["Q2_K", "Q3_K_M", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0",
                                               "F16"], "Clef-flash: memory against context")
    if root is not None:
        desc = "".join(root.find(SVG + "desc").itertext())
        r = run(args, "rigs", "--format", "json")
        try:
            refs = [x["id"] for x in json.loads(r.stdout)["rigs"] if x.get("reference")]
        except (ValueError, KeyError):
            refs = []
        check(len(refs) == REFERENCE_RIGS, "clefrun rigs --format json: %d reference rigs" % len(refs))
        for rig in refs:
            check(rig in desc, "chart: <desc> does not mention rig %s" % rig)
        check("gtx1080ti 11.0 GiB (Q4_K_M fits up to" in desc,
              "chart: <desc> does not say where Q4_K_M runs out on gtx1080ti")
    svg = os.path.join(args.work, "deepseek.svg")
    run(args, "chart", "--model", "deepseek-v3", "--rig", "rtx4090", "--quant", "Q2_K", "-o", svg)
    check_svg(svg, "chart deepseek-v3", ["Q2_K"])
    test_chart_layout(args)


def check_layout(root, what, log_axis=None, max_unlabelled=None):
    """No two labels of the chart overlap, no rig label sits on a curve, and the memory axis
    is linear or logarithmic as asked. Text boxes are estimated from the characters: 5.8 px
    per character at font-size 11 and 6.4 at 12 (DejaVu Sans, Debian's default, averages
    about 5.5 and 6.1 on these labels, measured on the screenshots)."""
    if root is None:
        return
    boxes, curves = [], []

    def text_box(t, size, anchor):
        x, y = float(t.get("x")), float(t.get("y"))
        w = len("".join(t.itertext())) * (5.8 if size == 11 else 6.4)
        x0 = x - w if anchor == "end" else x - w / 2 if anchor == "middle" else x
        return (x0, y - 0.78 * size, x0 + w, y + 0.22 * size, "".join(t.itertext()))

    for g in root.iter(SVG + "g"):
        if g.get("class") == "c-riglabels":
            boxes += [("rig",) + text_box(t, 11, "start") for t in g.iter(SVG + "text")]
        elif g.get("font-weight") == "600":
            boxes += [("quant",) + text_box(t, 12, "start") for t in g.iter(SVG + "text")]
    for pl in root.iter(SVG + "polyline"):
        pts = [tuple(float(v) for v in p.split(",")) for p in pl.get("points").split()]
        curves.append(pts)
    check(boxes, "%s: no labels found" % what)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5 and a[2] < b[4] - 0.5 and b[2] < a[4] - 0.5:
                fail("%s: labels overlap: %r and %r" % (what, a[5], b[5]))
        if a[0] != "rig":
            continue
        for pts in curves:
            for (xa, ya), (xb, yb) in zip(pts, pts[1:]):
                if xb < a[1] or xa > a[3]:
                    continue
                t0 = (max(xa, a[1]) - xa) / (xb - xa) if xb > xa else 0
                t1 = (min(xb, a[3]) - xa) / (xb - xa) if xb > xa else 1
                y0, y1 = ya + (yb - ya) * t0, ya + (yb - ya) * t1
                if max(y0, y1) > a[2] and min(y0, y1) < a[4]:
                    fail("%s: rig label %r lies on a curve" % (what, a[5]))
                    break
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    axis = [t for t in texts if t.startswith("memory one GPU needs")]
    if log_axis is not None:
        check(axis and ("log scale" in axis[0]) == log_axis, "%s: memory axis %r, want %s" %
              (what, axis, "log" if log_axis else "linear"))
    if max_unlabelled is not None:
        note = " ".join(t for t in texts if "Lines not labelled" in t)
        n = note.split("bottom to top:", 1)[1].count("GiB") if note else 0
        check(n <= max_unlabelled, "%s: %d rig lines without a label (at most %d): %s" %
              (what, n, max_unlabelled, note))


def test_chart_layout(args):
    """Labels placed without overlaps, and a log memory axis where the range is wide."""
    for model, opts, log_axis, max_unlabelled in (
            # rigs 11-734 GiB, curves 90-450: log; 96, 101 and 107.5 GiB (RTX PRO 6000, DGX Spark,
            # M5 Max usable) lie within one text line of each other, and the lines from 128 to
            # 384 GiB cross the curves: they are listed under the chart
            ("qwen3-235b-a22b", [], True, 6),
            ("deepseek-v3", [], True, 2),
            ("clef-flash", [], None, 1),
            ("llama-3.2-1b", [], True, 0),
            ("gpt-oss-20b", ["--rig", "rtx4090", "--rig", "rtx3060-12"], False, 1),
            ("clef-flash", ["--rig", "rtx4090", "--rig", "2x3090"], False, 0)):
        svg = os.path.join(args.work, "layout-%s-%d.svg" % (model, len(opts)))
        if run(args, "chart", "--model", model, *opts, "-o", svg).returncode == 0:
            root = check_svg(svg, "chart " + model)
            check_layout(root, "chart %s %s" % (model, " ".join(opts)), log_axis, max_unlabelled)


# ---- hostile --------------------------------------------------------------------

EVIL = 'N<script>alert("x")</script> & \'q\' \x01\x1b @@BAD@@ <img src=x onerror=alert(1)> end'
BAD = b"\xff\xfe\xc0\xaf\xed\xa0\x80"   # 0xFF, 0xFE, an overlong '/', a surrogate
# What the page must show: each control character as the text \xHH (it
# cannot drive a terminal, or break the reproduction command into lines)
# and each bad byte as U+FFFD (cr_text_safe, include/clefrun/text.h).
EVIL_SHOWN = EVIL.replace("\x01", "\\x01").replace("\x1b", "\\x1b").replace("@@BAD@@", "\ufffd" * 7)


def hostile_gguf(args, path):
    subprocess.run([sys.executable, args.gguf_write, "--preset", "qwen3.5-9b", "--header-only",
                    "-o", path, "--set", "general.name=str:" + EVIL,
                    "--set", "general.organization=str:Evil & Co <b>bold</b> \"quoted\"",
                    "--set", 'general.license=str:"MIT" <a href="https://evil.example/">x</a>'],
                   check=True, timeout=60)
    data = open(path, "rb").read()
    if data.count(b"@@BAD@@") != 1:
        fail("gguf-write: the placeholder is not in the header once")
        return
    with open(path, "wb") as f:
        f.write(data.replace(b"@@BAD@@", BAD))


def check_hostile_page(args, out, what):
    raw = open(out, "rb").read()
    check(b"<script" not in raw.lower() and b"<img" not in raw.lower() and b"<b>" not in raw,
          "%s: an unescaped tag from the hostile strings" % what)
    check(b"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;q&#39;" in raw,
          "%s: the hostile name is not escaped as expected" % what)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s: not UTF-8: %s" % (what, e))
        return None
    check(not re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f]", text), "%s: control characters" % what)
    p = parse_page(text, out)
    check_page(p, what)
    return p


def check_inspect_agrees(args, gguf, html, what):
    """inspect and report print one memory figure for a GGUF (the one-GPU
    figure of cr_curve_one_gpu_memory): the report's quant row at the
    context against inspect's memory.total_bytes."""
    r = run(args, "inspect", "--header-only", "--format", "json", gguf)
    try:
        total = json.loads(r.stdout.decode("utf-8", errors="replace"))["memory"]["total_bytes"]
    except (ValueError, KeyError) as e:
        fail("%s: inspect gave no JSON: %s" % (what, e))
        return
    text = open(html, encoding="utf-8").read()
    row = re.search(r'<tr[^>]*data-quant="[^"]*"[^>]*>(.*?)</tr>', text, re.S)
    cells = re.findall(r'<td class="num">([0-9.]+) GiB', row.group(1)) if row else []
    check(len(cells) >= 2, "%s: no memory cells in the quant row" % what)
    if len(cells) >= 2:
        shown = float(cells[1])
        check(abs(shown - total / 2**30) <= 0.006 * shown,
              "%s: report shows %s GiB at the context, inspect %.3f GiB" % (what, cells[1], total / 2**30))


def test_hostile(args):
    gguf = os.path.join(args.work, "x<script>&\"'.gguf")
    hostile_gguf(args, gguf)
    if failures:
        return
    out = os.path.join(args.work, "hostile.html")
    run(args, "report", "--header-only", "--model", gguf, "-o", out)
    check_inspect_agrees(args, gguf, out, "hostile GGUF report")
    p = check_hostile_page(args, out, "hostile GGUF report")
    if p:
        check(p.h1 == EVIL_SHOWN, "hostile GGUF report: <h1> %r, want %r" % (p.h1, EVIL_SHOWN))
        check(len(p.rig_rows) == REFERENCE_RIGS, "hostile GGUF report: %d rig rows" % len(p.rig_rows))
        check(p.quant_rows and p.quant_rows[0] == "Q4_K_M",
              "hostile GGUF report: quant rows %s (want the file's type)" % p.quant_rows)
        check(not [x for x in p.links if "evil.example" in x], "hostile GGUF report: a link to evil.example")
    svg = os.path.join(args.work, "hostile.svg")
    run(args, "chart", "--header-only", "--model", gguf, "-o", svg)
    raw = open(svg, "rb").read()
    check(b"<script" not in raw.lower() and b"<img" not in raw.lower(), "hostile chart: unescaped tag")
    check_svg(svg, "hostile chart", None, EVIL_SHOWN + ": memory against context")

    # A catalog is input too: a model and a rig with hostile names.
    data = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.gguf_write))), "data")
    cat = os.path.join(args.work, "catalog")
    shutil.rmtree(cat, ignore_errors=True)
    shutil.copytree(data, cat)
    with open(os.path.join(cat, "models.json"), encoding="utf-8") as f:
        models = json.load(f)
    for m in models["models"]:
        if m["id"] == "clef-flash":
            m["name"] = EVIL.replace("\x01", "").replace("\x1b", "").replace("@@BAD@@", "\u2028")
            m["developer"] = "</dd></dl><script>alert(2)</script>"
    with open(os.path.join(cat, "models.json"), "w", encoding="utf-8") as f:
        json.dump(models, f)
    with open(os.path.join(cat, "rigs.json"), encoding="utf-8") as f:
        rigs = json.load(f)
    for r in rigs["rigs"]:
        if r["id"] == "rtx4090":
            r["name"] = "<script>alert(3)</script> & \"4090\""
    with open(os.path.join(cat, "rigs.json"), "w", encoding="utf-8") as f:
        json.dump(rigs, f)
    out = os.path.join(args.work, "hostile-catalog.html")
    r = run(args, "--catalog", cat, "report", "--model", "clef-flash", "-o", out)
    if r.returncode == 0:
        p = check_hostile_page(args, out, "hostile catalog report")
        if p:
            check(len(p.rig_rows) == REFERENCE_RIGS, "hostile catalog: %d rig rows" % len(p.rig_rows))
        raw = open(out, "rb").read()
        check(b"&lt;/dd&gt;&lt;/dl&gt;&lt;script&gt;alert(2)" in raw, "hostile catalog: developer not escaped")
        check(b"&lt;script&gt;alert(3)&lt;/script&gt; &amp; &quot;4090&quot;" in raw,
              "hostile catalog: rig name not escaped")
    svg = os.path.join(args.work, "hostile-catalog.svg")
    if run(args, "--catalog", cat, "chart", "--model", "clef-flash", "-o", svg).returncode == 0:
        check_svg(svg, "hostile catalog chart")


# ---- errors -----------------------------------------------------------------------

def expect(args, cli, code, stderr_has=(), stdout_has=()):
    r = subprocess.run([args.clefrun, *cli], capture_output=True, timeout=120)
    err = r.stderr.decode(errors="replace")
    out = r.stdout.decode(errors="replace")
    ok = check(r.returncode == code, "clefrun %s: exit %d, want %d; stderr: %s" %
               (" ".join(cli), r.returncode, code, err.strip()))
    for s in stderr_has:
        ok &= check(s in err, "clefrun %s: stderr lacks %r: %s" % (" ".join(cli), s, err.strip()))
    for s in stdout_has:
        ok &= check(s in out, "clefrun %s: stdout lacks %r" % (" ".join(cli), s))
    return r


def leftovers(d):
    return [f for f in os.listdir(d) if ".tmp-" in f]


def test_errors(args):
    w = args.work
    # Usage errors: exit 2, nothing written.
    expect(args, ["report", "--model", "clef-flash"], 2, ["-o FILE (--output) is required"])
    expect(args, ["report", "-o", os.path.join(w, "x.html")], 2, ["--model is required"])
    expect(args, ["report", "--model", "no-such-model", "-o", os.path.join(w, "x.html")], 2,
           ["unknown model 'no-such-model'"])
    expect(args, ["report", "--model", "clef-flash", "--rig", "no-such-rig", "-o",
                  os.path.join(w, "x.html")], 2, ["unknown rig 'no-such-rig'"])
    expect(args, ["report", "--model", "clef-flash", "--quant", "Q9_Z", "-o", os.path.join(w, "x.html")],
           2, ["unknown quant 'Q9_Z'"])
    expect(args, ["report", "--model", "llama-2-7b", "--ctx", "8192", "-o", os.path.join(w, "x.html")], 2,
           ["--ctx 8192 is above llama-2-7b's maximum context of 4096 tokens"])
    expect(args, ["report", "--model", "clef-flash", "--kv-type", "q5", "-o", os.path.join(w, "x.html")], 2,
           ["--kv-type"])
    expect(args, ["report", "--model", "clef-flash", "--bogus", "-o", os.path.join(w, "x.html")], 2,
           ["unknown option '--bogus'"])
    expect(args, ["report", "--model", "clef-flash", "stray", "-o", os.path.join(w, "x.html")], 2,
           ["unexpected argument 'stray'"])
    expect(args, ["report", "--model", "clef-flash", "-o", "a.html", "-o", "b.html"], 2,
           ["--output given twice"])
    expect(args, ["chart", "--model", "clef-flash", "--format", "png", "-o", os.path.join(w, "x.svg")], 2,
           ["--format: expected svg, got 'png'"])
    expect(args, ["chart", "--model", "clef-flash", "--workload", "decide", "-o", os.path.join(w, "x.svg")],
           2, ["unknown option '--workload'"])
    gguf = os.path.join(w, "tiny.gguf")
    subprocess.run([sys.executable, args.gguf_write, "--preset", "tiny-llama", "-o", gguf], check=True,
                   timeout=60)
    expect(args, ["report", "--model", gguf, "--quant", "Q4_K_M", "-o", os.path.join(w, "x.html")], 2,
           ["--quant does not apply to a GGUF file"])
    check(not os.path.exists(os.path.join(w, "x.html")), "a usage error wrote x.html")
    check(not os.path.exists(os.path.join(w, "x.svg")), "a usage error wrote x.svg")
    expect(args, ["report", "--model", gguf, "-o", os.path.join(w, "tiny.html")], 0)

    # Runtime errors: exit 1, the path named, no temporary file left.
    bad = os.path.join(w, "no-such-dir", "r.html")
    expect(args, ["report", "--model", "clef-flash", "-o", bad], 1,
           ["clefrun report: cannot write %s: cannot create a temporary file: No such file or directory" % bad])
    adir = os.path.join(w, "a-directory.html")
    os.makedirs(adir, exist_ok=True)
    expect(args, ["report", "--model", "clef-flash", "-o", adir], 1, ["clefrun report: cannot write %s:" % adir])
    expect(args, ["chart", "--model", "clef-flash", "-o", adir], 1, ["clefrun chart: cannot write %s:" % adir])
    check(os.path.isdir(adir) and not os.listdir(adir), "the directory named by -o was changed")
    check(not leftovers(w), "temporary files left behind: %s" % leftovers(w))

    # Atomic: the old file stays until the new one is complete; a failing
    # run leaves it as it was.
    keep = os.path.join(w, "keep.html")
    with open(keep, "w") as f:
        f.write("old")
    expect(args, ["report", "--model", "no-such-model", "-o", keep], 2)
    check(open(keep).read() == "old", "a failed run changed the existing output file")
    expect(args, ["report", "--model", "clef-flash", "-o", keep], 0)
    check(open(keep).read().startswith("<!DOCTYPE html>"), "the output file was not replaced")
    mask = os.umask(0)
    os.umask(mask)
    check(os.stat(keep).st_mode & 0o777 == 0o666 & ~mask,
          "the report's mode is %o, want %o (0666 less the umask, as a plain open(2) gives)" %
          (os.stat(keep).st_mode & 0o777, 0o666 & ~mask))
    check(not leftovers(w), "temporary files left behind: %s" % leftovers(w))

    # -o - writes to stdout.
    r = expect(args, ["report", "--model", "clef-flash", "--rig", "rtx4090", "-o", "-"], 0)
    check(r.stdout.startswith(b"<!DOCTYPE html>") and r.stdout.rstrip().endswith(b"</html>"),
          "report -o -: no page on stdout")
    r = expect(args, ["chart", "--model", "clef-flash", "-o", "-"], 0)
    check(r.stdout.startswith(b"<?xml"), "chart -o -: no SVG on stdout")

    # --help comes from the option tables; exit 0.
    expect(args, ["report", "--help"], 0, [], ["usage: clefrun report --model", "--output FILE", "--rig R",
                                               "--quant Q", "--ctx N", "-h, --help"])
    expect(args, ["chart", "--help"], 0, [], ["usage: clefrun chart --model", "--format F", "--output FILE"])
    expect(args, ["--help"], 0, [], ["report", "chart"])


# ---- browser ------------------------------------------------------------------------

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-default-apps", "--disable-extensions", "--mute-audio",
                  "--host-resolver-rules=MAP * ~NOTFOUND", "--hide-scrollbars",
                  "--force-device-scale-factor=1"]


def find_chromium():
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def chromium(exe, *extra, timeout=90):
    profile = tempfile.mkdtemp(prefix="clefrun-chromium-")
    try:
        return subprocess.run([exe, *CHROMIUM_FLAGS, "--user-data-dir=" + profile, *extra],
                              capture_output=True, timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def test_browser(args):
    exe = find_chromium()
    if not exe:
        fail("chromium is missing: the browser test needs Debian's chromium "
             "(apt-get install -y chromium; scripts/setup --with-tests installs it). "
             "This test fails rather than skips.")
        return
    os.makedirs(args.artifacts, exist_ok=True)
    page = os.path.join(args.artifacts, "report.html")
    run(args, "report", "--model", "clef-flash", "-o", page)
    url = "file://" + os.path.abspath(page)

    r = chromium(exe, "--dump-dom", url)
    dom = r.stdout.decode("utf-8", errors="replace")
    if not check(r.returncode == 0 and "rigs-table" in dom,
                 "chromium --dump-dom: exit %d, no rig table; stderr: %s" %
                 (r.returncode, r.stderr.decode(errors="replace")[-2000:])):
        return
    with open(os.path.join(args.artifacts, "report.dom.html"), "w", encoding="utf-8") as f:
        f.write(dom)
    p = Page("dump-dom")
    p.feed(dom)
    p.close()
    check(len(p.rig_rows) == REFERENCE_RIGS,
          "rendered rig table: %d rows, want %d" % (len(p.rig_rows), REFERENCE_RIGS))
    check_tiers(args, p, "rendered rig table", ["--model", "clef-flash"])
    check(p.svg_count == 1, "rendered page: %d <svg>, want 1" % p.svg_count)
    check(p.h1 == "Clef-flash", "rendered page: <h1> %r" % p.h1)

    shots = [("report-desktop.png", ["--window-size=1280,4600"]),
             ("report-phone.png", ["--window-size=390,9000"]),
             ("report-dark.png", ["--window-size=1280,4600", "--force-dark-mode",
                                  "--blink-settings=preferredColorScheme=0"])]
    for name, extra in shots:
        out = os.path.join(args.artifacts, name)
        if os.path.exists(out):
            os.unlink(out)
        r = chromium(exe, "--screenshot=" + out, *extra, url)
        ok = os.path.exists(out) and open(out, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
        if check(r.returncode == 0 and ok, "chromium --screenshot %s: exit %d; stderr: %s" %
                 (name, r.returncode, r.stderr.decode(errors="replace")[-2000:])):
            print("artifact: %s" % out)
    pdf = os.path.join(args.artifacts, "report.pdf")
    if os.path.exists(pdf):
        os.unlink(pdf)
    r = chromium(exe, "--print-to-pdf=" + pdf, "--no-pdf-header-footer", url)
    if check(r.returncode == 0 and os.path.exists(pdf) and open(pdf, "rb").read(5) == b"%PDF-",
             "chromium --print-to-pdf: exit %d" % r.returncode):
        print("artifact: %s" % pdf)
    for model, name in (("clef-flash", "chart"), ("qwen3-235b-a22b", "chart-qwen3-235b-a22b")):
        svg = os.path.join(args.artifacts, name + ".svg")
        run(args, "chart", "--model", model, "-o", svg)
        height = ET.parse(svg).getroot().get("height") or "560"
        out = os.path.join(args.artifacts, name + ".png")
        r = chromium(exe, "--screenshot=" + out, "--window-size=760,%s" % height,
                     "file://" + os.path.abspath(svg))
        if check(r.returncode == 0 and os.path.exists(out), "chromium --screenshot %s.svg: exit %d" %
                 (name, r.returncode)):
            print("artifact: %s" % out)
    print("artifact: %s" % page)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("test", choices=["html", "hostile", "errors", "browser"])
    ap.add_argument("--clefrun", required=True)
    ap.add_argument("--gguf-write", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--artifacts", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    # Saved rigs and caches of the user running the tests stay out of it.
    os.environ["XDG_CONFIG_HOME"] = os.path.join(args.work, "config")
    os.environ["XDG_CACHE_HOME"] = os.path.join(args.work, "cache")
    os.environ["HOME"] = args.work
    os.environ.pop("CLEFRUN_CATALOG", None)
    os.environ["NO_COLOR"] = "1"
    {"html": test_html, "hostile": test_hostile, "errors": test_errors,
     "browser": test_browser}[args.test](args)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("ok: report/%s" % args.test)
    return 0


if __name__ == "__main__":
    sys.exit(main())
