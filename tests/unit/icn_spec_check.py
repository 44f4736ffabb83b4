#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check uapi/linux/icn_netlink.h against Documentation/netlink/specs/icn.yaml.

Usage: icn_spec_check.py TOP [CC]

The YAML spec is the source of truth.  Every enum, attribute, command and
multicast group it names must be in the header under the name the kernel's
spec tools would give it, with the same value; the header must hold no
other enumerator; every attribute and enum entry must carry a doc.  The
values are checked by the C compiler: the test writes a file of
_Static_assert()s against the header and compiles it.  Prints TAP.
"""
import os
import re
import subprocess
import sys
import tempfile

import yaml

n = 0
failed = 0


def ok(cond, name, diag=None):
    global n, failed
    n += 1
    if cond:
        print(f"ok {n} - {name}")
    else:
        failed += 1
        print(f"not ok {n} - {name}")
        for line in (diag or "").splitlines():
            print(f"# {line}")


def c_name(*parts):
    return "".join(parts).upper().replace("-", "_")


def c_enum_name(name):
    return name.replace("-", "_")


def main():
    top = sys.argv[1]
    cc = sys.argv[2] if len(sys.argv) > 2 else os.environ.get("CC", "cc")
    spec_path = os.path.join(top, "Documentation/netlink/specs/icn.yaml")
    hdr_path = os.path.join(top, "uapi/linux/icn_netlink.h")
    with open(spec_path) as f:
        spec = yaml.safe_load(f)
    with open(hdr_path) as f:
        hdr = f.read()

    family = spec["name"]
    prefix = c_name(family, "-")
    ok(spec.get("protocol") == "genetlink", "spec is a genetlink family")
    ok(spec.get("uapi-header") == "linux/icn_netlink.h",
       "spec names the uAPI header")

    # name -> expected value; enum tag -> its enumerator names in order
    expect = {}
    enums = {}
    strings = {c_name(family, "-family-name"): family}
    expect[c_name(family, "-family-version")] = spec.get("version", 1)

    for d in spec.get("definitions", []):
        if d["type"] != "enum":
            continue
        tag = c_enum_name(d.get("enum-name", f"{family}-{d['name']}"))
        pfx = d.get("name-prefix", f"{family}-{d['name']}-")
        v = d.get("value-start", 0)
        ok(v >= 1, f"enum {tag} starts at 1 or above")
        names = []
        undocumented = []
        for e in d["entries"]:
            ename = e["name"] if isinstance(e, dict) else e
            if not isinstance(e, dict) or not e.get("doc"):
                undocumented.append(ename)
            expect[c_name(pfx, ename)] = v
            names.append(c_name(pfx, ename))
            v += 1
        ok(not undocumented, f"enum {tag}: every entry has a doc",
           " ".join(undocumented))
        enums[tag] = names

    attr_names = set()
    for aset in spec["attribute-sets"]:
        tag = c_enum_name(aset.get("enum-name", f"{family}-{aset['name']}-attrs"))
        pfx = aset.get("name-prefix", f"{family}-a-{aset['name']}-")
        v = 0
        names = []
        undocumented = []
        for a in aset["attributes"]:
            v = a.get("value", v + 1)
            expect[c_name(pfx, a["name"])] = v
            names.append(c_name(pfx, a["name"]))
            attr_names.add(a["name"])
            if not a.get("doc"):
                undocumented.append(a["name"])
            if "enum" in a:
                ok(any(d["name"] == a["enum"] for d in spec["definitions"]),
                   f"attribute {a['name']}: enum {a['enum']} is defined")
        ok(not undocumented, f"{tag}: every attribute has a doc",
           " ".join(undocumented))
        enums[tag] = names

    ops = spec["operations"]
    tag = c_enum_name(ops.get("enum-name", f"{family}-cmd"))
    pfx = ops.get("name-prefix", f"{family}-cmd-")
    v = 0
    names = []
    op_names = {o["name"] for o in ops["list"]}
    for o in ops["list"]:
        v = o.get("value", v + 1)
        expect[c_name(pfx, o["name"])] = v
        names.append(c_name(pfx, o["name"]))
        ok(bool(o.get("doc")), f"operation {o['name']} has a doc")
        if "notify" in o or "event" in o:
            ok(o["name"].endswith("-ntf") and o.get("mcgrp") in
               [g["name"] for g in spec["mcast-groups"]["list"]],
               f"notification {o['name']} is *-ntf on a declared group")
            if "notify" in o:
                ok(o["notify"] in op_names,
                   f"notification {o['name']} names an existing get operation")
            else:
                attrs = o["event"].get("attributes", [])
                bad = [a for a in attrs if a not in attr_names]
                ok(attrs and not bad,
                   f"event {o['name']}: attributes exist", " ".join(bad))
            continue
        changes = not o["name"].endswith("-get")
        ok(("admin-perm" in o.get("flags", [])) == changes,
           f"operation {o['name']}: admin-perm {'set' if changes else 'unset'}")
        for kind in [k for k in ("do", "dump") if k in o]:
            for part in ("request", "reply"):
                attrs = (o.get(kind) or {}).get(part, {}).get("attributes", [])
                bad = [a for a in attrs if a not in attr_names]
                ok(not bad, f"operation {o['name']} {kind} {part}: "
                   "attributes exist", " ".join(bad))
    enums[tag] = names

    for g in spec["mcast-groups"]["list"]:
        strings[c_name(family, "-mcgrp-", g["name"])] = g["name"]

    # The header's enumerators, by enum tag.
    hdr_enums = {}
    for m in re.finditer(r"enum\s+(\w+)\s*\{(.*?)\};", hdr, re.S):
        body = re.sub(r"/\*.*?\*/", "", m.group(2), flags=re.S)
        hdr_enums[m.group(1)] = [x.split("=")[0].strip()
                                 for x in body.split(",") if x.strip()]
    ok(set(hdr_enums) == set(enums), "header declares exactly the spec's enums",
       f"header {sorted(hdr_enums)}\nspec {sorted(enums)}")
    for tag, names in enums.items():
        extra = [x for x in hdr_enums.get(tag, []) if x not in names and
                 not re.fullmatch(r"_*\w+_(UNSPEC|MAX)", x)]
        missing = [x for x in names if x not in hdr_enums.get(tag, [])]
        ok(not extra and not missing, f"enum {tag}: same enumerators",
           f"not in spec: {extra}\nnot in header: {missing}")

    for name, val in strings.items():
        m = re.search(r"#define\s+%s\s+\"([^\"]*)\"" % name, hdr)
        ok(m is not None and m.group(1) == val, f"{name} is \"{val}\"")

    # Values: let the compiler check them against the header.
    src = ["#include <linux/icn_netlink.h>"]
    for name, val in expect.items():
        src.append(f'_Static_assert({name} == {val}, "{name} == {val}");')
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "icn_spec_values.c")
        with open(c, "w") as f:
            f.write("\n".join(src) + "\n")
        r = subprocess.run([cc, "-std=c11", "-fsyntax-only", "-Wall", "-Werror",
                            "-I", os.path.join(top, "uapi"), c],
                           capture_output=True, text=True)
    ok(r.returncode == 0, f"compiler agrees on all {len(expect)} values",
       r.stderr)

    print(f"1..{n}")
    print(f"{n - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
