// Opens proofload's live dashboard (--dashboard) in Debian's headless Chromium while a run goes
// and prints, as one JSON line, what tests/integration/live_browser_test.cc checks: each value
// the windows count (#live-windows) took, the console and page errors, every request to an
// address other than the dashboard's, and how many charts the page drew. Takes a screenshot.
//
//   node dashboard_check.mjs URL SCREENSHOT.png
// Waits (20 s at most) until #live-windows has grown twice after the page loaded: the page
// updates while the run goes, not only from the replay it gets when it opens.
import { chromium } from './node_modules/playwright-core/index.mjs';

const [url, screenshot] = process.argv.slice(2);
const origin = new URL(url).origin;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  // As root and on a machine with no network: no sandbox, and none of Chromium's own traffic.
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--headless'],
});
const result = { errors: [], foreign_requests: [], counts: [], charts: 0, status: null };
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.on('console', m => { if (m.type() === 'error') result.errors.push(m.text()); });
  page.on('pageerror', e => result.errors.push(String(e)));
  page.on('request', r => {
    if (new URL(r.url()).origin !== origin) result.foreign_requests.push(r.url());
  });
  await page.goto(url, { waitUntil: 'load' });
  const count = () => page.evaluate(
    () => Number(document.getElementById('live-windows').textContent));
  const deadline = Date.now() + 20000;
  result.counts.push(await count());
  while (result.counts.length < 3 && Date.now() < deadline) {
    const last = result.counts[result.counts.length - 1];
    const grew = await page.waitForFunction(
      prev => Number(document.getElementById('live-windows').textContent) > prev, last,
      { timeout: Math.max(1, deadline - Date.now()) }).then(() => true, () => false);
    if (!grew) break;
    result.counts.push(await count());
  }
  // Charts are drawn on the animation frame after a window arrives.
  await page.evaluate(() => new Promise(r => requestAnimationFrame(() => r())));
  result.charts = await page.evaluate(() => document.querySelectorAll('.chart canvas').length);
  const status = await page.$('#live-status');
  result.status = status ? await status.textContent() : null;
  await page.screenshot({ path: screenshot, fullPage: true });
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
