// v2-hostseq.mjs is a desktop Host that can only start a local process:
// the official TypeScript SDK v2 client (@modelcontextprotocol/client)
// over stdio, running the Host test sequence of the host integration guide
// through whatever command it is given (doris-mcp-server bridge URL, or
// mcp-remote URL):
//
//   1. the server's identity (serverInfo);
//   2. tools/list: the 8 domains;
//   3. discover doris_catalog, call list_tables on demo;
//   4. switch to doris_cluster, call get_runtime_capabilities;
//   5. an invalid child, twice: the same rejection;
//   6. write SQL: refused by the read-only guard;
//   7. an old manifest_version: CHILD_MANIFEST_STALE, rediscovery, the call;
//   8. secret.salaries, which the account may not read: refused;
//   and, with --progress, a long query with a progress token: progress
//   notifications reach the Host before the result.
//
// It prints each step's answer (structuredContent without the fields that
// differ on every call: trace and request ids, durations, timestamps) so
// that the Go test can compare two proxies' answers.
//
// Usage: node v2-hostseq.mjs [--era pin|legacy|auto] [--progress] -- COMMAND ARGS...
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

run('v2-hostseq', async () => {
  const { opts, command } = parseArgs(process.argv.slice(2), ['progress']);
  check(command.length > 0, 'give -- COMMAND ARGS...');
  const era = opts.era || 'pin';
  const { Client } = await load('@modelcontextprotocol/client');
  const { StdioClientTransport } = await load('@modelcontextprotocol/client/stdio');
  const versionNegotiation = era === 'auto' ? { mode: 'auto' } : era === 'legacy' ? { mode: 'legacy' } : { mode: { pin: '2026-07-28' } };
  const client = new Client({ name: 'doris-mcp-hostseq', version: '1.0.0' }, { versionNegotiation });
  let stderr = '';
  const transport = new StdioClientTransport({ command: command[0], args: command.slice(1), env: { ...process.env }, stderr: 'pipe' });
  transport.stderr?.on('data', (b) => { stderr = (stderr + b.toString()).slice(-6000); });
  const answers = {};
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, { timeout: 60000 });
    check(r.structuredContent, `${name}: no structuredContent: ${JSON.stringify(r).slice(0, 300)}`);
    return r.structuredContent;
  };
  const discover = async (domain) => {
    const m = await call(domain, {});
    check(m.mode === 'manifest', `${domain} {}: ${JSON.stringify(m).slice(0, 300)}`);
    return m;
  };
  try {
    try {
      await client.connect(transport);
    } catch (e) {
      throw new Error(`connect: ${e.message}; proxy stderr: ${stderr.slice(-1500)}`);
    }
    const server = client.getServerVersion();
    check(server?.name?.startsWith('doris-mcp-server'), `1. serverInfo ${JSON.stringify(server)}`);
    answers['1 identity'] = { name: server.name };

    const tools = await client.listTools(undefined, { cacheMode: 'bypass' });
    check(tools.tools.length === 8, `2. ${tools.tools.length} tools`);
    answers['2 tools/list'] = tools.tools.map((t) => t.name).sort();

    const cat = await discover('doris_catalog');
    const lt = await call('doris_catalog', { child_tool: 'list_tables', arguments: { database: 'demo' }, manifest_version: cat.manifest_version });
    check(lt.mode === 'result' && JSON.stringify(lt.data).includes('orders'), `3. list_tables: ${JSON.stringify(lt).slice(0, 300)}`);
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

    const w = await call('doris_query', { child_tool: 'execute_query', arguments: { sql: 'INSERT INTO demo.orders SELECT * FROM demo.orders' } });
    check(w.error?.details?.reason_code === 'QUERY_READ_ONLY_VIOLATION', `6. write SQL: ${JSON.stringify(w).slice(0, 300)}`);
    answers['6 read-only guard'] = strip(w);

    const stale = await call('doris_catalog', { child_tool: 'list_databases', arguments: {}, manifest_version: cat.manifest_version + '-old' });
    check(stale.error?.code === 'CHILD_MANIFEST_STALE' && stale.error.details.rediscover === true, `7. stale: ${JSON.stringify(stale).slice(0, 300)}`);
    const fresh = await discover('doris_catalog');
    const again = await call('doris_catalog', { child_tool: 'list_databases', arguments: {}, manifest_version: fresh.manifest_version });
    check(again.mode === 'result', `7. after rediscovery: ${JSON.stringify(again).slice(0, 300)}`);
    answers['7 stale manifest'] = strip(stale);

    const p = await call('doris_query', { child_tool: 'execute_query', arguments: { sql: 'SELECT * FROM secret.salaries' } });
    check(p.error?.details?.reason_code === 'QUERY_PERMISSION_DENIED', `8. permission denied: ${JSON.stringify(p).slice(0, 300)}`);
    answers['8 permission denied'] = strip(p);

    let progress;
    if (opts.progress) {
      progress = 0;
      const r = await client.callTool({ name: 'doris_query', arguments: { child_tool: 'execute_query', arguments: {
        sql: 'SELECT SUM(a.seq * b.seq) AS s FROM demo.seq_1_to_100000 a, demo.seq_1_to_100000 b', timeout_ms: 3000 } } },
      { timeout: 60000, onprogress: () => { progress++; } });
      check(r.structuredContent, 'progress call: no result');
      check(progress > 0, 'no progress notification reached the Host during a 3 s query');
    }
    return {
      client: `@modelcontextprotocol/client@${versionOf('@modelcontextprotocol/client')}`,
      era: client.getProtocolEra(), protocolVersion: client.getNegotiatedProtocolVersion(), server, progress, answers,
    };
  } finally {
    await client.close().catch(() => {});
  }
}, 150000);
