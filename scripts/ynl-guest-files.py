#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""List the host files the guest needs to run the kernel's YNL cli.py.

Usage: ynl-guest-files.py YNL_DIR SPEC

Run with the interpreter the guest gets (Debian's python3).  It runs
YNL_DIR/cli.py on SPEC as the guest would (schema validation included)
until it looks the family up, which fails on a host without the driver,
and prints, one per line, every file that took part: the interpreter's
own modules and extension modules with their compiled .pyc, and every
file of each third-party package used (yaml, jsonschema and what it uses,
data files included).  guest-image.sh copies them to the same paths in
the guest, so the interpreter finds them where it looks on the host.

OpenSSL is left out (5 MB of libcrypto and libssl): the run is traced with
the modules that need it made unimportable, so the files listed are those
of the fallbacks the standard library then takes (hashlib's built-in
hashes, urllib without TLS), as in the guest.
"""
import importlib.util
import os
import runpy
import sys
import sysconfig

LEFT_OUT = ("_ssl", "_hashlib")


def main():
    ynl_dir, spec = sys.argv[1], sys.argv[2]
    for name in LEFT_OUT:
        sys.modules[name] = None        # import raises ImportError
    sys.path.insert(0, ynl_dir)
    sys.argv = [os.path.join(ynl_dir, "cli.py"), "--spec", spec,
                "--dump", "port-get"]
    saved = sys.stdout
    sys.stdout = open(os.devnull, "w")
    reached = False
    try:
        runpy.run_path(sys.argv[0], run_name="__main__")
        reached = True      # a host that has the family: all the better
    except Exception as e:
        # The spec loaded and validated, the family was looked up.
        reached = "not supported by the kernel" in str(e)
        why = f"{type(e).__name__}: {e}"
    sys.stdout = saved
    if not reached:
        sys.exit(f"ynl-guest-files: cli.py stopped before the family lookup: {why}")

    stdlib = os.path.abspath(sysconfig.get_paths()["stdlib"])
    files = set()
    packages = set()
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if not f or mod.__name__ in ("__main__", "sitecustomize"):
            continue
        f = os.path.abspath(f)
        if os.path.realpath(f).startswith(os.path.realpath(ynl_dir) + os.sep):
            continue        # the YNL files themselves are copied apart
        if f.startswith(stdlib + os.sep) and "-packages" not in f:
            files.add(f)
            if f.endswith(".py"):
                pyc = importlib.util.cache_from_source(f)
                if os.path.exists(pyc):
                    files.add(pyc)
            continue
        # A third-party module: its whole top-level package.
        top = mod.__name__.split(".")[0]
        spec_top = importlib.util.find_spec(top)
        if spec_top and spec_top.submodule_search_locations:
            packages.update(spec_top.submodule_search_locations)
        else:
            files.add(f)
    # Codecs are looked up by name at run time: all of them.
    enc = os.path.join(stdlib, "encodings")
    for root, _, names in os.walk(enc):
        files.update(os.path.join(root, n) for n in names)
    for pkg in packages:
        for root, _, names in os.walk(pkg):
            files.update(os.path.join(root, n) for n in names)
    for f in sorted(files):
        print(f)


if __name__ == "__main__":
    main()
