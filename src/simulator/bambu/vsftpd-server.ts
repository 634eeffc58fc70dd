// vsftpd as the stand-in's implicit-FTPS server, as a Bambu printer runs one: TLS from the first byte, the `bblp` user
// with the access code as password, uploads to the root of its "SD card" (a dir of the stand-in). vsftpd logs local
// users in through PAM and /etc/passwd, so it runs in a mount namespace of its own (unshare) where copies of the
// system's passwd, shadow and group that add `bblp` are bound over the real ones: the machine's users stay untouched.
// That needs root (vsftpd's own rule for non-anonymous logins); stand-in tests skip with this reason otherwise.
import { execFile } from 'node:child_process';
import { chmod, chown, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChildServer } from './child-server.js';
import type { StandInCertificate } from './standin-certificate.js';

export const VSFTPD = '/usr/sbin/vsftpd';

/** A uid no system account uses, for `bblp` inside vsftpd's namespace (owner of the SD card dir). */
const BBLP_UID = 64_990;

/** Why vsftpd cannot run here, or null. */
export function vsftpdUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'vsftpd logs in local users only when started as root (run the stand-in as root)';
  return null;
}

export async function vsftpdServer(dir: string, sdcard: string, port: number, cert: StandInCertificate, accessCode: string): Promise<ChildServer> {
  const why = vsftpdUnavailable();
  if (why) throw new Error(why);
  const hashed = (await passwdHash(accessCode)).trim();
  const etc = (name: string): Promise<string> => readFile(`/etc/${name}`, 'utf8').catch(() => '');
  const drop = (text: string): string => text.split('\n').filter((l) => l !== '' && !l.startsWith('bblp:')).join('\n') + '\n';
  await writeFile(join(dir, 'passwd'), `${drop(await etc('passwd'))}bblp:x:${BBLP_UID}:${BBLP_UID}::${sdcard}:/bin/sh\n`);
  await writeFile(join(dir, 'shadow'), `${drop(await etc('shadow'))}bblp:${hashed}:19000:0:99999:7:::\n`, { mode: 0o600 });
  await writeFile(join(dir, 'group'), `${drop(await etc('group'))}bblp:x:${BBLP_UID}:\n`);
  await chown(sdcard, BBLP_UID, BBLP_UID);
  // bblp must pass through the stand-in's dir to its SD card (the dir's files stay unreadable to it).
  await chmod(dir, 0o711);
  const conf = join(dir, 'vsftpd.conf');
  await writeFile(
    conf,
    [
      'listen=YES',
      'listen_ipv6=NO',
      'listen_address=127.0.0.1',
      `listen_port=${port}`,
      'background=NO',
      'anonymous_enable=NO',
      'local_enable=YES',
      'write_enable=YES',
      'local_umask=022',
      `local_root=${sdcard}`,
      'chroot_local_user=YES',
      'allow_writeable_chroot=YES',
      'secure_chroot_dir=/var/run/vsftpd/empty',
      'pam_service_name=vsftpd',
      'seccomp_sandbox=NO',
      'pasv_enable=YES',
      'pasv_address=127.0.0.1',
      'ssl_enable=YES',
      'implicit_ssl=YES',
      `rsa_cert_file=${cert.certPath}`,
      `rsa_private_key_file=${cert.keyPath}`,
      'force_local_logins_ssl=YES',
      'force_local_data_ssl=YES',
      // Debian's default cipher list (DES-CBC3-SHA) is one no current TLS client offers.
      'ssl_ciphers=HIGH',
      'require_ssl_reuse=NO',
      'xferlog_enable=NO',
      'vsftpd_log_file=/dev/null',
      '',
    ].join('\n'),
  );
  const script = [
    'set -e',
    'mkdir -p /var/run/vsftpd/empty',
    `for f in passwd shadow group; do mount --bind "${dir}/$f" "/etc/$f"; done`,
    `exec ${VSFTPD} "${conf}"`,
  ].join('\n');
  return new ChildServer('vsftpd', 'unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script], port);
}

/** The access code as a SHA-512 crypt hash for the shadow copy. */
async function passwdHash(password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('openssl', ['passwd', '-6', '-stdin'], { timeout: 10_000 }, (err, out) => (err ? reject(err) : resolve(out)));
    child.stdin!.end(`${password}\n`);
  });
}
