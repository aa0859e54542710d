// Motion the student can turn off: the system setting "reduce motion" (CSS prefers-reduced-motion,
// WCAG 2.3.3). Anything on the page that moves by itself (an animation, a step-through's Play)
// asks reducedMotion() before it starts and at each step: when it is true, show the end state at
// once (or step only when asked) instead of animating, and do not auto-play. CSS transitions and
// animations are already cut to nothing under the setting (style.css, the accessibility block).
const query = typeof matchMedia === 'function' ? matchMedia('(prefers-reduced-motion: reduce)') : null;

/** True when the student's system asks for reduced motion (read afresh on every call). */
export const reducedMotion = () => query?.matches ?? false;
