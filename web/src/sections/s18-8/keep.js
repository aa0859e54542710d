// Keeping the trained model: the causal mask is part of what a model is built from, so changing it
// builds a new, untrained model. Once the model on the page has trained, the page asks first, in
// the page beside the toggle (not a browser dialog): start over with the other mask, or keep the
// trained model (the toggle then shows the mask it was trained with).
import { h, nextId, setText } from '../../widgets/dom.js';

/** -> {el, ask(causal), close()} over the training controller `train`; focusBack(): the toggle, focused again when the model is kept. */
export function keepModel(ctx, train, focusBack) {
  const { t } = ctx;
  const id = nextId('keep');
  const question = h('p', { id });
  let pending = null;
  const apply = (v) => { ctx.set({ causal: v }); train.ensureModel(); };
  const rebuild = h('button', { type: 'button', 'data-act': 'rebuild', onclick: () => { const v = pending; close(); apply(v); } });
  const cancel = h('button', { type: 'button', 'data-act': 'keep', onclick: () => { close(); ctx.refresh(); focusBack()?.focus(); } }, t('keepCancel'));
  const el = h('div.keep-model', { role: 'group', 'aria-labelledby': id, 'data-name': 'keep-model', hidden: true },
    question, h('div.predict-actions', {}, rebuild, cancel));
  function close() {
    pending = null;
    el.hidden = true;
  }
  return {
    el, close,
    /** The toggle asks for the mask `v`: at once while nothing is trained, else once the student says so. */
    ask(v) {
      const step = train.state.progress?.step ?? 0;
      if (!step) { close(); apply(v); return; }
      pending = v;
      setText(question, t(v ? 'keepAskOn' : 'keepAskOff', { step }));
      setText(rebuild, t(v ? 'keepRebuildOn' : 'keepRebuildOff'));
      el.hidden = false;
      ctx.refresh();   // the toggle shows the state again: the mask the model was trained with
      rebuild.focus();
    },
  };
}
