// The page's mark 'attention-lab:interactive', awaited from inside the page: set up before any of
// the page's scripts (page.addInitScript), not polled with page.waitForFunction, which evaluates
// Playwright's injected script (about 0.3 MB) in the page while it loads, on the same main thread
// (some 100 to 200 ms with the CPU slowed 4x). Used by bench/page.mjs, bench/profile-page.mjs and
// bench/ab-load.mjs.
//
// Two times per load, both from navigation start: `mark`, when the page marks itself interactive
// (what it shows is mounted and answers input), and `painted`, when the first frame after the mark
// is done (its requestAnimationFrame, then a message: that frame's style, layout and paint have
// run), which is when the student sees what was mounted. The page sets its mark before the browser
// has laid out what it mounted, so `painted` carries that first layout and paint.
import { WAIT_MS } from '../tests/wait.mjs';

/** Watch for the mark in every document `page` loads from now on (before navigating). */
export function watchInteractive(page) {
  return page.addInitScript(() => {
    window.__labInteractive = new Promise((resolve) => {
      // performance.mark wrapped, so that the frame is asked for in the same task as the mark (a
      // PerformanceObserver's callback could come after that frame)
      const mark = performance.mark.bind(performance);
      performance.mark = (name, ...rest) => {
        const entry = mark(name, ...rest);
        if (name === 'attention-lab:interactive') {
          requestAnimationFrame(() => {
            const c = new MessageChannel();
            c.port1.onmessage = () => resolve({ mark: entry.startTime, painted: performance.now() });
            c.port2.postMessage(0);
          });
        }
        return entry;
      };
    });
  });
}

/** {mark, painted} (ms from navigation start) in the page's current document; an Error naming the
 * page's error message, if any, once WAIT_MS has passed without them. */
export function interactiveMark(page) {
  return page.evaluate((wait) => Promise.race([window.__labInteractive,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`not interactive after ${wait / 1000} s: ${document.querySelector('.error')?.textContent ?? ''}`)), wait))]), WAIT_MS);
}

/** Load `url` in `page` (watched with watchInteractive) and resolve to its {mark, painted}. */
export async function openInteractive(page, url) {
  await page.goto(url, { waitUntil: 'commit' });
  return interactiveMark(page);
}
