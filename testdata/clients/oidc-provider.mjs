// oidc-provider.mjs runs a real OAuth 2.1 authorization server for the
// external-OAuth end-to-end test: oidc-provider (pinned in .ci/npm) on
// 127.0.0.1:PORT, with resource indicators (RFC 8707), client credentials,
// introspection (RFC 7662) and revocation (RFC 7009). It signs JWT access
// tokens (RFC 9068) with an ES256 key generated at start.
//
//   node oidc-provider.mjs --port PORT --resource URL --scopes "a b c"
//
// Clients (client_secret_basic, secret = "<client_id>-secret-0123456789"):
//   jwt-host     client credentials; its access tokens are JWTs
//   opaque-host  client credentials; its access tokens are opaque
//   short-host   client credentials; opaque tokens living 60 seconds
//   doris-mcp    the resource server: only introspects
// Tokens may be requested for --resource and for https://other.example/mcp.
//
// The provider's clock is the test's: POST /_test/clock?advance=SECONDS
// moves it (Date.now, which oidc-provider and its memory adapter read) by
// SECONDS, negative to move it back, so that a test sees tokens expire
// without waiting.
//
// Prints {"ready": "<issuer>"} on stdout when listening; runs until killed.

import http from 'node:http';
import { load, parseArgs } from './lib.mjs';

const { opts } = parseArgs(process.argv.slice(2));
const realNow = Date.now;
let clockOffsetMs = 0;
Date.now = () => realNow() + clockOffsetMs;
const { default: Provider, errors } = await load('oidc-provider');
const jose = await load('jose');

const issuer = `http://127.0.0.1:${opts.port}`;
const scopes = opts.scopes.split(' ');
const resources = new Set([opts.resource, 'https://other.example/mcp']);
const { privateKey } = await jose.generateKeyPair('ES256', { extractable: true });
const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'op-es256', alg: 'ES256', use: 'sig' };
const client = (id, extra = {}) => ({
  client_id: id, client_secret: `${id}-secret-0123456789`, grant_types: ['client_credentials'],
  response_types: [], redirect_uris: [], token_endpoint_auth_method: 'client_secret_basic', scope: scopes.join(' '),
  id_token_signed_response_alg: 'ES256', ...extra,
});

const provider = new Provider(issuer, {
  jwks: { keys: [jwk] },
  clients: [client('jwt-host'), client('opaque-host'), client('short-host'), client('doris-mcp', { grant_types: [], scope: undefined })],
  scopes,
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => opts.resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, indicator, c) => {
        if (!resources.has(indicator)) throw new errors.InvalidTarget();
        return {
          scope: scopes.join(' '),
          audience: indicator,
          accessTokenTTL: c.clientId === 'short-host' ? 60 : 300,
          accessTokenFormat: c.clientId === 'jwt-host' ? 'jwt' : 'opaque',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
});
provider.proxy = false;
const callback = provider.callback();
const server = http.createServer((req, res) => {
  const u = new URL(req.url, issuer);
  if (u.pathname !== '/_test/clock') return callback(req, res);
  const advance = Number(u.searchParams.get('advance'));
  if (req.method !== 'POST' || !Number.isFinite(advance)) {
    res.writeHead(400).end();
    return;
  }
  clockOffsetMs += advance * 1000;
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ now: Date.now() }));
});
server.listen(Number(opts.port), '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ ready: issuer }) + '\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
