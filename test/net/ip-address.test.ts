// Address classification by table: what a download may never connect to (link-local, multicast, broadcast, unspecified, metadata) and what it may (loopback, LAN, public).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forbiddenAddress, parseIp, samePrefix } from '../../src/net/ip-address.js';

/** Each address (as a URL host name, a resolver answer or a pattern might spell it) and the class it falls in; null: allowed. */
const TABLE: Array<[string, string | null]> = [
  // Allowed: a local script on this machine, a NAS on the LAN, the internet.
  ['127.0.0.1', null],
  ['127.8.9.10', null],
  ['::1', null],
  ['[::1]', null],
  ['10.0.0.5', null],
  ['172.16.3.4', null],
  ['192.168.1.20', null],
  ['100.64.0.1', null],
  ['8.8.8.8', null],
  ['fd00::5', null],
  ['fc00::1', null],
  ['2001:db8::1', null],
  ['169.253.255.255', null],
  ['169.255.0.0', null],
  ['223.255.255.255', null],
  ['255.255.255.254', null],
  ['1.0.0.0', null],
  ['::2', null],
  ['fec0::1', null],
  ['fe7f::1', null],
  ['fd00:ec2::253', null],
  ['::ffff:127.0.0.1', null],
  ['::ffff:192.168.1.20', null],
  // Link-local, the cloud metadata service among it.
  ['169.254.169.254', 'link_local'],
  ['169.254.0.0', 'link_local'],
  ['169.254.255.255', 'link_local'],
  ['fe80::1', 'link_local'],
  ['[fe80::1]', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf:ffff::1', 'link_local'],
  ['FE80::ABCD', 'link_local'],
  // IPv4 written as IPv6 reaches the IPv4 address.
  ['::ffff:169.254.169.254', 'link_local'],
  ['::ffff:a9fe:a9fe', 'link_local'],
  ['[::ffff:a9fe:a9fe]', 'link_local'],
  ['0:0:0:0:0:ffff:a9fe:a9fe', 'link_local'],
  ['64:ff9b::a9fe:a9fe', 'link_local'],
  ['::ffff:224.0.0.1', 'multicast'],
  ['::ffff:0.0.0.0', 'unspecified'],
  // Multicast.
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['ff05::fb', 'multicast'],
  // Broadcast and unspecified.
  ['255.255.255.255', 'broadcast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['0:0:0:0:0:0:0:0', 'unspecified'],
  // Metadata services outside link-local.
  ['100.100.100.200', 'cloud_metadata'],
  ['fd00:ec2::254', 'cloud_metadata'],
];

describe('forbiddenAddress', () => {
  for (const [text, kind] of TABLE) {
    it(`${text}: ${kind ?? 'allowed'}`, () => {
      const bytes = parseIp(text);
      assert.ok(bytes, `${text} parses`);
      assert.equal(forbiddenAddress(bytes)?.kind ?? null, kind);
    });
  }

  it('describes the class, and says when an IPv6 form hides an IPv4 address', () => {
    assert.equal(forbiddenAddress(parseIp('169.254.169.254')!)?.description, 'a link-local address (169.254.0.0/16)');
    assert.equal(
      forbiddenAddress(parseIp('::ffff:a9fe:a9fe')!)?.description,
      'the IPv6 form of 169.254.169.254, a link-local address (169.254.0.0/16)',
    );
  });
});

describe('parseIp', () => {
  it('reads both families into bytes', () => {
    assert.deepEqual(Array.from(parseIp('192.168.1.20')!), [192, 168, 1, 20]);
    assert.deepEqual(Array.from(parseIp('fe80::1')!), [0xfe, 0x80, ...new Array(13).fill(0), 1]);
    assert.deepEqual(Array.from(parseIp('1:2:3:4:5:6:7:8')!), [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
    assert.deepEqual(parseIp('[fd00:0::5]'), parseIp('fd00::5'));
  });
  it('refuses what is not an address', () => {
    for (const bad of ['', 'nas.lan', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1.2.3.-4', ':::', '1::2::3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7::8', 'g::1', '12345::', '::1.2.3']) {
      assert.equal(parseIp(bad), null, bad);
    }
  });
  it('compares prefixes bit by bit, within one family', () => {
    assert.equal(samePrefix(parseIp('10.1.2.3')!, parseIp('10.0.0.0')!, 8), true);
    assert.equal(samePrefix(parseIp('10.1.2.3')!, parseIp('10.0.0.0')!, 9), true);
    assert.equal(samePrefix(parseIp('10.128.2.3')!, parseIp('10.0.0.0')!, 9), false);
    assert.equal(samePrefix(parseIp('febf::1')!, parseIp('fe80::')!, 10), true);
    assert.equal(samePrefix(parseIp('fec0::1')!, parseIp('fe80::')!, 10), false);
    assert.equal(samePrefix(parseIp('10.0.0.1')!, parseIp('::')!, 0), false, 'never across families');
  });
});
