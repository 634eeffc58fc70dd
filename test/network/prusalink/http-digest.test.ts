// Digest maths against the RFC examples, and challenge parsing of the forms printers send.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  digestAuthorization,
  digestResponse,
  parseDigestAuthorization,
  parseDigestChallenge,
  type DigestChallenge,
} from '../../../src/protocol/http-digest.js';

const RFC7616 = {
  realm: 'http-auth@example.org',
  nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
  opaque: 'FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS',
};
const RFC7616_INPUT = {
  username: 'Mufasa',
  password: 'Circle of Life',
  method: 'GET',
  uri: '/dir/index.html',
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
  nc: 1,
};

const cases: Array<{ name: string; challenge: DigestChallenge; input: typeof RFC7616_INPUT; response: string }> = [
  {
    name: 'RFC 7616 3.9.1, MD5, qop=auth',
    challenge: { ...RFC7616, algorithm: 'MD5', qop: 'auth', stale: false },
    input: RFC7616_INPUT,
    response: '8ca523f5e9506fed4657c9700eebdbec',
  },
  {
    name: 'RFC 7616 3.9.1, SHA-256, qop=auth',
    challenge: { ...RFC7616, algorithm: 'SHA-256', qop: 'auth', stale: false },
    input: RFC7616_INPUT,
    response: '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
  },
  {
    name: 'RFC 2617 3.5, MD5, qop=auth',
    challenge: {
      realm: 'testrealm@host.com',
      nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
      opaque: '5ccc069c403ebaf9f0171e9517f40e41',
      algorithm: 'MD5',
      qop: 'auth',
      stale: false,
    },
    input: { username: 'Mufasa', password: 'Circle Of Life', method: 'GET', uri: '/dir/index.html', cnonce: '0a4f113b', nc: 1 },
    response: '6629fae49393a05397450978507c4ef1',
  },
];

for (const c of cases) {
  test(`digest response: ${c.name}`, () => {
    assert.equal(digestResponse(c.challenge, c.input), c.response);
  });
}

const EXPECTED_NO_QOP = '562e59e89b8dbd33de1b4be1f231ff44';

test('without qop (RFC 2069, older printer firmware) the response is H(HA1:nonce:HA2)', () => {
  // HA1 = MD5("u:r:p"), HA2 = MD5("GET:/api/v1/status"), computed independently with openssl:
  //   printf 'u:r:p' | md5sum; printf 'GET:/api/v1/status' | md5sum; printf '<ha1>:n1:<ha2>' | md5sum
  const ch: DigestChallenge = { realm: 'r', nonce: 'n1', algorithm: 'MD5', qop: null, stale: false };
  const got = digestResponse(ch, { username: 'u', password: 'p', method: 'GET', uri: '/api/v1/status', cnonce: 'x', nc: 1 });
  assert.equal(got, EXPECTED_NO_QOP);
  // cnonce and nc do not enter the legacy form.
  assert.equal(digestResponse(ch, { username: 'u', password: 'p', method: 'GET', uri: '/api/v1/status', cnonce: 'y', nc: 7 }), got);
});

test('the nonce count enters the response with qop', () => {
  const ch: DigestChallenge = { ...RFC7616, algorithm: 'MD5', qop: 'auth', stale: false };
  assert.notEqual(digestResponse(ch, { ...RFC7616_INPUT, nc: 2 }), digestResponse(ch, RFC7616_INPUT));
});

const parseCases: Array<{ header: string | string[]; want: Partial<DigestChallenge> | null }> = [
  {
    header: 'Digest realm="Printer API", nonce="a8b0c2d4e6f80000", stale=FALSE',
    want: { realm: 'Printer API', nonce: 'a8b0c2d4e6f80000', algorithm: 'MD5', qop: null, stale: false },
  },
  {
    header: [`Digest realm="${RFC7616.realm}", qop="auth, auth-int", algorithm=MD5, nonce="${RFC7616.nonce}", opaque="${RFC7616.opaque}"`,
      `Digest realm="${RFC7616.realm}", qop="auth, auth-int", algorithm=SHA-256, nonce="${RFC7616.nonce}", opaque="${RFC7616.opaque}"`],
    want: { algorithm: 'SHA-256', qop: 'auth', opaque: RFC7616.opaque },
  },
  { header: 'Digest realm="x", nonce="n", stale=true, algorithm=md5-sess, qop="auth"', want: { algorithm: 'MD5-sess', stale: true } },
  { header: 'Digest realm="x", nonce="n", qop="auth-int"', want: null },
  { header: 'Digest realm="x", nonce="n", algorithm=SHA-512-256', want: null },
  { header: 'Basic realm="x"', want: null },
  { header: 'Digest realm="a \\"quoted\\" realm", nonce="n"', want: { realm: 'a "quoted" realm' } },
];

for (const c of parseCases) {
  test(`challenge: ${JSON.stringify(c.header).slice(0, 70)}`, () => {
    const got = parseDigestChallenge(c.header);
    if (c.want === null) assert.equal(got, null);
    else {
      assert.ok(got);
      for (const [k, v] of Object.entries(c.want)) assert.deepEqual(got[k as keyof DigestChallenge], v, k);
    }
  });
}

test('the Authorization header round-trips through the server-side parser', () => {
  const ch: DigestChallenge = { ...RFC7616, algorithm: 'SHA-256', qop: 'auth', stale: false };
  const header = digestAuthorization(ch, RFC7616_INPUT);
  const fields = parseDigestAuthorization(header)!;
  assert.equal(fields.get('username'), 'Mufasa');
  assert.equal(fields.get('nc'), '00000001');
  assert.equal(fields.get('qop'), 'auth');
  assert.equal(fields.get('response'), '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
  assert.equal(fields.get('opaque'), RFC7616.opaque);
});
