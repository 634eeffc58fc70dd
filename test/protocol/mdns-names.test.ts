// The pure rules for claiming an mDNS name: numbered names within 63 bytes, the fully qualified instance name, and the
// RFC 6762 §8.2 tie-break between two simultaneous probes.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { claimedByOther, instanceFqdn, losesTieBreak, numberedName, type MdnsRecord } from '../../src/protocol/mdns-names.js';

it('numbered names: the name itself, then "(2)", "(3)"; a long name is cut to 63 bytes, never its number nor inside a character', () => {
  assert.equal(numberedName('printfarm on farm-pi', 1), 'printfarm on farm-pi');
  assert.equal(numberedName('printfarm on farm-pi', 2), 'printfarm on farm-pi (2)');
  assert.equal(numberedName('printfarm on farm-pi', 12), 'printfarm on farm-pi (12)');
  const long = `printfarm on ${'x'.repeat(80)}`;
  assert.equal(numberedName(long, 1), long.slice(0, 63));
  assert.equal(numberedName(long, 2), `${long.slice(0, 59)} (2)`);
  assert.equal(Buffer.byteLength(numberedName(long, 2)), 63);
  // "é" is two bytes: 31 of them are 62 bytes, the 32nd would make 64.
  assert.equal(numberedName('é'.repeat(40), 1), 'é'.repeat(31));
  assert.equal(numberedName('é'.repeat(40), 2), `${'é'.repeat(29)} (2)`);
});

it('the instance name in full, as bonjour-service writes it (a dot in the name becomes "-")', () => {
  assert.equal(instanceFqdn('printfarm on farm-pi (2)', 'http'), 'printfarm on farm-pi (2)._http._tcp.local');
  assert.equal(instanceFqdn('printfarm on v1.2', 'printfarm'), 'printfarm on v1-2._printfarm._tcp.local');
});

const srv = (port: number, target = 'farm-pi'): MdnsRecord => ({ name: 'n', type: 'SRV', data: { priority: 0, weight: 0, port, target } });
const txt = (...parts: string[]): MdnsRecord => ({ name: 'n', type: 'TXT', data: parts });

it('tie-break: the proposal that sorts earlier loses, whichever order the records come in; identical ones lose nothing', () => {
  const ours = [srv(4444), txt('version=1', 'path=/')];
  // The TXT records are the same, so the SRV records decide: by port first (priority and weight being equal).
  assert.equal(losesTieBreak(ours, [txt('version=1', 'path=/'), srv(5555)]), true);
  assert.equal(losesTieBreak([srv(5555), txt('version=1', 'path=/')], ours), false);
  // Our own probe heard back.
  assert.equal(losesTieBreak(ours, [...ours].reverse()), false);
  // TXT (type 16) sorts before SRV (type 33): a different TXT decides before any SRV is looked at.
  assert.equal(losesTieBreak([srv(9999), txt('version=1')], [srv(1), txt('version=2')]), true);
  // The same port on another host: the target name's bytes decide ("farm-pi" < "farm-pj").
  assert.equal(losesTieBreak([srv(80, 'farm-pi')], [srv(80, 'farm-pj')]), true);
  // One list is a prefix of the other: the shorter one loses.
  assert.equal(losesTieBreak([txt('a=b')], [srv(80), txt('a=b')]), true);
  assert.equal(losesTieBreak([srv(80), txt('a=b')], [txt('a=b')]), false);
  // TXT strings as received (Buffers) compare as the strings sent.
  assert.equal(losesTieBreak([txt('a=b')], [{ name: 'n', type: 'TXT', data: [Buffer.from('a=b')] }]), false);
});

it('once announced: a live SRV of our name with another host or port is a rival; our own, a goodbye or another name is not', () => {
  const ours = [{ ...srv(8080), name: 'N._http._tcp.local' }];
  assert.equal(claimedByOther(ours, [{ ...srv(9090), name: 'n._HTTP._tcp.local', ttl: 120 }]), true);
  assert.equal(claimedByOther(ours, [{ ...srv(8080, 'other-host'), name: 'N._http._tcp.local', ttl: 120 }]), true);
  assert.equal(claimedByOther(ours, [{ ...srv(8080), name: 'N._http._tcp.local', ttl: 120 }]), false);
  assert.equal(claimedByOther(ours, [{ ...srv(9090), name: 'N._http._tcp.local', ttl: 0 }]), false);
  assert.equal(claimedByOther(ours, [{ ...srv(9090), name: 'N (2)._http._tcp.local', ttl: 120 }]), false);
});
