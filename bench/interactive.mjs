// The page's mark 'attention-lab:interactive', awaited from inside the page: a PerformanceObserver
// set up before any of the page's scripts (page.addInitScript), not polled with
// page.waitForFunction, which evaluates Playwright's injected script (about 0.3 MB) in the page
// while it loads, on the same main thread (some 100 to 200 ms with the CPU slowed 4x). Used by
// bench/page.mjs, bench/profile-page.mjs and bench/ab-load.mjs.
import { WAIT_MS } from '../tests/wait.mjs';

/** Watch for the mark in every document `page` loads from now on (before navigating). */
export function watchInteractive(page) {
  return page.addInitScript(() => {
    window.__labInteractive = new Promise((resolve) => {
      new PerformanceObserver((list, observer) => {
        for (const e of list.getEntries()) if (e.name === 'attention-lab:interactive') { observer.disconnect(); resolve(e.startTime); }
      }).observe({ type: 'mark', buffered: true });
    });
  });
}

/** The mark's time (ms from navigation start) in the page's current document; an Error naming
 * the page's error message, if any, once WAIT_MS has passed without it. */
export function interactiveMark(page) {
  return page.evaluate((wait) => Promise.race([window.__labInteractive,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`not interactive after ${wait / 1000} s: ${document.querySelector('.error')?.textContent ?? ''}`)), wait))]), WAIT_MS);
}

/** Load `url` in `page` (watched with watchInteractive) and resolve to its mark's time. */
export async function openInteractive(page, url) {
  await page.goto(url, { waitUntil: 'commit' });
  return interactiveMark(page);
}
