// Shared helpers of the client scripts in this folder: locating the npm
// packages outside the repository, argument parsing, and the one-line
// summary / failure protocol the Go end-to-end tests read.
//
// ESM ignores NODE_PATH for bare specifiers, so packages are resolved by
// hand: from CLIENTS_DIR (an npm prefix, i.e. the folder that holds
// node_modules, or a node_modules folder itself), then from each NODE_PATH
// entry. The package's "exports" map is honoured with the "import"
// condition, as Node itself would for `import '<spec>'`.

import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

function nodeModulesDirs() {
  const dirs = [];
  const add = (d) => {
    if (!d) return;
    const nm = path.basename(d) === 'node_modules' ? d : path.join(d, 'node_modules');
    if (fs.existsSync(nm)) dirs.push(nm);
  };
  add(process.env.CLIENTS_DIR);
  for (const p of (process.env.NODE_PATH || '').split(path.delimiter)) add(p);
  return dirs;
}

function pickCondition(target) {
  if (typeof target === 'string') return target;
  if (target && typeof target === 'object') {
    for (const c of ['import', 'node', 'default']) {
      if (c in target) {
        const r = pickCondition(target[c]);
        if (r) return r;
      }
    }
  }
  return undefined;
}

function exportTarget(pkg, subpath) {
  const exp = pkg.exports;
  if (exp === undefined) {
    return subpath === '.' ? (pkg.module || pkg.main || 'index.js') : subpath;
  }
  if (typeof exp === 'string' || !Object.keys(exp).some((k) => k.startsWith('.'))) {
    return subpath === '.' ? pickCondition(exp) : undefined;
  }
  if (exp[subpath] !== undefined) return pickCondition(exp[subpath]);
  for (const [key, value] of Object.entries(exp)) {
    const star = key.indexOf('*');
    if (star < 0) continue;
    const pre = key.slice(0, star);
    const post = key.slice(star + 1);
    if (subpath.startsWith(pre) && subpath.endsWith(post) && subpath.length >= pre.length + post.length) {
      const mid = subpath.slice(pre.length, subpath.length - post.length);
      const t = pickCondition(value);
      if (t) return t.split('*').join(mid);
    }
  }
  return undefined;
}

/** Imports a bare specifier such as '@modelcontextprotocol/client/stdio'. */
export async function load(spec) {
  const parts = spec.split('/');
  const nameLen = spec.startsWith('@') ? 2 : 1;
  const name = parts.slice(0, nameLen).join('/');
  const subpath = parts.length > nameLen ? './' + parts.slice(nameLen).join('/') : '.';
  const tried = [];
  for (const nm of nodeModulesDirs()) {
    const dir = path.join(nm, name);
    const pj = path.join(dir, 'package.json');
    tried.push(dir);
    if (!fs.existsSync(pj)) continue;
    const pkg = JSON.parse(fs.readFileSync(pj, 'utf8'));
    const target = exportTarget(pkg, subpath);
    if (!target) throw new Error(`${name}@${pkg.version} does not export ${subpath}`);
    return import(pathToFileURL(path.join(dir, target)).href);
  }
  throw new Error(`cannot find ${name}: set CLIENTS_DIR to the npm prefix that holds it (run ./.ci/setup); looked in: ${tried.join(', ') || '(no CLIENTS_DIR or NODE_PATH)'}`);
}

/** Returns the installed version of a package, or undefined. */
export function versionOf(name) {
  for (const nm of nodeModulesDirs()) {
    const pj = path.join(nm, name, 'package.json');
    if (fs.existsSync(pj)) return JSON.parse(fs.readFileSync(pj, 'utf8')).version;
  }
  return undefined;
}

/**
 * Parses `--flag value` options up to an optional `--`; what follows `--`
 * is the server command line (stdio). Flags listed in booleans take no value.
 */
export function parseArgs(argv, booleans = []) {
  const opts = {};
  const command = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      command.push(...argv.slice(i + 1));
      break;
    }
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${JSON.stringify(a)}`);
    const key = a.slice(2);
    if (booleans.includes(key)) {
      opts[key] = true;
      continue;
    }
    if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
    opts[key] = argv[++i];
  }
  return { opts, command };
}

export class Failure extends Error {}

/** Throws a Failure unless cond holds. */
export function check(cond, message) {
  if (!cond) throw new Failure(message);
}

/**
 * Runs main(); prints its summary object as one JSON line on stdout and
 * exits 0, or prints the error on stderr (and a failure line on stdout) and
 * exits 1. A hard timeout guards against a hung server.
 */
export function run(name, main, timeoutMs = 60000) {
  const timer = setTimeout(() => {
    process.stderr.write(`${name}: timed out after ${timeoutMs} ms\n`);
    process.stdout.write(JSON.stringify({ client: name, ok: false, error: 'timeout' }) + '\n');
    process.exit(2);
  }, timeoutMs);
  timer.unref();
  main().then(
    (summary) => {
      process.stdout.write(JSON.stringify({ ok: true, ...summary }) + '\n');
      process.exit(0);
    },
    (err) => {
      const msg = err instanceof Failure ? err.message : (err && err.stack) || String(err);
      process.stderr.write(`${name}: FAILED: ${msg}\n`);
      if (err && err.data !== undefined) process.stderr.write(`error data: ${JSON.stringify(err.data)}\n`);
      process.stdout.write(JSON.stringify({ client: name, ok: false, error: String(err && err.message || err) }) + '\n');
      process.exit(1);
    },
  );
}
