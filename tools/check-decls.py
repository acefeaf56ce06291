#!/usr/bin/env python3
"""check-decls.py - does each public function's comment say what it must?

STYLE.md asks every declaration of graphrt.h to document, besides its
behaviour, the error codes it returns, its thread safety and the CUDA
function it mirrors (or that it is graphrt's own). This script reads
include/graphrt.h and the module headers it includes (include/graphrt/*.h),
finds each GR_API function and the comment just above it (one comment may
cover a run of declarations with no blank line between them), and looks in
that comment for three things:

  errors   "Errors:" (also "Errors: none"), "errors of grX", a grError*
           code, or grSuccess
  threads  "Thread safety", or "any thread"
  mirror   "Mirror" (Mirrors cudaX, mirroring the driver's cuX), or
           "graphrt's own"

A rule stated once for a whole section (the errors of every grGraphAdd*Node,
the thread safety of streams in graphrt.h's top comment) does not count: the
reader of one declaration should not have to find it. The check fails
when more declarations miss something than CEILING allows (0: every
declaration must say all three), and says when the count fell below it so
that CEILING can be lowered.

It also writes the reference of the public functions, docs/api-reference.md
(--write-reference): per module header in graphrt.h's order, each function
with the CUDA function it mirrors (or "graphrt's own") and the first
sentence of its comment. --check-reference fails when that file is not
what the headers give, so it cannot fall behind them.

Usage: tools/check-decls.py [--list] [--header include/graphrt.h]
                            [--write-reference | --check-reference]
Exit status: 0 when the count is at most CEILING (and the reference is up
to date), 1 otherwise, 2 when the headers cannot be read or hold no
declarations.
"""

import argparse
import os
import re
import sys

# How many declarations may miss at least one of the three: none, since
# every declaration was completed. Never raise it.
CEILING = 0

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_HEADER = os.path.join(ROOT, "include", "graphrt.h")

CHECKS = (
    ("errors", re.compile(r"\bErrors?:|\bgrError[A-Z]\w*|\bgrSuccess\b|\b[Ee]rrors of\b")),
    ("threads", re.compile(r"Thread safety|\bany thread\b", re.IGNORECASE)),
    ("mirror", re.compile(r"\bMirror(s|ing)?\b|graphrt's own", re.IGNORECASE)),
)

DECL_NAME = re.compile(r"^GR_API\b[^;(]*?\b(gr\w+)\s*\(")


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        sys.exit(f"check-decls: cannot read {path}: {e.strerror}")


def headers(umbrella):
    """The umbrella and the module headers it includes, in its order."""
    text = read(umbrella)
    base = os.path.dirname(umbrella)
    out = [(umbrella, text)]
    for inc in re.findall(r'^#include\s+"(graphrt/[\w.]+)"', text, re.MULTILINE):
        path = os.path.join(base, inc)
        out.append((path, read(path)))
    return out


def declarations(text):
    """(name, line, comment) for each GR_API function of one header; the
    comment is '' when none sits right above the declaration (or above the
    run of declarations it belongs to; #define lines may come between)."""
    lines = text.split("\n")
    out = []
    prev_end = -2  # index of the last line of the previous declaration
    comment = ""
    i = 0
    while i < len(lines):
        m = DECL_NAME.match(lines[i])
        if not m:
            i += 1
            continue
        first = i
        while ";" not in lines[i] and i + 1 < len(lines):
            i += 1
        if first - 1 != prev_end:
            j = first - 1
            while j >= 0 and lines[j].startswith("#define"):
                j -= 1
            comment = ""
            if j >= 0 and lines[j].rstrip().endswith("*/"):
                k = j
                while k > 0 and "/*" not in lines[k]:
                    k -= 1
                # One line of words: a phrase may wrap ("errors\n * of").
                comment = " ".join(re.sub(r"^\s*/?\*+/?|\*/\s*$", " ", ln) for ln in lines[k:j + 1])
                comment = " ".join(comment.split())
        out.append((m.group(1), first + 1, comment))
        prev_end = i
        i += 1
    return out


REFERENCE = os.path.join(ROOT, "docs", "api-reference.md")


def mirror_of(name, comment):
    """The CUDA function a declaration mirrors, or "graphrt's own"."""
    for cand in ("cuda" + name[2:], "cu" + name[2:]):
        if re.search(r"\b" + re.escape(cand) + r"\b", comment):
            return f"`{cand}`"
    if re.search(r"graphrt's own", comment, re.IGNORECASE):
        return "graphrt's own"
    m = re.search(r"\bMirror(?:s|ing)?\s+(?:the driver's\s+)?((?:cuda|cu)\w+)", comment)
    return f"`{m.group(1)}`" if m else ""


def first_sentence(comment):
    text = re.sub(r"^/\*+\s*|\s*\*/$", "", comment).strip()
    m = re.match(r"(.+?\.)(\s|$)", text)
    out = m.group(1) if m else text
    return out.replace("|", "\\|")


def reference(hdrs):
    out = ["# API reference", "",
           "Generated by `tools/check-decls.py --write-reference` from the comments of",
           "[include/graphrt.h](../include/graphrt.h) and its module headers; do not edit.",
           "Each function's full comment (behaviour, errors, thread safety, deviations) is",
           "in its header; this page lists them by module, in the order of CUDA's runtime",
           "API reference, then graphrt's own extensions.", ""]
    for path, text in hdrs[1:]:
        decls = declarations(text)
        if not decls:
            continue
        rel = os.path.relpath(path, ROOT)
        m = re.search(r"^ \* graphrt/[\w.]+ - (.+?)(?:\n \*\n|\n \*/)", text, re.MULTILINE | re.DOTALL)
        title = " ".join(m.group(1).replace("\n *", " ").split()) if m else ""
        out += [f"## [{os.path.basename(path)}](../{rel})", "", title, "",
                "| function | mirrors | summary |", "|---|---|---|"]
        for name, line, comment in decls:
            out.append(f"| `{name}` | {mirror_of(name, comment)} | {first_sentence(comment)} |")
        out.append("")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--header", default=DEFAULT_HEADER, help="graphrt's umbrella header")
    ap.add_argument("--list", action="store_true", help="name each declaration that misses something")
    ap.add_argument("--write-reference", action="store_true", help=f"write {os.path.relpath(REFERENCE, ROOT)}")
    ap.add_argument("--check-reference", action="store_true",
                    help=f"fail when {os.path.relpath(REFERENCE, ROOT)} is not what the headers give")
    args = ap.parse_args()
    hdrs = headers(args.header)

    total = 0
    failing = []
    per_check = {name: 0 for name, _ in CHECKS}
    for path, text in hdrs:
        rel = os.path.relpath(path, ROOT)
        for name, line, comment in declarations(text):
            total += 1
            missing = [cname for cname, rx in CHECKS if not rx.search(comment)]
            for cname in missing:
                per_check[cname] += 1
            if missing:
                failing.append((rel, line, name, missing))
    if total == 0:
        print("check-decls: no GR_API declarations found", file=sys.stderr)
        return 2
    if args.list:
        for rel, line, name, missing in failing:
            print(f"{rel}:{line}: {name}: no {', no '.join(missing)}")
    print(f"declarations: {total}; complete: {total - len(failing)}; missing something: {len(failing)} "
          f"(errors {per_check['errors']}, thread safety {per_check['threads']}, "
          f"mirror or own {per_check['mirror']}); ceiling {CEILING}")
    status = 0
    if args.write_reference or args.check_reference:
        ref = reference(hdrs)
        have = open(REFERENCE, encoding="utf-8").read() if os.path.exists(REFERENCE) else None
        if args.write_reference:
            with open(REFERENCE, "w", encoding="utf-8") as f:
                f.write(ref)
        elif have != ref:
            print(f"check-decls: {os.path.relpath(REFERENCE, ROOT)} is not what the headers give: run "
                  f"tools/check-decls.py --write-reference", file=sys.stderr)
            status = 1
    if len(failing) > CEILING:
        print(f"check-decls: {len(failing)} declarations miss part of their documentation, more than the "
              f"ceiling of {CEILING}: document errors, thread safety and the CUDA function mirrored "
              f"(run with --list)", file=sys.stderr)
        return 1
    if status:
        return status
    if len(failing) < CEILING:
        print(f"check-decls: below the ceiling: lower CEILING in {os.path.relpath(__file__, ROOT)} "
              f"to {len(failing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
