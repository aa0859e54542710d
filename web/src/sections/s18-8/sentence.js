// 18.8's sentence view: the sentence to inspect as text, twice, the untrained model (its twin in
// the worker, step 0) beside the model now. Pointing at a character (hover, tap, focus; ← → Home
// End move, one tab stop per panel) shades the characters it reads from by the weights the core
// gave, of one head or the mean of a layer's heads, and lists those weights as text.
import { h, nextId, setText, setHidden } from '../../widgets/dom.js';
import { fmt } from '../../format.js';
import { matrixAt } from '../../tensors.js';
import { MODEL, shown } from './training.js';

// the views: a layer's mean, then each of its heads
const VIEWS = Array.from({ length: MODEL.layers }, (_, l) => [{ l, hd: null }, ...Array.from({ length: MODEL.heads }, (__, hd) => ({ l, hd }))]).flat();

/** One panel: its title and the characters, each a focusable span. */
function panel(t, name, onPoint) {
  const title = h('h4.sent-title');
  const chars = h('div.sent-chars', { role: 'group', 'data-name': name });
  chars.addEventListener('mouseover', (e) => { const c = e.target.closest?.('.sent-char'); if (c) onPoint(Number(c.dataset.pos)); });
  chars.addEventListener('click', (e) => { const c = e.target.closest?.('.sent-char'); if (c) onPoint(Number(c.dataset.pos), true); });
  chars.addEventListener('focusin', (e) => { const c = e.target.closest?.('.sent-char'); if (c) onPoint(Number(c.dataset.pos)); });
  chars.addEventListener('keydown', (e) => {
    const n = chars.children.length, at = Number(e.target.dataset?.pos);
    const next = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: n - 1 }[e.key];
    if (next === undefined || Number.isNaN(at)) return;
    e.preventDefault();
    onPoint(Math.max(0, Math.min(n - 1, next)), true);
  });
  return {
    el: h('div.sent-panel', {}, title, chars), title, chars,
    /** The characters of the sentence (built again only when they change). */
    text(list) {
      if (chars.dataset.text === list.join('\u0000')) return;
      chars.dataset.text = list.join('\u0000');
      chars.replaceChildren(...list.map((c, i) => h('span.sent-char', { role: 'button', 'data-pos': i, tabindex: -1, 'aria-label': t('sentChar', { c, t: i }) }, c)));
    },
    /** Row `at` of `rows` (the core's weights) as the shading; the pointed character marked and the tab stop. */
    shade(rows, at, focus) {
      [...chars.children].forEach((el, j) => {
        el.style.setProperty('--w', String(rows[at][j]));
        el.dataset.weight = String(rows[at][j]);
        el.classList.toggle('pointed', j === at);
        el.tabIndex = j === at ? 0 : -1;
      });
      if (focus && chars.contains(document.activeElement)) chars.children[at].focus();
    },
  };
}

/**
 * The sentence view of one mounted 18.8:
 *   -> {els, compute(state, core, r) -> rows, paint(r, rows)}
 * rows: {untrained, trained}: the (T, T) weights of the view chosen, from the core (a layer's mean:
 * the core's average of the heads' maps).
 */
export function sentenceView(ctx) {
  const { t } = ctx;
  let view = 0, at = null, current = null;
  const select = h('select', { 'data-name': 'sent-view', id: nextId('sv'), onchange: () => { view = select.selectedIndex; ctx.refresh(); } },
    VIEWS.map(({ l, hd }) => h('option', {}, hd === null ? t('sentMean', { l }) : t('tourHead', { l, h: hd }))));
  const point = (j, focus = false) => { at = j; if (current) draw(current, focus); };
  const before = panel(t, 'sent-untrained', point), after = panel(t, 'sent-trained', point);
  const reads = [h('p.sent-reads', { 'data-name': 'sent-reads-untrained' }), h('p.sent-reads', { 'data-name': 'sent-reads-trained' })];
  const readsBox = h('div.sent-readout', { 'aria-live': 'polite' }, reads);
  const waiting = h('p.note.waiting', { 'data-name': 'sent-waiting' }, t('sentWaiting'));
  const body = h('div.sent-body', { hidden: true }, h('div.controls', {}, h('label.control.select', { for: select.id }, t('sentView'), ' ', select)),
    h('div.sent-panels', {}, before.el, after.el), readsBox);
  let computed = null;

  /** The row of the pointed character in both panels, and its weights as text. */
  function draw({ chars, rows, step }, focus) {
    const i = Math.min(at ?? chars.length - 1, chars.length - 1);
    at = i;
    before.shade(rows.untrained, i, focus);
    after.shade(rows.trained, i, focus);
    [[rows.untrained, t('sentUntrained')], [rows.trained, t('sentTrained', { step })]].forEach(([m, model], k) => {
      const list = chars.map((c, j) => [c, m[i][j]]).filter(([, w]) => w !== 0).map(([c, w]) => t('sentWeight', { c, v: fmt(w, 3) })).join(', ');
      setText(reads[k], t('sentReads', { model, c: chars[i], t: i, list }));
    });
  }

  return {
    els: [h('h3', {}, t('sentTitle')), h('p.note', {}, t('sentNote')), waiting, body],
    compute(s, c, r) {
      const a = r.attention;
      if (!a) return null;
      if (computed?.attention === a && computed.view === view) return computed;
      const { l, hd } = VIEWS[view];
      const of = (maps) => {
        if (hd !== null) return matrixAt(maps[l], hd);
        // the mean of the layer's heads: the core's causal average of the heads' maps (as rows of
        // T * T numbers), whose last row averages all of them
        const [H, T] = maps[l].shape;
        const avg = c.causalAverage({ shape: [H, T * T], data: maps[l].data }, { method: 'loop' });
        return matrixAt({ shape: [T, T], data: avg.data.subarray((H - 1) * T * T) });
      };
      computed = { attention: a, view, rows: { untrained: of(a.untrained), trained: of(a.maps) } };
      return computed;
    },
    /** Draws the view when its weights changed (another sentence, model, step or view). */
    paint(r, data) {
      setHidden(waiting, !!data);
      setHidden(body, !data);
      if (!data) { current = null; return; }
      if (current?.rows === data.rows) return;
      const chars = [...r.attention.text].map(shown), step = r.attention.step;
      if (current && current.chars.join('') !== chars.join('')) at = null;   // another sentence: point at its last character
      before.text(chars);
      after.text(chars);
      before.chars.setAttribute('aria-label', t('sentUntrained'));
      after.chars.setAttribute('aria-label', t('sentTrained', { step }));
      setText(before.title, t('sentUntrained'));
      setText(after.title, t('sentTrained', { step }));
      current = { chars, rows: data.rows, step };
      select.selectedIndex = view;
      draw(current, false);
    },
  };
}
