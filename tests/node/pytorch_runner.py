"""Runs PyTorch programs for the tests (Debian's python3-torch: run it with /usr/bin/python3).

stdin:  JSON [{"id": ..., "code": "...", "files": {"name": "<base64>"}}]
stdout: JSON [{"id": ..., "values": {label: value}, "error": null | "...", "stdout": "..."}]

Each program runs with exec in a fresh namespace, in a fresh temporary directory holding its
files, with its stdout captured. torch is imported once for the whole batch. Every output line
`label = value` (value a Python literal: floats, lists, True/False) becomes values[label]; NaN and
infinities are written as the strings "NaN", "Infinity", "-Infinity" (JSON has no such numbers).
"""
import base64
import contextlib
import io
import json
import math
import os
import sys
import tempfile
import traceback

import torch  # noqa: F401  (imported once: every program imports it again from the cache)


def plain(v):
    if isinstance(v, float):
        if math.isnan(v):
            return 'NaN'
        if math.isinf(v):
            return 'Infinity' if v > 0 else '-Infinity'
        return v
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def parse(out):
    values = {}
    for line in out.splitlines():
        label, sep, text = line.partition(' = ')
        if not sep:
            continue
        try:
            values[label] = plain(eval(text, {'__builtins__': {}}, {'nan': math.nan, 'inf': math.inf}))
        except Exception:  # not a literal: keep the text
            values[label] = text
    return values


def run(job):
    out = io.StringIO()
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in (job.get('files') or {}).items():
            with open(os.path.join(tmp, name), 'wb') as f:
                f.write(base64.b64decode(data))
        os.chdir(tmp)
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(job['code'], f"<program {job['id']}>", 'exec'), {'__name__': '__main__'})
            error = None
        except Exception:
            error = traceback.format_exc()
        finally:
            os.chdir(cwd)
    text = out.getvalue()
    return {'id': job['id'], 'values': parse(text), 'error': error, 'stdout': text}


def main():
    jobs = json.load(sys.stdin)
    json.dump([run(job) for job in jobs], sys.stdout)


if __name__ == '__main__':
    main()
