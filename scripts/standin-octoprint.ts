// Manual runs: an OctoPrint stand-in on 127.0.0.1. Usage: node --import tsx scripts/standin-octoprint.ts [port] [api-key] [speed]
import { startOctoPrintStandIn } from '../src/simulator/octoprint/octoprint-standin.js';

const [port = '5000', apiKey = 'printfarm-dev-key', speed = '1'] = process.argv.slice(2);
const standIn = await startOctoPrintStandIn({ port: Number(port), host: '127.0.0.1', apiKey, simulator: { speed }, log: (l) => console.log(l) });
console.log(`OctoPrint stand-in at ${standIn.url} (X-Api-Key: ${apiKey}); Ctrl-C stops it`);
process.once('SIGINT', () => void standIn.close().then(() => process.exit(0)));
