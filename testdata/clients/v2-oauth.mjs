// v2-oauth.mjs drives Doris-backed OAuth with the official TypeScript SDK v2
// client (@modelcontextprotocol/client@2.4.0), pinned to 2026-07-28, the
// way a Host does, with this script standing in for the person's browser:
//
//   1. connect: the server answers 401; the SDK discovers the protected
//      resource metadata (RFC 9728) and the authorization server metadata
//      (RFC 8414), registers a client (RFC 7591), starts the code flow with
//      PKCE S256 and "redirects" the person;
//   2. the person: follows the redirect to the sign-in page, first types a
//      wrong password (the page must say so), then the right one, and is
//      redirected back with code, state and iss;
//   3. the SDK finishes (iss checked, code exchanged with its verifier) and
//      connects; tools/list and a domain discovery run with the token;
//   4. refresh: the stored access token is spoiled, so the next call gets
//      401; the SDK refreshes (the refresh token must rotate) and retries.
//
// Usage: node v2-oauth.mjs --url http://127.0.0.1:PORT/mcp --user U --password P
//        [--expect-tools N] [--call TOOL]
// Prints one JSON line on stdout; exits non-zero on any failure.

import { load, versionOf, parseArgs, check, run } from './lib.mjs';

console.log = console.info = console.debug = (...a) => console.error(...a);

const PINNED = '2026-07-28';

// signIn plays the person's browser: follow the authorization redirect to
// the sign-in page, submit the form, return the callback URL.
async function signIn(authorizationUrl, user, password, wrongPassword) {
  const cookies = new Map();
  const keep = (res) => {
    for (const c of res.headers.getSetCookie?.() ?? []) {
      const [pair] = c.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  };
  const cookieHeader = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  let res = await fetch(authorizationUrl, { redirect: 'manual' });
  check(res.status === 302, `authorize answered ${res.status}: ${await res.text()}`);
  const loginUrl = new URL(res.headers.get('location'), authorizationUrl);
  check(loginUrl.pathname === '/doris-login', `authorize redirected to ${loginUrl}`);
  res = await fetch(loginUrl, { redirect: 'manual' });
  keep(res);
  let page = await res.text();
  check(res.status === 200, `sign-in page answered ${res.status}`);
  const post = async (pw) => {
    const txn = /name="txn_id" value="([^"]+)"/.exec(page)?.[1];
    const csrf = /name="login_csrf" value="([^"]+)"/.exec(page)?.[1];
    check(txn && csrf, 'the sign-in page has no form');
    const body = new URLSearchParams({ txn_id: txn, login_csrf: csrf, username: user, password: pw });
    const r = await fetch(new URL('/doris-login', loginUrl), {
      method: 'POST', redirect: 'manual', body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(), origin: loginUrl.origin },
    });
    keep(r);
    return r;
  };
  res = await post(wrongPassword);
  page = await res.text();
  check(res.status === 401 && /did not accept/.test(page), `a wrong password answered ${res.status}`);
  res = await post(password);
  check(res.status === 303, `the right password answered ${res.status}: ${await res.text()}`);
  return new URL(res.headers.get('location'));
}

run('v2-oauth', async () => {
  const { opts } = parseArgs(process.argv.slice(2));
  check(opts.url && opts.user && opts.password, 'give --url, --user and --password');
  const { Client, StreamableHTTPClientTransport, UnauthorizedError } = await load('@modelcontextprotocol/client');

  const redirectUrl = 'http://127.0.0.1:1/oauth/callback';
  const store = {};
  const events = [];
  let redirectedTo;
  const provider = {
    get redirectUrl() { return redirectUrl; },
    get clientMetadata() {
      return {
        client_name: 'doris-mcp e2e (TypeScript SDK)', redirect_uris: [redirectUrl],
        grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
      };
    },
    state() { return 'ts-state-7'; },
    clientInformation() { return store.client; },
    saveClientInformation(ci) { store.client = ci; events.push('registered'); },
    tokens() { return store.tokens; },
    saveTokens(t) { store.tokens = t; events.push('tokens'); },
    redirectToAuthorization(u) { redirectedTo = u; events.push('redirect'); },
    saveCodeVerifier(v) { store.verifier = v; },
    codeVerifier() { return store.verifier; },
    saveDiscoveryState(s) { store.discovery = s; },
    discoveryState() { return store.discovery; },
  };
  const newClient = () => new Client({ name: 'doris-mcp-e2e-oauth', version: '1.0.0' }, { versionNegotiation: { mode: { pin: PINNED } } });

  // 1. Unauthorized: discovery, registration, the redirect.
  let first = newClient();
  let transport = new StreamableHTTPClientTransport(new URL(opts.url), { authProvider: provider });
  let unauthorized = false;
  try {
    await first.connect(transport);
  } catch (e) {
    unauthorized = e instanceof UnauthorizedError || /nauthorized/.test(String(e));
    if (!unauthorized) throw e;
  }
  check(unauthorized && redirectedTo, 'connecting without a token did not start the authorization flow');
  check(store.client?.client_id?.startsWith('dcr_'), `registration gave client_id ${store.client?.client_id}`);
  check(redirectedTo.searchParams.get('code_challenge_method') === 'S256', 'the SDK did not use PKCE S256');
  check(redirectedTo.searchParams.get('resource') === opts.url, `resource ${redirectedTo.searchParams.get('resource')}, want ${opts.url}`);
  const scope = redirectedTo.searchParams.get('scope');

  // 2. The person signs in.
  const callback = await signIn(redirectedTo, opts.user, opts.password, opts.password + '-wrong');
  check(callback.searchParams.get('state') === 'ts-state-7', `state came back as ${callback.searchParams.get('state')}`);
  check(callback.searchParams.get('iss'), 'no iss in the authorization response');

  // 3. Finish and connect.
  await transport.finishAuth(callback.searchParams);
  check(store.tokens?.access_token?.startsWith('doa_') && store.tokens?.refresh_token, 'no tokens after finishAuth');
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(opts.url), { authProvider: provider }));
  check(client.getNegotiatedProtocolVersion() === PINNED, `negotiated ${client.getNegotiatedProtocolVersion()}`);
  const tools = await client.listTools(undefined, { cacheMode: 'bypass' });
  if (opts['expect-tools']) check(tools.tools.length === Number(opts['expect-tools']), `tools/list gave ${tools.tools.length} tools`);
  const name = opts.call || 'doris_catalog';
  const res = await client.callTool({ name, arguments: {} });
  check(!res.isError && res.structuredContent?.mode === 'manifest', `${name}: ${JSON.stringify(res.structuredContent).slice(0, 400)}`);
  const children = res.structuredContent.children.map((c) => c.name);

  // 4. A spoiled access token: 401, refresh (rotating), retry.
  const before = { ...store.tokens };
  store.tokens = { ...store.tokens, access_token: 'doa_spoiled' };
  const again = await client.callTool({ name, arguments: {} });
  check(!again.isError && again.structuredContent?.mode === 'manifest', 'the call after a refresh failed');
  check(store.tokens.access_token !== 'doa_spoiled' && store.tokens.access_token !== before.access_token, 'the access token was not refreshed');
  check(store.tokens.refresh_token && store.tokens.refresh_token !== before.refresh_token, 'the refresh token did not rotate');
  await client.close();

  return {
    client: `@modelcontextprotocol/client@${versionOf('@modelcontextprotocol/client')}`,
    events, scope, tools: tools.tools.length, children, refreshed: true,
  };
}, 90000);
