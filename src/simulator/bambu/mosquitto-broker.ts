// Mosquitto as the stand-in's MQTT broker, as a Bambu printer runs one: TLS on its own port, the `bblp` user with the
// access code as password and no anonymous clients. Config, password file and certificate live in the stand-in's dir.
import { createHash, randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChildServer } from './child-server.js';
import type { StandInCertificate } from './standin-certificate.js';

export const MOSQUITTO = '/usr/sbin/mosquitto';

/** A mosquitto_passwd line (the `$6$` form: base64 salt, base64 SHA-512 of password then salt), made without the tool. */
export function mosquittoPasswordLine(user: string, password: string): string {
  const salt = randomBytes(12);
  const hash = createHash('sha512').update(Buffer.concat([Buffer.from(password, 'utf8'), salt])).digest();
  return `${user}:$6$${salt.toString('base64')}$${hash.toString('base64')}\n`;
}

/**
 * The broker on 127.0.0.1:`port`, only `user` (bblp, as on a printer) with `password` admitted. `cert` null: a plain
 * listener (the Home Assistant tests run both, as a home broker may).
 */
export async function mosquittoBroker(dir: string, port: number, cert: StandInCertificate | null, password: string, user = 'bblp'): Promise<ChildServer> {
  const passwords = join(dir, 'mosquitto.passwd');
  await writeFile(passwords, mosquittoPasswordLine(user, password), { mode: 0o600 });
  const conf = join(dir, 'mosquitto.conf');
  await writeFile(
    conf,
    [
      'per_listener_settings false',
      'persistence false',
      'log_dest stderr',
      'log_type error',
      'log_type warning',
      // Started as root it would drop to the mosquitto user, who cannot read our temp dir; unprivileged this is ignored.
      'user root',
      'allow_anonymous false',
      `password_file ${passwords}`,
      `listener ${port} 127.0.0.1`,
      ...(cert ? [`certfile ${cert.certPath}`, `keyfile ${cert.keyPath}`] : []),
      '',
    ].join('\n'),
  );
  return new ChildServer('mosquitto', MOSQUITTO, ['-c', conf], port);
}
