// "Check my numbers": a collapsible panel after a section's outputs where a student pastes what
// their own code printed for the section's inputs (PyTorch, NumPy, lists, rows), or chooses or
// drops a .npy or .csv file; the core compares it with its result and with each mistake the
// lesson warns about (core.diagnose), and check-result.js says what it found.
//
// A section takes part through its controller's hook check(state, result) (web/src/section.js),
// which returns what to compare, from the numbers its compute() got:
//   {check, inputs, given?, note?, compare: [{key, label, opts?, reveal?}]}
//   check     the core's check: causalAverage, softmax, attention, positions, sdpaBackward, dropout
//   inputs    its inputs (tensors and options), exactly those the section computed with
//   given     the inputs as the student's code takes them, by the names the section's PyTorch
//             program uses (tensors, numbers, flags); default: the tensors of `inputs`
//   note      a comment for the copied inputs (e.g. the weights' layout)
//   compare   what the student may compare, the first by default: a label in the section's
//             words, the check's options (quantity, gradient) and reveal(index), which returns
//             the reveal(i, j) of the section's heatmap showing the core's value at that index
//             of the result (a function that focuses it, so its provenance shows), or null; an entry with its own check, inputs, given and note (18.7's
//             weights after dropout beside its gradients) uses them instead of the section's
// or {waiting: text}: nothing to check yet (18.8 before its step-through has traced a layer),
// and the text says what to do.
// Like the PyTorch panel, the hook runs only while the panel is open. When the section's inputs
// change, the last tensor that was read is checked again against them. Text that cannot be read
// is explained beside the box, in the page's language; the last result stays.
//
// The DOM side only: the reading is parse-tensor.js's, every comparison the core's.
import { h, messageLine, nextId } from './dom.js';
import { choice } from './controls.js';
import { makeT } from '../i18n.js';
import { errorMessage } from '../messages.js';
import { parseTensor, parseNpy } from '../../../wasm/js/parse-tensor.js';
import { FORMS, inputsText } from '../check-inputs.js';
import { strings } from './check-strings.js';
import { checkResult } from './check-result.js';
import { copyOrSelect } from './pytorch-panel.js';

const MAX_FILE_MB = 8;   // a .npy of 200,000 float64 values (parse-tensor.js's limit) is 1.6 MB
const NPY_MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];   // \x93NUMPY

/** The tensors of a check's inputs (what the student's code needs by default). */
const tensorsOf = (inputs) => Object.fromEntries(Object.entries(inputs).filter(([, v]) => v && ArrayBuffer.isView(v.data)));

/** The words of a parse error (parse-tensor.js's codes) or a core error, in the panel's language. */
function readError(t, lang, e) {
  if (e?.name !== 'ParseError') return errorMessage(lang, e);
  const code = e.code === 'paste_ragged' && e.params?.expected !== undefined ? 'paste_ragged_rows' : e.code;
  return Object.hasOwn(strings[lang], code) ? t(code, e.params) : e.message;
}

/** The compared quantity's control: a choice of several, or a line naming the one. */
function compareControl(t, onChange) {
  const el = h('div.check-compare');
  let shown = null;
  return {
    el,
    set(options, key) {
      const signature = JSON.stringify(options.map((o) => [o.key, o.label]));
      if (signature !== shown) {
        shown = signature;
        if (options.length > 1) {
          const c = choice({ label: t('compareLegend'), name: 'check-compare', options: options.map((o) => ({ value: o.key, label: o.label })), onChange });
          el.replaceChildren(c.el);
          el.control = c;
        } else {
          el.replaceChildren(h('p.check-line', {}, h('strong', {}, t('compareLegend')), ' ', options[0].label));
          el.control = null;
        }
      }
      el.control?.set(key);
    },
    /** Nothing to compare yet: the section says what to do. */
    wait(text) {
      shown = null;
      el.control = null;
      el.replaceChildren(h('p.note.check-waiting', {}, text));
    },
  };
}

/** The section's inputs, to copy in a chosen form or to read. */
function inputsBox(t, getText) {
  let form = FORMS[0];
  const code = h('code.check-inputs-code');
  const pre = h('pre.check-inputs-text', { tabindex: 0, 'aria-label': t('inputsTitle') }, code);
  const show = h('details.check-inputs-show', {}, h('summary', {}, t('showInputs')), pre);
  const status = h('span.check-status', { role: 'status' });
  const render = () => { code.textContent = getText(form); };
  show.addEventListener('toggle', () => { if (show.open) render(); });
  const forms = choice({ label: t('formLegend'), name: 'check-form', options: FORMS.map((f) => ({ value: f, label: t(`form${f[0].toUpperCase()}${f.slice(1)}`) })),
    onChange: (f) => { form = f; if (show.open) render(); } });
  forms.set(form);
  async function copy() {
    render();
    if (!show.open) show.open = true;   // shown, so that it can be selected if the clipboard refuses
    status.textContent = t((await copyOrSelect(code.textContent, code, pre)) === 'copied' ? 'inputsCopied' : 'inputsSelected');
  }
  const el = h('div.check-inputs', {}, h('p.check-line', {}, h('strong', {}, t('inputsTitle'))),
    h('div.check-tools', {}, forms.el, h('button.check-copy', { type: 'button', onclick: copy }, t('copyInputs')), status), show);
  return { el, refresh: () => { status.textContent = ''; if (show.open) render(); } };
}

/** Fills `details` (a lazy-panel.js panel: its summary is there) for `section`; {update(next), drop(file)}. */
export function checkPanel({ lang, core, section, details }) {
  const t = makeT(lang, strings);
  let make = null;     // () => the section's check(state, result) for what is on screen
  let spec = null;     // what it returned, while the panel is open
  let key = null;      // the compared quantity chosen
  let last = null;     // {parsed, source}: the last tensor read, checked again when the section changes

  const compare = compareControl(t, (k) => { key = k; inputs.refresh(); diagnose(); });
  /** The compared entry, with the check, inputs, given and note it uses (its own or the section's). */
  const chosen = () => {
    const c = spec.compare.find((x) => x.key === key) ?? spec.compare[0];
    return { ...c, check: c.check ?? spec.check, inputs: c.inputs ?? spec.inputs, given: c.inputs ? c.given : spec.given, note: c.inputs ? c.note : spec.note };
  };
  const inputs = inputsBox(t, (form) => {
    if (!spec?.inputs) return '';
    const c = chosen();
    return inputsText(c.given ?? tensorsOf(c.inputs), form, c.note);
  });
  const boxId = nextId('check-paste'), hintId = nextId('check-hint');
  const box = h('textarea.check-paste', { id: boxId, rows: 6, spellcheck: 'false', autocomplete: 'off', autocapitalize: 'off', 'aria-describedby': hintId });
  const msg = messageLine(() => [box], 'p');
  msg.el.classList.add('check-error');
  const hint = h('p.note.check-hint', { id: hintId }, t('pasteHint'));
  const file = h('input.check-file', { type: 'file', accept: '.npy,.csv,.tsv,.txt', hidden: true, 'aria-hidden': 'true', tabindex: -1 });
  const result = checkResult({ t, lang, root: () => section.getRootNode() });
  const el = details;
  el.append(
    h('p.note.check-help', {}, t('checkHelp')),
    compare.el, inputs.el,
    h('div.check-input', {}, h('label.check-label', { for: boxId }, t('pasteLabel')), box, msg.el, hint,
      h('div.check-tools', {},
        h('button.check-run', { type: 'button', onclick: readBox }, t('checkRun')),
        h('button.check-choose', { type: 'button', onclick: () => file.click() }, t('chooseFile')), file,
        h('button.check-clear', { type: 'button', onclick: clear }, t('clear')))),
    result.el);

  // a paste (or text dropped in) is checked at once; typing waits for Check or Ctrl+Enter
  box.addEventListener('input', (ev) => { if (ev.inputType === 'insertFromPaste' || ev.inputType === 'insertFromDrop') readBox(); });
  box.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); readBox(); } });
  file.addEventListener('change', () => { readFile(file.files[0]); file.value = ''; });
  // a file dropped on the panel is a tensor to check, not a state file for the section: the lazy
  // panel takes the drop and hands the file to drop() below
  el.addEventListener('toggle', () => { if (el.open) refresh(); });

  // the box is described by its hint, and by the error while one is shown (messageLine alone
  // would leave it described by nothing once the error goes)
  const say = (text) => {
    msg.show(text);
    box.setAttribute('aria-describedby', text ? `${msg.el.id} ${hintId}` : hintId);
  };
  /** Nothing checked: say why beside the box; the last result stays. */
  const fail = (text) => say(t.sentences(text, t('keep')));

  function readBox() {
    try {
      last = { parsed: parseTensor(box.value), source: null };
    } catch (e) {
      fail(readError(t, lang, e));
      return;
    }
    diagnose();
  }

  async function readFile(f) {
    if (!f) return;
    const name = f.name.slice(0, 80);
    if (f.size > MAX_FILE_MB * 2 ** 20) { fail(t('fileTooLarge', { file: name, max: MAX_FILE_MB })); return; }
    let parsed;
    try {
      const bytes = new Uint8Array(await f.arrayBuffer());
      // a .npy by its first bytes, whatever its name; anything else is read as text (a CSV)
      parsed = NPY_MAGIC.every((b, i) => bytes[i] === b) ? parseNpy(bytes) : parseTensor(new TextDecoder().decode(bytes));
    } catch (e) {
      fail(e?.name === 'ParseError' ? readError(t, lang, e) : t('fileUnreadable', { file: name, message: e?.message ?? String(e) }));
      return;
    }
    last = { parsed, source: t('fromFile', { file: name }) };
    diagnose();
  }

  function clear() {
    box.value = '';
    last = null;
    say(null);
    result.clear();
    box.focus();
  }

  /** The core's diagnosis of the last tensor read, against the section's inputs as they are now. */
  function diagnose() {
    if (!spec || !last) return;
    if (spec.waiting) { fail(spec.waiting); return; }
    const c = chosen();
    const { shape, data, resolution } = last.parsed;
    let d;
    try {
      d = core.diagnose(c.check, { shape, data }, { ...c.inputs, ...c.opts, resolution: { shape, data: resolution } });
    } catch (e) {
      fail(readError(t, lang, e));
      return;
    }
    say(null);
    result.show(d, { parsed: last.parsed, check: c.check, reveal: c.reveal ?? null, source: last.source });
  }

  function refresh() {
    if (!make) return;
    try {
      spec = make();
    } catch (e) {   // (the section computed these numbers a moment ago: not expected, but never a blank panel)
      spec = null;
      fail(readError(t, lang, e));
      return;
    }
    inputs.el.hidden = !!spec.waiting;
    if (spec.waiting) {
      compare.wait(spec.waiting);
      return;
    }
    if (!spec.compare.some((c) => c.key === key)) key = spec.compare[0].key;
    compare.set(spec.compare, key);
    inputs.refresh();
    diagnose();
  }

  return {
    /** A file dropped on the panel (lazy-panel.js takes the drop, also before this code is here). */
    drop: readFile,
    /** The section's check for what is on screen (a function returning the hook's answer); it runs
     * now if the panel is open. */
    update(next) {
      make = next;
      if (el.open) refresh();
    },
  };
}
