// Probing for mDNS names against a stand-in socket: a live answer takes the name, a goodbye (TTL 0) does not, our own
// probe heard back does not, and a stop ends the probe at once.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { probeNames, type MdnsPacket, type MdnsSocket } from '../../src/transport/mdns-probe.js';
import type { MdnsRecord } from '../../src/protocol/mdns-names.js';

const NAME = 'printfarm on testbox._http._tcp.local';
const proposed: MdnsRecord[] = [{ name: NAME, type: 'SRV', ttl: 120, data: { priority: 0, weight: 0, port: 8080, target: 'testbox' } }];

/** A socket that hears its own queries back, as a multicast socket does, and keeps them. */
function fakeSocket(): MdnsSocket & EventEmitter & { sent: MdnsPacket[] } {
  const socket = Object.assign(new EventEmitter(), { sent: [] as MdnsPacket[] }) as MdnsSocket & EventEmitter & { sent: MdnsPacket[] };
  socket.query = (packet, callback) => {
    socket.sent.push(packet);
    setImmediate(() => { socket.emit('query', packet); callback(null); });
  };
  return socket;
}

const probe = (socket: MdnsSocket, signal = new AbortController().signal) =>
  probeNames(socket, proposed, { signal, onSendError: (err) => assert.fail(err), random: () => 0 });

it('no answer: three probes (ANY, proposing our records), then free; our own probes heard back are no rival', { timeout: 5000 }, async () => {
  const socket = fakeSocket();
  assert.equal(await probe(socket), 'free');
  assert.equal(socket.sent.length, 3);
  assert.deepEqual(socket.sent[0], { questions: [{ name: NAME, type: 'ANY' }], authorities: proposed });
});

it('a live answer for the name takes it; a goodbye (TTL 0) of a host giving it up does not', { timeout: 5000 }, async () => {
  const socket = fakeSocket();
  const goodbye = probe(socket);
  socket.emit('response', { answers: [{ ...proposed[0]!, ttl: 0, data: { port: 9999, target: 'other' } }] });
  assert.equal(await goodbye, 'free');
  const live = probe(socket);
  socket.emit('response', { answers: [], additionals: [{ ...proposed[0]!, name: NAME.toUpperCase(), data: { port: 9999, target: 'other' } }] });
  assert.equal(await live, 'taken');
});

it('a stop ends the probe at once', async () => {
  const socket = fakeSocket();
  const stop = new AbortController();
  const outcome = probe(socket, stop.signal);
  stop.abort();
  assert.equal(await outcome, 'stopped');
  assert.equal(socket.listenerCount('response') + socket.listenerCount('query'), 0);
});
