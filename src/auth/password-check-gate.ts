// Bounds the password checks running at once: sign-in is public and each scrypt check costs ~32 MiB and tens of milliseconds.
import { AppError } from '../errors.js';

/** As many as libuv runs scrypt jobs in parallel by default (its 4 threads): more would only queue, holding requests open. */
export const PASSWORD_CHECKS_AT_ONCE = 4;

/**
 * The failed-auth guard counts wrong passwords per address only once they have failed, so a burst of parallel
 * sign-ins would all start hashing before the first failure is counted. Past the bound a sign-in is refused at once
 * (429, not a failed authentication): cheap for the server, and a person simply retries.
 */
export class PasswordCheckGate {
  private running = 0;

  constructor(private readonly max: number = PASSWORD_CHECKS_AT_ONCE) {}

  async run<T>(check: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) {
      throw new AppError(429, 'rate_limit_exceeded', 'too many sign-ins at once; retry after 1 seconds', '', { 'Retry-After': '1' });
    }
    this.running += 1;
    try {
      return await check();
    } finally {
      this.running -= 1;
    }
  }
}
