// jose-interop.mjs cross-checks doris-mcp-server's JOSE handling with an
// independent implementation, the jose npm package (pinned in .ci/npm).
//
//   node jose-interop.mjs mint --iss I --aud A
//     generates an RS256, an ES256 and an EdDSA key pair and an HS256
//     secret, and prints one JSON line: {"jwks": <public JWKS>, "secret":
//     "<HS256 secret>", "tokens": {"RS256": "...", ...}, "expired": {...}},
//     each token with iss I, aud A, sub "jose-<alg>", permissions
//     ["tool:list"], expiring in 5 minutes ("expired": 5 minutes ago).
//
//   node jose-interop.mjs verify --iss I --aud A < input.json
//     reads {"jwks": {...}, "secret": "...", "tokens": {"alg": "..."}} and
//     verifies every token with jose.jwtVerify (the JWKS for asymmetric
//     algorithms, the secret for HS256, an explicit algorithm list, iss
//     and aud); prints {"verified": {"alg": "<sub>"}}.
//
// Exits non-zero on any failure.

import { load, parseArgs, check, run } from './lib.mjs';

run('jose-interop', async () => {
  const mode = process.argv[2];
  const { opts } = parseArgs(process.argv.slice(3));
  const jose = await load('jose');
  if (mode === 'mint') {
    const jwks = { keys: [] };
    const tokens = {};
    const expired = {};
    const now = Math.floor(Date.now() / 1000);
    const mint = (alg, kid, key, expOffset) => new jose.SignJWT({ permissions: ['tool:list'] })
      .setProtectedHeader(kid ? { alg, kid, typ: 'JWT' } : { alg, typ: 'JWT' })
      .setIssuer(opts.iss).setAudience(opts.aud).setSubject(`jose-${alg}`)
      .setIssuedAt(now - 600).setExpirationTime(now + expOffset)
      .sign(key);
    for (const alg of ['RS256', 'ES256', 'EdDSA']) {
      const { publicKey, privateKey } = await jose.generateKeyPair(alg, { extractable: true, crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
      const jwk = await jose.exportJWK(publicKey);
      jwk.kid = `jose-${alg.toLowerCase()}`;
      jwk.alg = alg;
      jwk.use = 'sig';
      jwks.keys.push(jwk);
      tokens[alg] = await mint(alg, jwk.kid, privateKey, 300);
      expired[alg] = await mint(alg, jwk.kid, privateKey, -300);
    }
    const secret = jose.base64url.encode(crypto.getRandomValues(new Uint8Array(48)));
    const hmacKey = new TextEncoder().encode(secret);
    tokens.HS256 = await mint('HS256', '', hmacKey, 300);
    expired.HS256 = await mint('HS256', '', hmacKey, -300);
    return { jwks, secret, tokens, expired };
  }
  check(mode === 'verify', `unknown mode ${mode}`);
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const { jwks, secret, tokens } = JSON.parse(input);
  const keySet = jose.createLocalJWKSet(jwks);
  const verified = {};
  for (const [alg, token] of Object.entries(tokens)) {
    const key = alg === 'HS256' ? new TextEncoder().encode(secret) : keySet;
    const { payload, protectedHeader } = await jose.jwtVerify(token, key, { algorithms: [alg], issuer: opts.iss, audience: opts.aud });
    check(protectedHeader.alg === alg, `${alg}: header alg ${protectedHeader.alg}`);
    verified[alg] = payload.sub;
  }
  return { verified };
});
