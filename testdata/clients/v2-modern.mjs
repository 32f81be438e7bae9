// v2-modern.mjs drives doris-mcp-server the way a 2026-07-28 Host does, with
// the official TypeScript SDK v2 client (@modelcontextprotocol/client@2.4.0)
// pinned to protocol 2026-07-28 (no fallback to initialize):
//
//   1. connect: server/discover; the negotiated version must be 2026-07-28
//      and the era "modern";
//   2. tools/list, EVERY page: the first page, then each nextCursor until
//      none is returned; no tool may repeat; the SDK's own auto-aggregating
//      listTools() must return the same names in the same order;
//   3. one tools/call (a domain with {} in hierarchical mode gives the
//      discovery manifest; a flat child runs); optionally a second call of a
//      child through the domain with the manifest_version just received.
//
// Usage (the npm packages are found through CLIENTS_DIR, see lib.mjs):
//   node v2-modern.mjs --url http://127.0.0.1:PORT/mcp [options]
//   node v2-modern.mjs [options] -- /path/to/doris-mcp-server --transport stdio
// Options:
//   --expect-tools N     the total tool count must be N
//   --min-pages N        tools/list must take at least N pages
//   --call NAME          the tool to call (default: the first listed)
//   --args JSON          its arguments (default {})
//   --expect-mode M      structuredContent.mode must be M (manifest|result|error)
//   --allow-tool-error   accept isError:true from the call
//   --child NAME         then call NAME through the domain with manifest_version
//   --child-args JSON    the child's arguments (default {})
//   --bearer TOKEN       send Authorization: Bearer TOKEN on every request
//                        (the SDK's AuthProvider; HTTP only)
//
// Prints one JSON line on stdout; exits non-zero on any failure.

import { load, versionOf, parseArgs, check, run } from './lib.mjs';

// Keep stdout for the summary line only: the SDK logs with console.debug.
console.log = console.info = console.debug = (...a) => console.error(...a);

const PINNED = '2026-07-28';

run('v2-modern', async () => {
  const { opts, command } = parseArgs(process.argv.slice(2), ['allow-tool-error']);
  check(!!opts.url !== command.length > 0, 'give exactly one of --url URL or -- COMMAND ARGS...');
  const { Client, StreamableHTTPClientTransport } = await load('@modelcontextprotocol/client');

  const client = new Client({ name: 'doris-mcp-e2e-v2', version: '1.0.0' }, {
    versionNegotiation: { mode: { pin: PINNED } },
  });
  let transport;
  let serverStderr = '';
  if (opts.url) {
    // A bearer token through the SDK's own AuthProvider hook, as a Host
    // with an API key or a gateway-managed token does.
    const authProvider = opts.bearer ? { token: async () => opts.bearer } : undefined;
    transport = new StreamableHTTPClientTransport(new URL(opts.url), { authProvider });
  } else {
    const { StdioClientTransport } = await load('@modelcontextprotocol/client/stdio');
    transport = new StdioClientTransport({
      command: command[0],
      args: command.slice(1),
      env: { ...process.env },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (b) => { serverStderr = (serverStderr + b.toString()).slice(-8000); });
  }

  try {
    await client.connect(transport);
    const protocolVersion = client.getNegotiatedProtocolVersion();
    const era = client.getProtocolEra();
    check(protocolVersion === PINNED, `negotiated protocol version ${protocolVersion}, want ${PINNED}`);
    check(era === 'modern', `protocol era ${era}, want modern`);
    const server = client.getServerVersion();
    check(server && server.name === 'doris-mcp-server', `serverInfo ${JSON.stringify(server)}`);
    check(client.getServerCapabilities()?.tools, 'server/discover declares no tools capability');

    // Every page, by hand: the first without a cursor, then each nextCursor.
    const names = [];
    const pageSizes = [];
    let page = await client.request({ method: 'tools/list', params: {} });
    for (;;) {
      check(Array.isArray(page.tools), `page ${pageSizes.length + 1}: tools is not an array`);
      pageSizes.push(page.tools.length);
      for (const t of page.tools) {
        check(typeof t.name === 'string' && t.name !== '', `page ${pageSizes.length}: a tool without a name`);
        check(!names.includes(t.name), `tool ${t.name} listed twice (page ${pageSizes.length})`);
        check(t.inputSchema && t.inputSchema.type === 'object', `tool ${t.name}: inputSchema.type is not "object"`);
        names.push(t.name);
      }
      if (page.nextCursor === undefined) break;
      check(typeof page.nextCursor === 'string' && page.nextCursor !== '', `page ${pageSizes.length}: bad nextCursor ${JSON.stringify(page.nextCursor)}`);
      check(page.tools.length > 0, `page ${pageSizes.length}: empty page with a nextCursor`);
      check(pageSizes.length < 1000, 'more than 1000 pages');
      page = await client.listTools({ cursor: page.nextCursor });
    }
    if (opts['expect-tools'] !== undefined) {
      check(names.length === Number(opts['expect-tools']), `tools/list gave ${names.length} tools over ${pageSizes.length} pages, want ${opts['expect-tools']}`);
    }
    if (opts['min-pages'] !== undefined) {
      check(pageSizes.length >= Number(opts['min-pages']), `tools/list took ${pageSizes.length} pages, want at least ${opts['min-pages']}`);
    }
    // The SDK's own walk, as Hosts use it.
    const all = await client.listTools(undefined, { cacheMode: 'bypass' });
    const sdkNames = all.tools.map((t) => t.name);
    check(JSON.stringify(sdkNames) === JSON.stringify(names),
      `SDK listTools() aggregated ${sdkNames.length} tools, the page walk ${names.length}, or the order differs`);

    const name = opts.call || names[0];
    check(names.includes(name), `tool ${name} is not listed`);
    const args = JSON.parse(opts.args || '{}');
    const res = await client.callTool({ name, arguments: args });
    check(Array.isArray(res.content) && res.content.length > 0, `${name}: empty content`);
    const sc = res.structuredContent;
    const call = { name, ok: true, isError: !!res.isError, mode: sc && sc.mode };
    if (res.isError && !opts['allow-tool-error']) {
      throw new Error(`${name} returned isError: ${JSON.stringify(sc ?? res.content).slice(0, 600)}`);
    }
    if (opts['expect-mode']) {
      check(sc && sc.mode === opts['expect-mode'], `${name}: structuredContent.mode ${sc && sc.mode}, want ${opts['expect-mode']}: ${JSON.stringify(sc ?? res.content).slice(0, 600)}`);
    }
    if (sc && sc.mode === 'manifest') {
      call.children = Array.isArray(sc.children) ? sc.children.length : undefined;
      call.manifestVersion = sc.manifest_version;
    }

    let child;
    if (opts.child) {
      check(sc && sc.mode === 'manifest' && sc.manifest_version, `--child needs a manifest from ${name}`);
      const cres = await client.callTool({
        name,
        arguments: { child_tool: opts.child, arguments: JSON.parse(opts['child-args'] || '{}'), manifest_version: sc.manifest_version },
      });
      const csc = cres.structuredContent;
      check(!cres.isError, `${name}/${opts.child} returned isError: ${JSON.stringify(csc ?? cres.content).slice(0, 600)}`);
      check(csc && csc.mode === 'result' && csc.child_tool === opts.child, `${name}/${opts.child}: unexpected result ${JSON.stringify(csc).slice(0, 600)}`);
      child = { name: opts.child, ok: true, mode: csc.mode };
    }

    return {
      client: `@modelcontextprotocol/client@${versionOf('@modelcontextprotocol/client')}`,
      transport: opts.url ? 'http' : 'stdio',
      protocolVersion,
      era,
      server,
      tools: names.length,
      pages: pageSizes.length,
      pageSizes,
      call,
      ...(child && { child }),
    };
  } catch (err) {
    if (serverStderr) process.stderr.write(`--- server stderr (tail) ---\n${serverStderr}\n`);
    throw err;
  } finally {
    await client.close().catch(() => {});
  }
});
