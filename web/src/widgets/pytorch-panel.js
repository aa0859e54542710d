// "Show as PyTorch": a collapsible panel holding a PyTorch (float64) program that reproduces the
// section as it is on screen, with a copy button and, where the program reads a file (the GPT's
// parameters, a Monte Carlo's draws), a download button for it.
//
// The program is written lazily: update(make) only keeps `make`, and it runs while the panel is
// open (on opening, and on each update while open), so editing a matrix costs nothing extra.
// make() returns a string, or {code, note, files: [{name, bytes: () => Uint8Array | string}]}.
// The <code> element carries data-pytorch and holds the program as its text (for tests and
// course authors).
import { h } from './dom.js';

// The program to the clipboard; with no clipboard access (an iframe without the permission, an
// old browser) the program is selected instead, so that the keyboard shortcut copies it.
// say(key): the status line's word for what happened.
async function copy(code, codeEl, pre, say) {
  try {
    await navigator.clipboard.writeText(code);
    say('pytorchCopied');
  } catch {
    const range = document.createRange();
    range.selectNodeContents(codeEl);
    const sel = getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    pre.focus();
    say('pytorchSelected');
  }
}

// A file the program reads ({name, bytes()}), saved through a link clicked once.
function download(f) {
  const bytes = f.bytes();
  const url = URL.createObjectURL(new Blob([bytes], { type: typeof bytes === 'string' ? 'application/json' : 'application/octet-stream' }));
  const a = h('a', { href: url, download: f.name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

export function pytorchPanel({ t }) {
  let make = null;
  let code = '';
  let files = [];
  const codeEl = h('code.language-python', { 'data-pytorch': '' });
  // scrollable and focusable, so a keyboard can scroll a long program
  const pre = h('pre.pytorch-code', { tabindex: 0, 'aria-label': t('pytorchCode') }, codeEl);
  const note = h('p.note.pytorch-note', { hidden: true });
  const help = h('p.note.pytorch-help', {}, t('pytorchHelp'));
  const status = h('span.pytorch-status', { role: 'status', 'aria-live': 'polite' });
  const copyBtn = h('button.pytorch-copy', { type: 'button', 'data-name': 'pytorch-copy', onclick: () => copy(code, codeEl, pre, say) }, t('pytorchCopy'));
  const downloads = h('span.pytorch-files');
  const el = h('details.pytorch-panel', { 'data-name': 'pytorch' },
    h('summary', {}, t('pytorchShow')),
    help, note, h('div.pytorch-tools', {}, copyBtn, downloads, status), pre);
  el.addEventListener('toggle', () => { if (el.open) render(); });

  function render() {
    if (!make) return;
    let out;
    try {
      out = make();
    } catch (e) {
      out = { code: '', note: t('pytorchFailed', { message: e.message }) };
    }
    const next = typeof out === 'string' ? { code: out } : out;
    note.hidden = !next.note;
    note.textContent = next.note ?? '';
    if (next.code !== code) {
      code = next.code ?? '';
      codeEl.textContent = code;
    }
    pre.hidden = !code;
    copyBtn.disabled = !code;
    const names = (next.files ?? []).map((f) => f.name).join('\n');
    files = next.files ?? [];
    if (names !== downloads.dataset.names) {
      downloads.dataset.names = names;
      downloads.replaceChildren(...files.map((f) => h('button.pytorch-download', { type: 'button', 'data-file': f.name,
        onclick: () => download(f) }, t('pytorchDownload', { name: f.name }))));
    }
  }

  function say(key) {
    status.textContent = t(key);
    clearTimeout(say.timer);
    say.timer = setTimeout(() => { status.textContent = ''; }, 4000);
  }

  return {
    el,
    /** The program's maker for the current state; it runs now if the panel is open. */
    update(next) {
      make = next;
      if (el.open) render();
    },
  };
}
