// Opens a page in Debian's headless Chromium and prints, as one JSON line, what a test checks:
// every chart box's id with the series and points it drew, the page's data-kind, each console
// error or page error, and each request other than for the page itself (report.html must make
// none). Takes a screenshot of the whole page. Used by tests/integration/report_html_test.cc.
//
//   node inspect_page.mjs URL SCREENSHOT.png [--wait-windows N]
// --wait-windows N: a live dashboard; wait until it has received N windows (30 s at most).
import { chromium } from './node_modules/playwright-core/index.mjs';

const [url, screenshot, ...rest] = process.argv.slice(2);
const waitWindows = rest[0] === '--wait-windows' ? Number(rest[1]) : 0;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  // As root and on a machine with no network: no sandbox, and none of Chromium's own traffic.
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const result = { errors: [], requests: [], charts: [], kind: null, windows_seen: [] };
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  page.on('console', m => { if (m.type() === 'error') result.errors.push(m.text()); });
  page.on('pageerror', e => result.errors.push(String(e)));
  page.on('request', r => { if (r.url() !== url) result.requests.push(r.url()); });
  await page.goto(url, { waitUntil: 'load' });
  if (waitWindows > 0) {
    // The count as the page shows it, each time it changes: it must grow while the run goes.
    let last = -1;
    const deadline = Date.now() + 30000;
    while (Date.now() < deadline) {
      const n = Number(await page.textContent('#live-windows'));
      if (n !== last) { result.windows_seen.push(n); last = n; }
      if (n >= waitWindows) break;
      await page.waitForFunction(
        prev => Number(document.getElementById('live-windows').textContent) !== prev, last,
        { timeout: Math.max(1, deadline - Date.now()) }).catch(() => {});
    }
  }
  // Charts are drawn synchronously on load (a live page on the next animation frame).
  await page.evaluate(() => new Promise(r => requestAnimationFrame(() => r())));
  result.kind = await page.evaluate(() => document.body.dataset.kind);
  result.charts = await page.evaluate(() => [...document.querySelectorAll('.chart')].map(b => ({
    id: b.id.replace(/^chart-/, ''),
    series: b.dataset.series === undefined ? null : Number(b.dataset.series),
    points: b.dataset.points === undefined ? null : Number(b.dataset.points),
    canvases: b.querySelectorAll('canvas').length,
  })));
  await page.screenshot({ path: screenshot, fullPage: true });
} finally {
  await browser.close();
}
console.log(JSON.stringify(result));
