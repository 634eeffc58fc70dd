// A halted printer behind the TCP bridge comes back as a real board does: the host reconnects, the board powers on afresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventBus } from '../../src/events/event-bus.js';
import { PrinterSession } from '../../src/printers/printer-session.js';
import { parseSimulatorOptions } from '../../src/simulator/simulator-options.js';
import { startTcpBridge } from '../../src/simulator/tcp-bridge.js';

test('emergency stop over a TCP bridge, then reconnect(): the printer is back and answers', async () => {
  const lines: string[] = [];
  const bridge = await startTcpBridge({
    host: '127.0.0.1',
    basePort: 0,
    count: 1,
    simulator: parseSimulatorOptions({ speed: 'max' }),
    log: (l) => lines.push(l),
  });
  const session = new PrinterSession({
    printerId: 'prt_tcp',
    url: `tcp://127.0.0.1:${bridge.ports[0]}`,
    bus: new EventBus(),
    autoReconnect: false,
    drainQuietMs: 50,
    drainMaxMs: 500,
  });
  try {
    await session.connect();
    const halted = new Promise<void>((resolve) => {
      const off = session.onConsole((e) => {
        if (e.kind === 'fatal' && /halted/i.test(e.text)) off(), resolve();
      });
    });
    session.emergencyStop();
    await halted;
    assert.equal(session.currentStatus, 'error');
    // Three times in a row: the old connection must never be in the way of the new one.
    for (let i = 0; i < 3; i++) {
      await session.reconnect();
      assert.equal(session.currentStatus, 'idle', lines.join('\n'));
      assert.equal((await session.sendCommand('M105')).ok, true);
    }
  } finally {
    await session.disconnect();
    await bridge.close();
  }
});
