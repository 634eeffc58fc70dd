// One seeded random source for the tests' generators (fuzz, random farms): the simulator's mulberry32, as a function.
import { Prng } from '../../src/simulator/serial-link.js';

/** The same sequence for the same seed on every machine. */
export function seededRandom(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.next();
}
