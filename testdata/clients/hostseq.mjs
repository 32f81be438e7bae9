// hostseq.mjs runs the Host test sequence of the host integration guide
// with an official TypeScript SDK client, in the mode a Host uses it, over
// Streamable HTTP (--url) or over stdio to whatever command it is given
// (the server, `doris-mcp-server bridge URL`, or mcp-remote URL):
//
//   1. the server's identity (serverInfo), in the era the client chose;
//   2. tools/list: the 8 domains (every page);
//   3. discover doris_catalog, call list_tables (--database, default demo);
//   4. switch to doris_cluster, call get_runtime_capabilities;
//   5. an invalid child, twice: the same rejection;
//   6. write SQL: refused by the read-only guard;
//   7. an old manifest_version: CHILD_MANIFEST_STALE with a rediscover hint,
//      rediscovery, the call;
//   8. a table the account may not read (--forbidden, default
//      secret.salaries): refused, without the backend's text;
//   and, with --progress, a long query with a progress token: progress
//   notifications reach the Host before the result.
//
// It prints each step's answer (structuredContent without the fields that
// differ on every call: trace and request ids, durations, timestamps), so
// that a Go test can compare two proxies' answers.
//
// Usage (the npm packages are found through CLIENTS_DIR, see lib.mjs):
//   node hostseq.mjs [options] --url http://127.0.0.1:PORT/mcp
//   node hostseq.mjs [options] -- COMMAND ARGS...
// Options:
//   --sdk v1|v2        @modelcontextprotocol/sdk@1.32.2 (handshake era only) or
//                      @modelcontextprotocol/client@2.4.0 (default v2)
//   --era E            v2's version negotiation: legacy (the SDK's default: the
//                      handshake era), auto (server/discover, falling back to
//                      initialize) or pin (2026-07-28 only; the default)
//   --database D, --forbidden DB.TABLE, --progress
//
// Prints one JSON line on stdout; exits non-zero on any failure.

import { load, versionOf, parseArgs, check, run } from './lib.mjs';

console.log = console.info = console.debug = (...a) => console.error(...a);

const VOLATILE = new Set(['trace_id', 'request_id', 'duration_ms', 'generated_at', 'elapsed_ms', 'fetched_at', 'observed_at', 'meta', 'queried_at']);

function strip(v) {
  if (Array.isArray(v)) return v.map(strip);
  if (v && typeof v === 'object') {
    const out = {};
    for (const k of Object.keys(v).sort()) if (!VOLATILE.has(k)) out[k] = strip(v[k]);
    return out;
  }
  return v;
}

// connect returns the SDK's client and transport for the options.
async function connect(opts, command) {
  const sdk = opts.sdk || 'v2';
  check(sdk === 'v1' || sdk === 'v2', `unknown --sdk ${sdk}`);
  let Client, HTTP, Stdio;
  let options = {};
  if (sdk === 'v1') {
    ({ Client } = await load('@modelcontextprotocol/sdk/client/index.js'));
    ({ StreamableHTTPClientTransport: HTTP } = await load('@modelcontextprotocol/sdk/client/streamableHttp.js'));
    ({ StdioClientTransport: Stdio } = await load('@modelcontextprotocol/sdk/client/stdio.js'));
    options = { capabilities: {} };
  } else {
    ({ Client, StreamableHTTPClientTransport: HTTP } = await load('@modelcontextprotocol/client'));
    ({ StdioClientTransport: Stdio } = await load('@modelcontextprotocol/client/stdio'));
    const modes = { legacy: { mode: 'legacy' }, auto: { mode: 'auto' }, pin: { mode: { pin: '2026-07-28' } } };
    const era = opts.era || 'pin';
    check(era in modes, `unknown --era ${era}`);
    options = { versionNegotiation: modes[era] };
  }
  const client = new Client({ name: `doris-mcp-hostseq-${sdk}`, version: '1.0.0' }, options);
  const out = { sdk, client, stderr: '' };
  if (opts.url) {
    out.transport = new HTTP(new URL(opts.url));
  } else {
    out.transport = new Stdio({ command: command[0], args: command.slice(1), env: { ...process.env }, stderr: 'pipe' });
    out.transport.stderr?.on('data', (b) => { out.stderr = (out.stderr + b.toString()).slice(-6000); });
  }
  return out;
}

run('hostseq', async () => {
  const { opts, command } = parseArgs(process.argv.slice(2), ['progress']);
  check(!!opts.url !== command.length > 0, 'give exactly one of --url URL or -- COMMAND ARGS...');
  const database = opts.database || 'demo';
  const forbidden = opts.forbidden || 'secret.salaries';
  const { sdk, client, transport, ...io } = await connect(opts, command);

  // v1's callTool takes (params, resultSchema, options), v2's (params, options).
  const withOptions = (o) => (sdk === 'v1' ? [undefined, o] : [o]);
  const answers = {};
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, ...withOptions({ timeout: 60000 }));
    const sc = r.structuredContent;
    check(sc, `${name}: no structuredContent: ${JSON.stringify(r).slice(0, 300)}`);
    const text = r.content && r.content[0] && r.content[0].text;
    check(text && JSON.stringify(JSON.parse(text)) === JSON.stringify(sc), `${name}: text content and structuredContent differ`);
    return sc;
  };
  const discover = async (domain) => {
    const m = await call(domain, {});
    check(m.mode === 'manifest' && m.manifest_version, `${domain} {}: ${JSON.stringify(m).slice(0, 300)}`);
    return m;
  };
  try {
    try {
      await client.connect(transport);
    } catch (e) {
      throw new Error(`connect: ${e.message}; stderr: ${io.stderr.slice(-1500)}`);
    }
    const server = client.getServerVersion();
    check(server?.name?.startsWith('doris-mcp-server'), `1. serverInfo ${JSON.stringify(server)}`);
    const era = sdk === 'v2' ? client.getProtocolEra() : 'legacy';
    const protocolVersion = sdk === 'v2' ? client.getNegotiatedProtocolVersion() : transport.protocolVersion;
    answers['1 identity'] = { name: server.name };

    const names = [];
    let cursor;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    check(names.length === 8 && names.every((n) => n.startsWith('doris_')), `2. tools/list: ${names.join(', ')}`);
    answers['2 tools/list'] = names.sort();

    const cat = await discover('doris_catalog');
    const lt = await call('doris_catalog', { child_tool: 'list_tables', arguments: { database }, manifest_version: cat.manifest_version });
    check(lt.mode === 'result' && lt.data?.data?.items?.length > 0, `3. list_tables: ${JSON.stringify(lt).slice(0, 300)}`);
    answers['3 catalog'] = strip(lt);

    const cl = await discover('doris_cluster');
    const caps = await call('doris_cluster', { child_tool: 'get_runtime_capabilities', arguments: {}, manifest_version: cl.manifest_version });
    check(caps.mode === 'result', `4. get_runtime_capabilities: ${JSON.stringify(caps).slice(0, 300)}`);
    answers['4 cluster'] = strip(caps.data?.data?.versions);

    const a = await call('doris_catalog', { child_tool: 'list_tablez', arguments: {} });
    const b = await call('doris_catalog', { child_tool: 'list_tablez', arguments: {} });
    check(a.mode === 'error' && a.error.code === 'CHILD_TOOL_NOT_FOUND', `5. invalid child: ${JSON.stringify(a)}`);
    check(JSON.stringify(strip(a)) === JSON.stringify(strip(b)), '5. the rejection differs between two calls');
    answers['5 invalid child'] = strip(a);

    const w = await call('doris_query', { child_tool: 'execute_query', arguments: { sql: `INSERT INTO ${database}.orders SELECT * FROM ${database}.orders` } });
    check(w.error?.code === 'CHILD_ARGUMENTS_INVALID' && w.error?.details?.reason_code === 'QUERY_READ_ONLY_VIOLATION', `6. write SQL: ${JSON.stringify(w).slice(0, 300)}`);
    answers['6 read-only guard'] = strip(w);

    const stale = await call('doris_catalog', { child_tool: 'list_databases', arguments: {}, manifest_version: cat.manifest_version + '-old' });
    check(stale.error?.code === 'CHILD_MANIFEST_STALE' && stale.error.details.rediscover === true, `7. stale: ${JSON.stringify(stale).slice(0, 300)}`);
    const fresh = await discover('doris_catalog');
    const again = await call('doris_catalog', { child_tool: 'list_databases', arguments: {}, manifest_version: fresh.manifest_version });
    check(again.mode === 'result', `7. after rediscovery: ${JSON.stringify(again).slice(0, 300)}`);
    answers['7 stale manifest'] = strip(stale);

    const p = await call('doris_query', { child_tool: 'execute_query', arguments: { sql: `SELECT * FROM ${forbidden}` } });
    check(p.error?.code === 'CHILD_EXECUTION_FAILED' && p.error?.details?.reason_code === 'QUERY_PERMISSION_DENIED', `8. permission denied: ${JSON.stringify(p).slice(0, 300)}`);
    check(!JSON.stringify(p).includes('command denied to user'), `8. the backend's error text reached the Host: ${JSON.stringify(p)}`);
    answers['8 permission denied'] = strip(p);

    let progress;
    if (opts.progress) {
      progress = 0;
      const r = await client.callTool({ name: 'doris_query', arguments: { child_tool: 'execute_query', arguments: {
        sql: `SELECT SUM(a.seq * b.seq) AS s FROM ${database}.seq_1_to_100000 a, ${database}.seq_1_to_100000 b`, timeout_ms: 3000 } } },
      ...withOptions({ timeout: 60000, onprogress: () => { progress++; } }));
      check(r.structuredContent, 'progress call: no result');
      check(progress > 0, 'no progress notification reached the Host during a 3 s query');
    }
    const pkg = sdk === 'v1' ? '@modelcontextprotocol/sdk' : '@modelcontextprotocol/client';
    return { client: `${pkg}@${versionOf(pkg)}`, sdk, era, protocolVersion, server, steps: 8, progress, answers };
  } finally {
    await client.close().catch(() => {});
  }
}, 150000);
