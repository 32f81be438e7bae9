// v1-legacy.mjs drives doris-mcp-server the way a handshake-era Host does,
// with the official TypeScript SDK v1 client (@modelcontextprotocol/sdk@1.32.2,
// whose newest protocol is 2025-11-25):
//
//   1. connect: initialize + notifications/initialized (Streamable HTTP
//      against /mcp/legacy, or stdio, where initialize selects the legacy
//      era for the connection);
//   2. tools/list, every page (following nextCursor), no repeats;
//   3. one tools/call.
//
// Usage (the npm packages are found through CLIENTS_DIR, see lib.mjs):
//   node v1-legacy.mjs --url http://127.0.0.1:PORT/mcp/legacy [options]
//   node v1-legacy.mjs [options] -- /path/to/doris-mcp-server --transport stdio
// Options: --expect-tools N, --min-pages N, --call NAME, --args JSON,
//   --expect-mode M, --allow-tool-error, --expect-version V (default 2025-11-25).
//
// Prints one JSON line on stdout; exits non-zero on any failure.

import { load, versionOf, parseArgs, check, run } from './lib.mjs';

console.log = console.info = console.debug = (...a) => console.error(...a);

run('v1-legacy', async () => {
  const { opts, command } = parseArgs(process.argv.slice(2), ['allow-tool-error']);
  check(!!opts.url !== command.length > 0, 'give exactly one of --url URL or -- COMMAND ARGS...');
  const wantVersion = opts['expect-version'] || '2025-11-25';
  const { Client } = await load('@modelcontextprotocol/sdk/client/index.js');

  const client = new Client({ name: 'doris-mcp-e2e-v1', version: '1.0.0' }, { capabilities: {} });
  let transport;
  let serverStderr = '';
  if (opts.url) {
    const { StreamableHTTPClientTransport } = await load('@modelcontextprotocol/sdk/client/streamableHttp.js');
    transport = new StreamableHTTPClientTransport(new URL(opts.url));
  } else {
    const { StdioClientTransport } = await load('@modelcontextprotocol/sdk/client/stdio.js');
    transport = new StdioClientTransport({
      command: command[0],
      args: command.slice(1),
      env: { ...process.env },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (b) => { serverStderr = (serverStderr + b.toString()).slice(-8000); });
  }
  // The SDK hands the negotiated version to the transport; record it.
  let protocolVersion;
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => { protocolVersion = v; setVersion?.(v); };

  try {
    await client.connect(transport);
    check(protocolVersion === wantVersion, `initialize negotiated ${protocolVersion}, want ${wantVersion}`);
    const server = client.getServerVersion();
    check(server && server.name === 'doris-mcp-server', `serverInfo ${JSON.stringify(server)}`);
    check(client.getServerCapabilities()?.tools, 'initialize declares no tools capability');

    const names = [];
    const pageSizes = [];
    let cursor;
    for (;;) {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      check(Array.isArray(page.tools), `page ${pageSizes.length + 1}: tools is not an array`);
      pageSizes.push(page.tools.length);
      for (const t of page.tools) {
        check(!names.includes(t.name), `tool ${t.name} listed twice (page ${pageSizes.length})`);
        names.push(t.name);
      }
      if (page.nextCursor === undefined) break;
      check(typeof page.nextCursor === 'string' && page.nextCursor !== '', `page ${pageSizes.length}: bad nextCursor`);
      check(page.tools.length > 0, `page ${pageSizes.length}: empty page with a nextCursor`);
      check(pageSizes.length < 1000, 'more than 1000 pages');
      cursor = page.nextCursor;
    }
    if (opts['expect-tools'] !== undefined) {
      check(names.length === Number(opts['expect-tools']), `tools/list gave ${names.length} tools over ${pageSizes.length} pages, want ${opts['expect-tools']}`);
    }
    if (opts['min-pages'] !== undefined) {
      check(pageSizes.length >= Number(opts['min-pages']), `tools/list took ${pageSizes.length} pages, want at least ${opts['min-pages']}`);
    }

    const name = opts.call || names[0];
    check(names.includes(name), `tool ${name} is not listed`);
    const res = await client.callTool({ name, arguments: JSON.parse(opts.args || '{}') });
    check(Array.isArray(res.content) && res.content.length > 0, `${name}: empty content`);
    const sc = res.structuredContent;
    if (res.isError && !opts['allow-tool-error']) {
      throw new Error(`${name} returned isError: ${JSON.stringify(sc ?? res.content).slice(0, 600)}`);
    }
    if (opts['expect-mode']) {
      check(sc && sc.mode === opts['expect-mode'], `${name}: structuredContent.mode ${sc && sc.mode}, want ${opts['expect-mode']}`);
    }
    return {
      client: `@modelcontextprotocol/sdk@${versionOf('@modelcontextprotocol/sdk')}`,
      transport: opts.url ? 'http' : 'stdio',
      protocolVersion,
      era: 'legacy',
      server,
      tools: names.length,
      pages: pageSizes.length,
      pageSizes,
      call: { name, ok: true, isError: !!res.isError, mode: sc && sc.mode },
    };
  } catch (err) {
    if (serverStderr) process.stderr.write(`--- server stderr (tail) ---\n${serverStderr}\n`);
    throw err;
  } finally {
    await client.close().catch(() => {});
  }
});
