// HTTP Digest pieces: RFC 2617's worked example, header parsing as libcurl writes it, and this server's nonces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { checkNonce, digestChallenge, expectedResponse, makeNonce, parseDigestParams, NONCE_LIFETIME_MS } from '../../src/http/middleware/digest-auth.js';

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

test('the response of RFC 2617 section 3.5 (qop=auth) comes out as the RFC gives it', () => {
  const header =
    'username="Mufasa", realm="testrealm@host.com", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", uri="/dir/index.html", ' +
    'qop=auth, nc=00000001, cnonce="0a4f113b", response="6629fae49393a05397450978507c4ef1", opaque="5ccc069c403ebaf9f0171e9517f40e41"';
  const parsed = parseDigestParams(header);
  assert.ok(!('problem' in parsed));
  assert.equal(parsed.uri, '/dir/index.html');
  assert.equal(parsed.nc, '00000001');
  const ha1 = md5('Mufasa:testrealm@host.com:Circle Of Life');
  assert.equal(expectedResponse(ha1, parsed, 'GET'), '6629fae49393a05397450978507c4ef1');
  assert.notEqual(expectedResponse(ha1, parsed, 'PUT'), '6629fae49393a05397450978507c4ef1', 'the method is part of the response');
});

test('headers that are not Digest params are refused with the reason', () => {
  assert.deepEqual(parseDigestParams('username="a", realm="r", nonce="n", uri="/"'), { problem: 'the Digest credentials have no response' });
  assert.deepEqual(parseDigestParams('garbage'), { problem: 'the Digest credentials are not a list of name=value pairs' });
  const quoted = parseDigestParams('username="a\\"b", realm="r", nonce="n", uri="/x?y=1,2", response="AB"');
  assert.ok(!('problem' in quoted));
  assert.equal(quoted.username, 'a"b');
  assert.equal(quoted.uri, '/x?y=1,2');
  assert.equal(quoted.response, 'ab', 'hex compared in lower case');
});

test('a nonce is good for five minutes on this process only; an old one is stale, a made-up one forged', () => {
  const key = Buffer.alloc(32, 7);
  const t0 = 1_800_000_000_000;
  const nonce = makeNonce(key, t0);
  assert.equal(checkNonce(key, nonce, t0 + 1000), 'ok');
  assert.equal(checkNonce(key, nonce, t0 + NONCE_LIFETIME_MS + 1), 'stale');
  assert.equal(checkNonce(Buffer.alloc(32, 8), nonce, t0), 'forged', 'another process (or node) did not make it');
  assert.equal(checkNonce(key, `${nonce.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAA`, t0), 'forged');
  assert.equal(checkNonce(key, 'nonsense', t0), 'forged');
  assert.match(digestChallenge(nonce, true), /^Digest realm="printfarm", qop="auth", algorithm=MD5, nonce="[^"]+", stale=true$/);
});
