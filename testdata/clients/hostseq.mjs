// hostseq.mjs runs the Host test sequence of the integration guide with an
// official TypeScript SDK client, in the mode a Host uses it, against one
// endpoint (by default /mcp, which serves both protocol eras):
//
//   1. connect, and the server identifies itself (serverInfo);
//   2. tools/list returns the eight domains;
//   3. discover doris_catalog and call list_tables (database --database);
//   4. switch to doris_cluster in the same conversation and call
//      get_runtime_capabilities;
//   5. an invalid child name is rejected, the same way twice;
//   6. write SQL is refused by the read-only guard;
//   7. a stale manifest_version is refused with a rediscover hint, and the
//      call works after rediscovery;
//   8. an object the account may not read (--forbidden db.table) is refused
//      for that identity, without the backend's text.
//
// Usage (the npm packages are found through CLIENTS_DIR, see lib.mjs):
//   node hostseq.mjs --sdk v1|v2 [--negotiation default|auto|pin] --url URL
//        --database demo --forbidden secret.salaries
//   --sdk v1            @modelcontextprotocol/sdk@1.32.2 (handshake era only)
//   --sdk v2            @modelcontextprotocol/client@2.4.0; --negotiation
//                       default (the SDK's own default, the handshake era),
//                       auto (server/discover, falling back to initialize)
//                       or pin (2026-07-28 only)
//
// Prints one JSON line on stdout; exits non-zero on any failure.

import { load, versionOf, parseArgs, check, run } from './lib.mjs';

console.log = console.info = console.debug = (...a) => console.error(...a);

run('hostseq', async () => {
  const { opts } = parseArgs(process.argv.slice(2));
  check(opts.url, '--url is required');
  const sdk = opts.sdk || 'v2';
  const negotiation = opts.negotiation || 'default';
  const database = opts.database || 'demo';

  let client, transport, pkg, wantEra;
  if (sdk === 'v1') {
    pkg = '@modelcontextprotocol/sdk';
    const { Client } = await load('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await load('@modelcontextprotocol/sdk/client/streamableHttp.js');
    client = new Client({ name: 'doris-mcp-hostseq-v1', version: '1.0.0' }, { capabilities: {} });
    transport = new StreamableHTTPClientTransport(new URL(opts.url));
    wantEra = 'legacy';
  } else {
    pkg = '@modelcontextprotocol/client';
    const { Client, StreamableHTTPClientTransport } = await load('@modelcontextprotocol/client');
    const modes = { default: undefined, auto: { mode: 'auto' }, pin: { mode: { pin: '2026-07-28' } } };
    check(negotiation in modes, `unknown --negotiation ${negotiation}`);
    const options = modes[negotiation] ? { versionNegotiation: modes[negotiation] } : {};
    client = new Client({ name: 'doris-mcp-hostseq-v2', version: '1.0.0' }, options);
    transport = new StreamableHTTPClientTransport(new URL(opts.url));
    wantEra = negotiation === 'default' ? 'legacy' : 'modern';
  }

  const steps = [];
  const step = (n, what, evidence) => steps.push({ step: n, what, evidence });
  const structured = (res, name) => {
    const sc = res.structuredContent;
    check(sc && typeof sc === 'object', `${name}: no structuredContent: ${JSON.stringify(res).slice(0, 400)}`);
    const text = res.content && res.content[0] && res.content[0].text;
    check(text && JSON.stringify(JSON.parse(text)) === JSON.stringify(sc), `${name}: text content and structuredContent differ`);
    return sc;
  };
  const tool = async (name, args) => structured(await client.callTool({ name, arguments: args }), name);
  const refused = (env, code, reason, what) => {
    check(env.mode === 'error', `${what}: want an error envelope, got ${JSON.stringify(env).slice(0, 400)}`);
    check(env.error.code === code, `${what}: error ${env.error.code}, want ${code}`);
    if (reason) check(env.error.details && env.error.details.reason_code === reason, `${what}: reason ${JSON.stringify(env.error.details)}, want ${reason}`);
  };

  try {
    await client.connect(transport);
    // 1. Identity, in the era the client chose.
    const server = client.getServerVersion();
    check(server && server.name === 'doris-mcp-server', `serverInfo ${JSON.stringify(server)}`);
    const era = sdk === 'v2' ? client.getProtocolEra() : 'legacy';
    check(era === wantEra, `protocol era ${era}, want ${wantEra}`);
    const version = sdk === 'v2' ? client.getNegotiatedProtocolVersion() : transport.protocolVersion;
    step(1, 'server identity', `${server.name} ${server.version}, era ${era}${version ? ', ' + version : ''}`);

    // 2. Eight domains (every page).
    const names = [];
    let cursor;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    check(names.length === 8 && names.every((n) => n.startsWith('doris_')), `tools/list: ${names.join(', ')}`);
    step(2, 'tools/list', names.join(' '));

    // 3. Catalog discovery, then list_tables.
    const cat = await tool('doris_catalog', {});
    check(cat.mode === 'manifest' && cat.manifest_version, `discover doris_catalog: ${JSON.stringify(cat).slice(0, 400)}`);
    const tables = await tool('doris_catalog', { child_tool: 'list_tables', arguments: { database }, manifest_version: cat.manifest_version });
    check(tables.mode === 'result' && Array.isArray(tables.data.data.items) && tables.data.data.items.length > 0, `list_tables: ${JSON.stringify(tables).slice(0, 400)}`);
    step(3, 'doris_catalog list_tables', `${tables.data.data.items.length} tables in ${database}`);

    // 4. Switch to the cluster domain in the same conversation.
    const cl = await tool('doris_cluster', {});
    const caps = await tool('doris_cluster', { child_tool: 'get_runtime_capabilities', arguments: {}, manifest_version: cl.manifest_version });
    check(caps.mode === 'result', `get_runtime_capabilities: ${JSON.stringify(caps).slice(0, 400)}`);
    step(4, 'doris_cluster get_runtime_capabilities', `master_fe ${JSON.stringify(caps.data.data && caps.data.data.versions && caps.data.data.versions.master_fe)}`);

    // 5. An invalid child name, deterministically.
    const bad = [];
    for (let i = 0; i < 2; i++) {
      const env = await tool('doris_catalog', { child_tool: 'list_tablez', arguments: {} });
      refused(env, 'CHILD_TOOL_NOT_FOUND', undefined, 'invalid child');
      delete env.error.trace_id; // each call's own, by design
      bad.push(JSON.stringify(env.error));
    }
    check(bad[0] === bad[1], `invalid child answered differently: ${bad[0]} / ${bad[1]}`);
    step(5, 'invalid child rejected', 'CHILD_TOOL_NOT_FOUND, twice the same');

    // 6. Write SQL.
    const qd = await tool('doris_query', {});
    const w = await tool('doris_query', { child_tool: 'execute_query', manifest_version: qd.manifest_version,
      arguments: { sql: `INSERT INTO ${database}.orders SELECT * FROM ${database}.orders` } });
    refused(w, 'CHILD_ARGUMENTS_INVALID', 'QUERY_READ_ONLY_VIOLATION', 'write SQL');
    step(6, 'write SQL refused', w.error.details.reason_code);

    // 7. A stale manifest, then rediscovery.
    const stale = await tool('doris_catalog', { child_tool: 'list_databases', arguments: {}, manifest_version: 'mv-stale-0000' });
    refused(stale, 'CHILD_MANIFEST_STALE', undefined, 'stale manifest');
    check(stale.error.details && stale.error.details.rediscover === true, `stale manifest without a rediscover hint: ${JSON.stringify(stale.error)}`);
    const again = await tool('doris_catalog', {});
    const dbs = await tool('doris_catalog', { child_tool: 'list_databases', arguments: {}, manifest_version: again.manifest_version });
    check(dbs.mode === 'result', `after rediscovery: ${JSON.stringify(dbs).slice(0, 400)}`);
    step(7, 'stale manifest rediscovered', 'CHILD_MANIFEST_STALE with rediscover, then a result');

    // 8. An object the account may not read.
    if (opts.forbidden) {
      const p = await tool('doris_query', { child_tool: 'execute_query', manifest_version: qd.manifest_version,
        arguments: { sql: `SELECT * FROM ${opts.forbidden}` } });
      refused(p, 'CHILD_EXECUTION_FAILED', 'QUERY_PERMISSION_DENIED', 'permission-denied object');
      check(!JSON.stringify(p).includes('command denied to user'), `the backend's error text reached the Host: ${JSON.stringify(p)}`);
      step(8, 'permission-denied object reported', p.error.details.reason_code);
    }

    return { client: `${pkg}@${versionOf(pkg)}`, sdk, negotiation: sdk === 'v2' ? negotiation : 'default', era, steps: steps.length, evidence: steps };
  } finally {
    await client.close().catch(() => {});
  }
}, 90000);
