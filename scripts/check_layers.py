#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check_layers.py: the library's layering (docs/architecture.md), checked.

Usage: check_layers.py [--src DIR] [--objs DIR] [--nm NM]

Every folder under src/ belongs to one layer; a file may include headers only of its own
layer or of layers below it, and a transport never includes another transport's headers.
With --objs (the build's object folder for the library, e.g.
build/CMakeFiles/rivet_objs.dir) the same rule is checked on calls: an object's undefined
rv_* and _rivet_* symbols must be defined in its own layer or below (the AM engine's
delivery upcalls that transport.h declares excepted). Prints one line per violation and exits 1 if there is any.
Needs only python3 (and nm for --objs).
"""
import argparse
import os
import re
import subprocess
import sys

# Layers, bottom to top: (name, folders under src/). A folder "transport/*" stands for every
# transport folder; each transport is its own island (no transport reaches another).
LAYERS = [
    ("boot", ["boot"]),
    ("core", ["core"]),
    ("transports", ["transport/*"]),
    ("contract", ["transport"]),
    ("engines", ["am", "rma", "event", "ratomic", "vis", "coll", "team"]),
    ("api", ["api", "tools"]),
    ("legacy", ["legacy"]),
]
# The contract a transport implements: the one header above it that it may include.
CONTRACT_HEADERS = {"transport/transport.h"}
# Upcalls transport.h declares and the AM engine defines: a transport's poll delivers through
# them (direct calls on the hot path, on purpose).
CONTRACT_UPCALLS = {"rv_am_deliver", "rv_am_imm_deliver"}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel):
    """(layer index, layer name, unit) of a path relative to src/, or None.
    unit tells transports apart: 'transport/shm', 'transport/ofi', ..."""
    parts = rel.split("/")
    if len(parts) < 2:
        return None
    top = parts[0]
    if top == "transport" and len(parts) >= 3:
        return next((i, n, "transport/" + parts[1]) for i, (n, f) in enumerate(LAYERS)
                    if "transport/*" in f)
    for i, (name, folders) in enumerate(LAYERS):
        if top in folders:
            return (i, name, top)
    return None


def resolve(src, incfile, header):
    """The include's path relative to src/, or None for a public or system header."""
    here = os.path.dirname(incfile)
    for cand in (os.path.join(here, header), os.path.join(src, header)):
        if os.path.isfile(cand):
            rel = os.path.relpath(os.path.realpath(cand), os.path.realpath(src))
            return None if rel.startswith("..") else rel
    return None


def allowed(fl, tl, header_rel):
    """May a file in fl (from layer_of) use one in tl (header_rel: the included header, if any)?"""
    fi, fname, funit = fl
    ti, tname, tunit = tl
    if fname == "transports" and tname == "transports":
        return funit == tunit
    if fname == "transports" and header_rel in CONTRACT_HEADERS:
        return True
    return ti <= fi


def check_includes(src):
    bad = []
    for root, _dirs, files in os.walk(src):
        for fn in sorted(files):
            if not fn.endswith((".c", ".h", ".def")):
                continue
            path = os.path.join(root, fn)
            rel = os.path.relpath(path, src)
            fl = layer_of(rel)
            if fl is None:
                bad.append("src/%s: in no layer (add its folder to LAYERS in scripts/check_layers.py)" % rel)
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for ln, line in enumerate(f, 1):
                    m = INCLUDE_RE.match(line)
                    if not m:
                        continue
                    hrel = resolve(src, path, m.group(1))
                    if hrel is None:
                        continue
                    tl = layer_of(hrel)
                    if tl is None or allowed(fl, tl, hrel):
                        continue
                    bad.append("src/%s:%d: includes src/%s: %s (%s) may not include %s (%s)"
                               % (rel, ln, hrel, fl[2], fl[1], tl[2], tl[1]))
    return bad


def nm_symbols(nm, obj):
    out = subprocess.run([nm, "-P", obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2 or not f[0].startswith(("rv_", "_rivet_")):
            continue
        (undefined if f[1] in ("U", "w", "v") else defined).add(f[0])
    return defined, undefined


def check_calls(objs, nm, src):
    objects = []
    for root, _dirs, files in os.walk(objs):
        for fn in files:
            if fn.endswith(".o"):
                path = os.path.join(root, fn)
                rel = os.path.relpath(path, objs)
                # <objs>/<...>/src/<folder>/<file>.c.o
                i = rel.find("src/")
                if i < 0:
                    continue
                rel = rel[i + 4:]
                if rel.endswith(".o"):
                    rel = rel[:-2]
                if os.path.isfile(os.path.join(src, rel)):  # not a stale object of a moved file
                    objects.append((rel, path))
    if not objects:
        return ["%s: no object files (build the library first)" % objs]
    where = {}
    undef = {}
    for rel, path in objects:
        d, u = nm_symbols(nm, path)
        for s in d:
            where[s] = rel
        undef[rel] = u
    bad = []
    for rel in sorted(undef):
        fl = layer_of(rel)
        if fl is None:
            bad.append("src/%s: in no layer" % rel)
            continue
        for s in sorted(undef[rel]):
            dl_rel = where.get(s)
            if dl_rel is None:
                continue
            tl = layer_of(dl_rel)
            if tl is None or allowed(fl, tl, None):
                continue
            if s in CONTRACT_UPCALLS and fl[1] == "transports":
                continue
            bad.append("src/%s: calls %s of src/%s: %s (%s) may not use %s (%s)"
                       % (rel, s, dl_rel, fl[2], fl[1], tl[2], tl[1]))
    return bad


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=os.path.join(here, "..", "src"))
    ap.add_argument("--objs", help="object folder of the library (CMakeFiles/rivet_objs.dir)")
    ap.add_argument("--nm", default="nm")
    a = ap.parse_args()
    bad = check_includes(a.src)
    if a.objs:
        bad += check_calls(a.objs, a.nm, a.src)
    for b in bad:
        print("layer violation: " + b)
    if bad:
        print("check_layers: %d violation(s); the layers are in docs/architecture.md" % len(bad))
        return 1
    print("check_layers: includes%s follow the layers" % (" and calls" if a.objs else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
