// oauth-browser.mjs drives the Doris OAuth sign-in page in headless
// Chromium (Debian's chromium, through playwright-core): for each attempt
// it opens the authorization URL, which lands on /doris-login, types the
// user and password, presses "Sign in", and reports whether the page
// refused the attempt (and its error text) or the browser was sent back to
// the application. It saves screenshots of the page in SCREENSHOT_DIR.
//
// Usage: CHROMIUM=/usr/bin/chromium SCREENSHOT_DIR=DIR node oauth-browser.mjs
//          --authorize URL --attempts '[["user","password"], ...]'
// Prints one JSON line on stdout; exits non-zero on any failure.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { load, parseArgs, check, run, versionOf } from './lib.mjs';

run('oauth-browser', async () => {
  const { opts } = parseArgs(process.argv.slice(2));
  check(opts.authorize && opts.attempts, 'give --authorize and --attempts');
  check(process.env.CHROMIUM, 'set CHROMIUM to the chromium binary');
  const shots = process.env.SCREENSHOT_DIR || fs.mkdtempSync(path.join(os.tmpdir(), 'doris-login-'));
  fs.mkdirSync(shots, { recursive: true });
  const { chromium } = await load('playwright-core');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-profile-'));
  // A new, empty profile; the flags keep Chromium off the network except
  // for the pages it is sent to.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
    viewport: { width: 520, height: 760 },
  });
  const attempts = [];
  try {
    const page = context.pages()[0] ?? await context.newPage();
    let n = 0;
    for (const [user, password] of JSON.parse(opts.attempts)) {
      n++;
      await page.goto(opts.authorize, { waitUntil: 'load' });
      check(new URL(page.url()).pathname === '/doris-login', `attempt ${n}: the authorization URL led to ${page.url()}`);
      const title = await page.textContent('h1');
      const client = await page.textContent('#client-name');
      await page.fill('#username', user);
      await page.fill('#password', password);
      if (n === 1) await page.screenshot({ path: path.join(shots, `doris-login-${n}-form.png`), fullPage: true });
      await Promise.all([page.waitForLoadState('load'), page.click('#submit')]);
      await page.waitForLoadState('load');
      const url = page.url();
      const a = { user, url, title, client };
      if (new URL(url).pathname === '/doris-login') {
        a.outcome = 'refused';
        a.error = (await page.textContent('#error'))?.trim();
        const pw = await page.$('#password');
        a.form = pw !== null;
        a.passwordCleared = pw !== null && (await pw.inputValue()) === '';
        a.screenshot = path.join(shots, `doris-login-${n}-${user}-refused.png`);
      } else {
        a.outcome = 'redirected';
        a.screenshot = path.join(shots, `doris-login-${n}-${user}-redirected.png`);
      }
      await page.screenshot({ path: a.screenshot, fullPage: true });
      attempts.push(a);
    }
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  return { client: `playwright-core@${versionOf('playwright-core')}`, attempts };
}, 110000);
