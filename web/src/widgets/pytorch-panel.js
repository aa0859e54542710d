// "Show as PyTorch": a collapsible panel holding a PyTorch (float64) program that reproduces the
// section as it is on screen, with a copy button and, where the program reads a file (the GPT's
// parameters, a Monte Carlo's draws), a download button for it.
//
// The program is written lazily: update(make) only keeps `make`, and it runs while the panel is
// open (on opening, and on each update while open), so editing a matrix costs nothing extra.
// make(loaded) returns a string, or {code, note, files: [{name, bytes: () => Uint8Array | string}]};
// `loaded` is what `load()` resolves to (the page's: pytorch-programs.js's PROGRAMS, fetched on the
// first opening, since no first paint needs the programs).
// The <code> element carries data-pytorch and holds the program as its text (for tests and
// course authors).
//
// "Download as notebook" (given `notebook`: the section's id, the page's language and a loader of
// its lesson's Markdown) saves the program shown as a Jupyter notebook (web/src/notebook.js), with
// the numbers the page shows for it (web/src/notebook-values.js, from `view`, the section's state
// and result that update() was given with the program). Both modules load on the first click.
import { h } from './dom.js';
import { loadOnOpen } from './lazy-panel.js';

// Text to the clipboard; with no clipboard access (an iframe without the permission, an old
// browser) the node showing it is selected instead, and `focus` focused, so that the keyboard
// shortcut copies it. Resolves to 'copied' or 'selected' (also for "Check my numbers"' inputs).
export async function copyOrSelect(text, node, focus) {
  try {
    await navigator.clipboard.writeText(text);
    return 'copied';
  } catch {
    const range = document.createRange();
    range.selectNodeContents(node);
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    focus.focus();
    return 'selected';
  }
}

// A file ({name, bytes(), type?}), saved through a link clicked once.
function download(f) {
  const bytes = f.bytes();
  const url = URL.createObjectURL(new Blob([bytes], { type: f.type ?? (typeof bytes === 'string' ? 'application/json' : 'application/octet-stream') }));
  const a = h('a', { href: url, download: f.name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

/** The notebook of the program shown: {name, bytes, type} for download(). */
async function notebookFile({ id, lang, loadLesson }, code, files, view) {
  const [nb, { VALUES }, lesson] = await Promise.all([import('../notebook.js'), import('../notebook-values.js'), loadLesson()]);
  if (!VALUES[id] || !view) throw new Error(`no numbers to check for section ${id}`);
  const built = nb.buildNotebook({ id, lang, lesson, code, files: files.map((f) => f.name), values: VALUES[id](view.state, view.result) });
  return { name: nb.notebookName(id), bytes: () => nb.notebookText(built), type: 'application/x-ipynb+json' };
}

export function pytorchPanel({ t, notebook = null, load = async () => null }) {
  let make = null;
  let loaded;            // what load() gave: undefined until then
  let view = null;       // {state, result} of the maker
  let code = '';
  let files = [];
  let shownView = null;  // the view of the program shown
  const codeEl = h('code.language-python', { 'data-pytorch': '' });
  // scrollable and focusable, so a keyboard can scroll a long program
  // nothing to copy, save or scroll until the first program is written
  const pre = h('pre.pytorch-code', { tabindex: 0, 'aria-label': t('pytorchCode'), hidden: true }, codeEl);
  const note = h('p.note.pytorch-note', { hidden: true, 'aria-live': 'polite' });
  const help = h('p.note.pytorch-help', {}, t('pytorchHelp'));
  const status = h('span.pytorch-status', { role: 'status', 'aria-live': 'polite' });
  const copyBtn = h('button.pytorch-copy', { type: 'button', 'data-name': 'pytorch-copy', disabled: true, onclick: async () => say((await copyOrSelect(code, codeEl, pre)) === 'copied' ? 'pytorchCopied' : 'pytorchSelected') }, t('pytorchCopy'));
  const notebookBtn = notebook && h('button.pytorch-notebook', { type: 'button', 'data-name': 'pytorch-notebook', disabled: true, onclick: saveNotebook }, t('pytorchNotebook'));
  const downloads = h('span.pytorch-files');
  const el = h('details.pytorch-panel', { 'data-name': 'pytorch' },
    h('summary', {}, t('pytorchShow')),
    help, note, h('div.pytorch-tools', {}, copyBtn, notebookBtn, downloads, status), pre);
  // the first opening fetches what make() needs (lazy-panel.js: busy until it is here); a failed
  // fetch says so in the note, and the next opening tries again
  loadOnOpen(el, load, {
    done(m) { loaded = m; if (el.open) render(); },
    failed(e) { setNote(t('panelFailed', { message: e.message })); },
  });
  el.addEventListener('toggle', () => { if (el.open) render(); });
  // the note is a live region: set only when its words change
  function setNote(text) {
    note.hidden = !text;
    if (note.textContent !== (text ?? '')) note.textContent = text ?? '';
  }

  function render() {
    if (!make || loaded === undefined) return;
    let out;
    try {
      out = make(loaded);
    } catch (e) {
      out = { code: '', note: t('pytorchFailed', { message: e.message }) };
    }
    const next = typeof out === 'string' ? { code: out } : out;
    setNote(next.note);
    if (next.code !== code) {
      code = next.code ?? '';
      codeEl.textContent = code;
    }
    shownView = view;
    pre.hidden = !code;
    copyBtn.disabled = !code;
    if (notebookBtn) notebookBtn.disabled = !code;
    const names = (next.files ?? []).map((f) => f.name).join('\n');
    files = next.files ?? [];
    if (names !== downloads.dataset.names) {
      downloads.dataset.names = names;
      downloads.replaceChildren(...files.map((f) => h('button.pytorch-download', { type: 'button', 'data-file': f.name,
        onclick: () => download(f) }, t('pytorchDownload', { name: f.name }))));
    }
  }

  async function saveNotebook() {
    const [program, programFiles, programView] = [code, files, shownView];
    if (!program) return;
    notebookBtn.disabled = true;
    try {
      const f = await notebookFile(notebook, program, programFiles, programView);
      download(f);
      say('pytorchNotebookSaved', { name: f.name });
    } catch (e) {
      say('pytorchNotebookFailed', { message: e.message });
    } finally {
      notebookBtn.disabled = !code;
    }
  }

  function say(key, params) {
    status.textContent = t(key, params);
    clearTimeout(say.timer);
    say.timer = setTimeout(() => { status.textContent = ''; }, 4000);
  }

  return {
    el,
    /** The program's maker for the current state, and that state and the section's result
     * ({state, result}, for the notebook); it runs now if the panel is open. */
    update(next, nextView = null) {
      make = next;
      view = nextView;
      if (el.open) render();
    },
  };
}
