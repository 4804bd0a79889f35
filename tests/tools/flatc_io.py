"""flatc, the second decoder the tests use (Debian's flatbuffers-compiler): a binary to its JSON,
and a JSON object to a binary, in a scratch directory. Schemas are given as paths."""
import json
import os
import subprocess


def flatc_json(schema, binary, outdir, size_prefixed=False, defaults=False):
    """The JSON flatc decodes `binary` to with `schema` (--defaults-json: fields equal to their
    default are written too)."""
    args = ["flatc", "--json", "--strict-json", "--raw-binary", "-o", outdir]
    if size_prefixed:
        args.append("--size-prefixed")
    if defaults:
        args.append("--defaults-json")
    subprocess.run(args + [schema, "--", binary], check=True, capture_output=True)
    return json.load(open(os.path.join(outdir, os.path.splitext(os.path.basename(binary))[0] + ".json")))


def flatc_bin(schema, obj, name, outdir, size_prefixed=False):
    """The path of the binary flatc builds from `obj` with `schema` (named after `name`, with the
    schema's file extension)."""
    src = os.path.join(outdir, name + ".json")
    with open(src, "w") as f:
        json.dump(obj, f)
    args = ["flatc", "-b", "-o", outdir]
    if size_prefixed:
        args.append("--size-prefixed")
    subprocess.run(args + [schema, src], check=True, capture_output=True)
    for ext in (".bin", ".pte", ".etdp"):
        if os.path.exists(os.path.join(outdir, name + ext)):
            return os.path.join(outdir, name + ext)
    raise RuntimeError("flatc wrote nothing for " + name)
