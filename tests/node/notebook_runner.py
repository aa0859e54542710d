"""Validates and executes Jupyter notebooks for the tests (Debian's python3-nbformat,
python3-nbclient and python3-ipykernel on python3-torch: run it with /usr/bin/python3).

stdin:  one job a line, JSON {"id": ..., "notebook": "<the .ipynb text>", "files": {"name": "<a file's path>"}}
stdout: first {"warmup": seconds}, once the kernel is up and has imported torch; then one result
        a line, in the jobs' order: {"id": ..., "invalid": null | "...", "error": null | {"cell": id,
        "ename": ..., "evalue": ...}, "outputs": {cell id: "its stdout"}, "seconds": its run's wall time}

Each notebook is checked against nbformat's schema (nbformat.validate), then run by nbclient,
cell by cell, in a temporary directory of its own holding (links to) its files. The notebooks run
one after the other in this one process and, to spare a kernel start and an import of torch per
notebook, in one python3 kernel (the kernel their metadata names), started before the first job
comes: before each notebook the kernel's namespace is emptied (%reset -f) and its working
directory is the notebook's, so a notebook sees nothing of the ones before it but the modules
already imported.
"""
import json
import os
import sys
import tempfile
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbclient.util import run_sync

PRELUDE = 'runner-prelude'   # the id of the cell the runner puts first, taken out again


def outputs(nb):
    """Each code cell's stream output, by cell id."""
    return {cell['id']: ''.join(o.get('text', '') for o in cell.get('outputs', []) if o.get('output_type') == 'stream')
            for cell in nb.cells if cell.cell_type == 'code'}


class Kernel:
    """The shared kernel's manager, started by the first notebook."""

    def __init__(self):
        self.km = None

    def client(self, nb):
        return NotebookClient(nb, timeout=600, km=self.km) if self.km else NotebookClient(nb, timeout=600)

    def done(self, client):
        if self.km is None:
            self.km = client.km   # the first: its kernel stays for the next notebooks
        if client.kc is not None:
            client.kc.stop_channels()

    def close(self):
        if self.km is not None and self.km.has_kernel:
            run_sync(self.km.shutdown_kernel)(now=True)


def run(job, kernel):
    start = time.monotonic()
    result = {'id': job['id'], 'invalid': None, 'error': None, 'outputs': {}}
    nb = nbformat.reads(job['notebook'], as_version=nbformat.NO_CONVERT)
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as e:
        result['invalid'] = str(e)
        return result
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in (job.get('files') or {}).items():
            os.symlink(path, os.path.join(tmp, name))
        # into the notebook's directory first: the one before it is gone, which %reset would trip on
        prelude = nbformat.v4.new_code_cell(f"import os\nos.chdir({tmp!r})\nget_ipython().run_line_magic('reset', '-f')")
        prelude['id'] = PRELUDE
        nb.cells.insert(0, prelude)
        client = kernel.client(nb)
        try:
            client.execute(cleanup_kc=False)
        except CellExecutionError as e:
            failed = next((c for c in nb.cells if any(o.get('output_type') == 'error' for o in c.get('outputs', []))), None)
            error = next((o for o in (failed.outputs if failed else []) if o.get('output_type') == 'error'), {})
            result['error'] = {'cell': failed['id'] if failed else None, 'ename': error.get('ename', e.ename),
                               'evalue': error.get('evalue', e.evalue)}
        finally:
            kernel.done(client)
        nb.cells = [c for c in nb.cells if c.get('id') != PRELUDE]
    result['outputs'] = outputs(nb)
    result['seconds'] = time.monotonic() - start
    return result


def warm_up(kernel):
    """Start the kernel and import torch in it (what the first notebook would wait for)."""
    nb = nbformat.v4.new_notebook(metadata={'kernelspec': {'name': 'python3', 'display_name': 'Python 3', 'language': 'python'}})
    nb.cells = [nbformat.v4.new_code_cell('import torch')]
    client = kernel.client(nb)
    try:
        client.execute(cleanup_kc=False)
    finally:
        kernel.done(client)


def main():
    kernel = Kernel()
    try:
        start = time.monotonic()
        warm_up(kernel)
        print(json.dumps({'warmup': time.monotonic() - start}), flush=True)
        for line in sys.stdin:
            if line.strip():
                print(json.dumps(run(json.loads(line), kernel)), flush=True)
    finally:
        kernel.close()


if __name__ == '__main__':
    main()
