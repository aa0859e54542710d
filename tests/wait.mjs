// How long a browser test waits for what it waits for: the event, the mutation, the URL change or
// the worker message its assertion is about. This bound is there to stop a hang, and it does not
// check speed. It is set high so that a machine shared with other work (a CPU kept busy by another
// process, two test files at a time) never reaches it while the page is still working; a page
// that never gets there fails after WAIT_MS with the wait that timed out. Every page and context
// the suites open takes it as its default (tests/web/harness.mjs, tests/firefox/firefox.mjs);
// no test sets a shorter one.
export const WAIT_MS = 180_000;
