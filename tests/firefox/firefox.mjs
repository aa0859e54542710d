// Debian's Firefox ESR, headless, driven over WebDriver BiDi by puppeteer-core (no geckodriver,
// no browser download). Each launch gets a fresh temporary profile (puppeteer creates it, writes
// its own test preferences into user.js and removes it on close); on top of those, the settings
// below keep Firefox from reaching for hosts it cannot reach here (updates, telemetry, captive
// portal and connectivity checks, Remote Settings and Nimbus experiments, region lookup,
// safe-browsing lists), so a run makes no DNS lookup other than the loopback server.
import puppeteer from 'puppeteer-core';
import { WAIT_MS } from '../wait.mjs';

// Added to puppeteer's own list (which already turns off updates, data reporting, safe browsing
// downloads and add-on metadata).
const PREFS = {
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': '',
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  // Release builds ignore another server unless MOZ_DISABLE_NONLOCAL_CONNECTIONS is set (below);
  // with it, this dummy value makes Remote Settings skip every sync.
  'services.settings.server': 'data:,#remote-settings-dummy/v1',
  'messaging-system.rsexperimentloader.enabled': false,
  'app.normandy.enabled': false,
  'app.shield.optoutstudies.enabled': false,
  'browser.region.network.url': '',
  'browser.region.update.enabled': false,
  'browser.safebrowsing.provider.mozilla.updateURL': '',
  'browser.newtabpage.activity-stream.feeds.telemetry': false,
  // puppeteer relaxes this for its own tests; a student's Firefox keeps the default, which is
  // what the single-file test from file:// must see
  'security.fileuri.strict_origin_policy': true,
};

/** Firefox ESR headless with a fresh profile; resolves to {browser, close}. */
export async function launch() {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: process.env.FIREFOX ?? '/usr/bin/firefox-esr',
    headless: true,
    extraPrefsFirefox: PREFS,
    env: {
      ...process.env,
      MOZ_DISABLE_NONLOCAL_CONNECTIONS: '1',   // loopback and file:// only; also lets the prefs above take effect
      MOZ_CRASHREPORTER_DISABLE: '1',
    },
    protocolTimeout: WAIT_MS,
    timeout: WAIT_MS,   // the browser's start
  });
  return { browser, close: () => browser.close() };
}

/** A new 1280 x 900 page that records console errors and uncaught page errors (over BiDi's log module). */
export async function openPage(browser, url) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  page.setDefaultTimeout(WAIT_MS);   // tests/wait.mjs
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  if (url) await page.goto(url);
  return { page, errors };
}
